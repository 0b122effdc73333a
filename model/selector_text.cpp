#include "model/selector_text.hpp"

#include <algorithm>
#include <cstdlib>

#include "model/names.hpp"

namespace model::selector_text {

namespace {

struct Token {
  enum class Type { ident, op, end } type;
  std::string text;
};

bool is_special(char c) {
  return c == ',' || c == '=' || c == '!' || c == '(' || c == ')' || c == '<' || c == '>' || c == ' ' || c == '\t' ||
         c == '\n';
}

std::vector<Token> lex(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      ++i;
    } else if (c == '=' || c == '!') {
      bool two = i + 1 < s.size() && s[i + 1] == '=';
      out.push_back({Token::Type::op, std::string(s.substr(i, two ? 2 : 1))});
      i += two ? 2 : 1;
    } else if (is_special(c)) {
      out.push_back({Token::Type::op, std::string(1, c)});
      ++i;
    } else {
      std::size_t j = i;
      while (j < s.size() && !is_special(s[j])) ++j;
      out.push_back({Token::Type::ident, std::string(s.substr(i, j - i))});
      i = j;
    }
  }
  out.push_back({Token::Type::end, ""});
  return out;
}

[[noreturn]] void fail(const std::string& why) {
  throw SyntaxError("unable to parse requirement: " + why);
}

class Parser {
 public:
  explicit Parser(std::string_view text) : toks_(lex(text)) {}

  std::vector<LabelRequirement> parse() {
    std::vector<LabelRequirement> reqs;
    if (peek().type == Token::Type::end) return reqs;
    for (;;) {
      reqs.push_back(requirement());
      const Token& t = next();
      if (t.type == Token::Type::end) return reqs;
      if (t.text != ",") fail("found '" + t.text + "', expected: ',' or 'end of string'");
    }
  }

 private:
  const Token& peek() const { return toks_[pos_]; }
  const Token& next() { return toks_[pos_ < toks_.size() - 1 ? pos_++ : pos_]; }

  std::string key() {
    const Token& t = next();
    if (t.type != Token::Type::ident || t.text == "in" || t.text == "notin")
      fail("found '" + t.text + "', expected: identifier");
    std::string problem = qualified_name_problem(t.text);
    if (!problem.empty()) fail("key: Invalid value: \"" + t.text + "\": " + problem);
    return t.text;
  }

  std::string value(bool allow_empty) {
    if (allow_empty && (peek().type == Token::Type::end || peek().text == "," || peek().text == ")")) return "";
    const Token& t = next();
    if (t.type != Token::Type::ident) fail("found '" + t.text + "', expected: identifier");
    std::string problem = label_value_problem(t.text);
    if (!problem.empty()) fail("values[0]: Invalid value: \"" + t.text + "\": " + problem);
    return t.text;
  }

  std::vector<std::string> value_set() {
    if (next().text != "(") fail("found '" + toks_[pos_ - 1].text + "', expected: '('");
    std::vector<std::string> values;
    for (;;) {
      values.push_back(value(true));
      const Token& t = next();
      if (t.text == ")") break;
      if (t.text != ",") fail("found '" + t.text + "', expected: ',' or ')'");
    }
    std::sort(values.begin(), values.end());
    return values;
  }

  LabelRequirement requirement() {
    LabelRequirement r;
    if (peek().text == "!") {
      next();
      r.key = key();
      r.op = LabelRequirement::Op::not_exists;
      return r;
    }
    r.key = key();
    const Token& t = peek();
    if (t.type == Token::Type::end || t.text == ",") return r;  // exists
    next();
    using Op = LabelRequirement::Op;
    if (t.text == "=" || t.text == "==" || t.text == "!=") {
      r.op = t.text == "!=" ? Op::not_equals : Op::equals;
      r.values = {value(true)};
    } else if (t.text == "in" || t.text == "notin") {
      r.op = t.text == "in" ? Op::in : Op::not_in;
      r.values = value_set();
    } else if (t.text == ">" || t.text == "<") {
      r.op = t.text == ">" ? Op::greater : Op::less;
      std::string v = value(false);
      char* end = nullptr;
      std::strtoll(v.c_str(), &end, 10);
      if (*end != '\0') fail("for 'Gt', 'Lt' operators, the value must be an integer");
      r.values = {v};
    } else {
      fail("found '" + t.text + "', expected: in, notin, =, ==, !=, gt, lt");
    }
    return r;
  }

