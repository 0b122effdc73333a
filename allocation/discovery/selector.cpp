// Parsing and evaluation of label and field selectors.
#include "allocation/discovery/selector.hpp"

#include <algorithm>

namespace allocation::discovery {

namespace {

using Op = Requirement::Op;

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Splits on commas outside parentheses.
std::vector<std::string_view> split_terms(std::string_view text) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] == '(') ++depth;
    if (i < text.size() && text[i] == ')') --depth;
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      out.push_back(trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

bool valid_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '/';
  });
}

void require_token(std::string_view s, std::string_view what, std::string_view term) {
  if (!valid_token(s)) throw SelectorError("invalid " + std::string(what) + " in \"" + std::string(term) + "\"");
}

// `key in (a, b)` / `key notin (a, b)`; false when the term has no set.
bool parse_set(std::string_view term, Requirement& r) {
  const auto open = term.find('(');
  if (open == std::string_view::npos) return false;
  if (term.back() != ')') throw SelectorError("missing ')' in \"" + std::string(term) + "\"");
  const std::string_view head = trim(term.substr(0, open));
  const auto space = head.rfind(' ');
  if (space == std::string_view::npos) throw SelectorError("want 'in' or 'notin' in \"" + std::string(term) + "\"");
  const std::string_view op = head.substr(space + 1);
  if (op != "in" && op != "notin") throw SelectorError("unknown operator \"" + std::string(op) + "\"");
  r.key = std::string(trim(head.substr(0, space)));
  require_token(r.key, "key", term);
  r.op = op == "in" ? Op::in : Op::not_in;
  for (auto v : split_terms(term.substr(open + 1, term.size() - open - 2))) {
    if (!v.empty()) require_token(v, "value", term);
    r.values.emplace_back(v);
  }
  return true;
}

Requirement parse_term(std::string_view term, bool fields) {
  Requirement r;
  if (!fields && parse_set(term, r)) return r;
  for (auto [tok, op] : {std::pair{"!=", Op::not_equals}, std::pair{"==", Op::equals}, std::pair{"=", Op::equals}}) {
    const auto pos = term.find(tok);
    if (pos == std::string_view::npos) continue;
    r.key = std::string(trim(term.substr(0, pos)));
    r.op = op;
    const std::string_view value = trim(term.substr(pos + std::string_view(tok).size()));
    if (!value.empty() && !fields) require_token(value, "value", term);
    r.values.emplace_back(value);
    require_token(r.key, "key", term);
    return r;
  }
  if (fields) throw SelectorError("field selector \"" + std::string(term) + "\" needs =, == or !=");
  if (term.find_first_of("<>") != std::string_view::npos)
    throw SelectorError("operators < and > are not supported in \"" + std::string(term) + "\"");
  r.op = term.starts_with('!') ? Op::not_exists : Op::exists;
  r.key = std::string(trim(r.op == Op::not_exists ? term.substr(1) : term));
  require_token(r.key, "key", term);
  return r;
}

void parse(std::string_view text, bool fields, std::vector<Requirement>& reqs) {
  for (auto term : split_terms(trim(text))) {
    if (term.empty()) {
      if (trim(text).empty()) break;
      throw SelectorError("empty term in \"" + std::string(text) + "\"");
    }
    reqs.push_back(parse_term(term, fields));
  }
}

// The field at a dotted path rendered as text; "" when missing.
std::string field_value(const model::Value& object, std::string_view path) {
  const model::Value* cur = &object;
  while (cur) {
    const auto dot = path.find('.');
    cur = cur->find(path.substr(0, dot));
    if (dot == std::string_view::npos) break;
    path.remove_prefix(dot + 1);
  }
  if (!cur) return "";
  if (cur->is_string()) return cur->as_string();
  if (cur->is_bool()) return cur->as_bool() ? "true" : "false";
  if (cur->is_int()) return std::to_string(cur->as_int());
  return "";
}

}  // namespace

Selector Selector::parse_labels(std::string_view text) {
  Selector s;
  parse(text, false, s.reqs_);
  s.text_ = std::string(trim(text));
  return s;
}

Selector Selector::parse_fields(std::string_view text) {
  Selector s;
  s.fields_ = true;
  parse(text, true, s.reqs_);
  s.text_ = std::string(trim(text));
  return s;
}

bool Selector::matches(const model::Value& object) const {
  const model::Value* labels = object.find("metadata") ? object.find("metadata")->find("labels") : nullptr;
  for (const auto& r : reqs_) {
    std::string value;
    bool has = false;
    if (fields_) {
      value = field_value(object, r.key);
      has = true;
    } else if (const model::Value* v = labels ? labels->find(r.key) : nullptr; v && v->is_string()) {
      value = v->as_string();
      has = true;
    }
    const bool in = has && std::find(r.values.begin(), r.values.end(), value) != r.values.end();
    switch (r.op) {
      case Op::exists:
        if (!has) return false;
        break;
      case Op::not_exists:
        if (has) return false;
        break;
      case Op::equals:
      case Op::in:
        if (!in) return false;
        break;
      case Op::not_equals:
      case Op::not_in:
        if (in) return false;
        break;
    }
  }
  return true;
}

}  // namespace allocation::discovery