  std::vector<Token> toks_;
  std::size_t pos_ = 0;
};

bool requirement_matches(const LabelRequirement& r, const Value* labels) {
  const Value* v = labels ? labels->find(r.key) : nullptr;
  bool has = v && v->is_string();
  const std::string empty;
  const std::string& s = has ? v->as_string() : empty;
  using Op = LabelRequirement::Op;
  switch (r.op) {
    case Op::exists:
      return has;
    case Op::not_exists:
      return !has;
    case Op::equals:
      return has && s == r.values[0];
    case Op::not_equals:
      return !has || s != r.values[0];
    case Op::in:
      return has && std::binary_search(r.values.begin(), r.values.end(), s);
    case Op::not_in:
      return !has || !std::binary_search(r.values.begin(), r.values.end(), s);
    case Op::greater:
    case Op::less: {
      if (!has) return false;
      char* end = nullptr;
      long long n = std::strtoll(s.c_str(), &end, 10);
      if (s.empty() || *end != '\0') return false;
      long long bound = std::strtoll(r.values[0].c_str(), nullptr, 10);
      return r.op == Op::greater ? n > bound : n < bound;
    }
  }
  return false;
}

}  // namespace

bool LabelSelector::matches(const Value* labels) const {
  return std::all_of(reqs_.begin(), reqs_.end(), [&](const auto& r) { return requirement_matches(r, labels); });
}

LabelSelector parse_label_selector(std::string_view text) {
  return LabelSelector(Parser(text).parse());
}

std::string field_text(const Value& object, std::string_view path) {
  const Value* cur = &object;
  while (cur && !path.empty()) {
    std::size_t dot = path.find('.');
    cur = cur->find(path.substr(0, dot));
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  }
  if (!cur) return "";
  if (cur->is_string()) return cur->as_string();
  if (cur->is_int()) return std::to_string(cur->as_int());
  if (cur->is_bool()) return cur->as_bool() ? "true" : "false";
  return "";
}

bool FieldSelector::matches(const Value& object) const {
  return std::all_of(reqs_.begin(), reqs_.end(),
                     [&](const auto& r) { return (field_text(object, r.field) == r.value) != r.negated; });
}

namespace {

// Splits on unescaped commas and unescapes \, \= and \\ afterwards.
std::vector<std::string> split_terms(std::string_view text) {
  std::vector<std::string> terms(1);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      terms.back() += text.substr(i, 2);
      ++i;
    } else if (text[i] == ',') {
      terms.emplace_back();
    } else {
      terms.back() += text[i];
    }
  }
  return terms;
}

std::string unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) ++i;
    out += s[i];
  }
  return out;
}

std::string trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

[[noreturn]] void not_understood(std::string_view selector, const std::string& term) {
  throw SyntaxError("invalid selector: '" + std::string(selector) + "'; can't understand '" + term + "'");
}

// The first `!=`, `==` or `=` splits the term (keys have no escapes); a `!`
// that starts no `!=` belongs to the key, as in the API server.
FieldRequirement field_term(std::string_view selector, const std::string& term) {
  std::size_t op = 0;
  while (op < term.size() && term[op] != '=' && !(term[op] == '!' && op + 1 < term.size() && term[op + 1] == '=')) ++op;
  if (op == term.size()) not_understood(selector, term);
  FieldRequirement r;
  r.negated = term[op] == '!';
  const bool two = r.negated || (op + 1 < term.size() && term[op + 1] == '=');
  r.field = trim(std::string_view(term).substr(0, op));
  r.value = unescape(trim(std::string_view(term).substr(op + (two ? 2 : 1))));
  return r;
}

}  // namespace

FieldSelector parse_field_selector(std::string_view text) {
  std::vector<FieldRequirement> reqs;
  for (const std::string& term : split_terms(text)) {
    if (trim(term).empty()) continue;
    reqs.push_back(field_term(text, term));
  }
  return FieldSelector(std::move(reqs));
}

}  // namespace model::selector_text
