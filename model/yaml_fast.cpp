// The fast YAML reader: block mappings and sequences (indentless ones
// too), plain and quoted scalars (over several lines too), literal and
// folded block scalars, and flow collections that close on their line.
// Whatever else it meets, it stops and leaves the whole stream to
// yaml-cpp: an answer from this reader must be the one yaml-cpp would
// give, never a guess.
#include "model/yaml_fast.hpp"

#include <utility>

#include "model/yaml_fast_scan.hpp"

namespace model::yaml_fast {
namespace {

bool dash_entry(std::string_view s) {
  return !s.empty() && s[0] == '-' && (s.size() == 1 || s[1] == ' ');
}

class DocumentReader {
 public:
  DocumentReader(std::string_view text, Lines lines, const ParseLimits& limits)
      : text_(text), lines_(std::move(lines)), ls_(lines_.lines), budget_(limits) {}

  std::vector<Document> documents() {
    std::vector<Document> docs;
    std::size_t at = next_content(0);
    for (bool first = true; at < ls_.size(); first = false) {
      const bool marked = ls_[at].kind == Line::Kind::marker;
      if (!marked && !first) unsupported();  // text after a document's end
      const int line = static_cast<int>(at) + 1;
      const std::size_t start = marked ? next_content(at + 1) : at;
      if (start == ls_.size() || ls_[start].kind == Line::Kind::marker) {
        at = start;  // an empty document, which parse_documents drops
        continue;
      }
      budget_.new_document();
      Value root = collection(start, ls_[start].indent, 0);
      at = next_content(cur_);
      if (at < ls_.size() && ls_[at].kind != Line::Kind::marker) unsupported();
      docs.push_back(Document{std::move(root), line});
    }
    return docs;
  }

 private:
  std::string_view rest(std::size_t line, std::size_t col) const {
    const Line& l = ls_[line];
    return text_.substr(l.begin + col, l.end - l.begin - col);
  }

  // The next line at or after `from` that is neither blank nor a comment.
  std::size_t next_content(std::size_t from) const {
    while (from < ls_.size() && (ls_[from].kind == Line::Kind::blank || ls_[from].kind == Line::Kind::comment)) ++from;
    return from;
  }

  // A block mapping or sequence whose first entry starts at (line, col).
  Value collection(std::size_t line, int col, std::size_t depth) {
    const std::string_view s = rest(line, static_cast<std::size_t>(col));
    if (dash_entry(s)) return sequence(line, col, depth);
    return mapping(line, col, depth);
  }

  Value sequence(std::size_t line, int col, std::size_t depth) {
    budget_.open(depth);
    Value::Array items;
    while (true) {
      items.push_back(value_after(line, static_cast<std::size_t>(col) + 1, col, depth + 1, false));
      const std::size_t next = next_content(cur_);
      if (next == ls_.size() || ls_[next].kind == Line::Kind::marker || ls_[next].indent < col) break;
      if (ls_[next].indent > col) unsupported();
      if (!dash_entry(rest(next, static_cast<std::size_t>(col)))) break;  // a key after an indentless sequence
      line = next;
    }
    return Value(std::move(items));
  }

  Value mapping(std::size_t line, int col, std::size_t depth) {
    budget_.open(depth);
    Value::Object members;
    while (true) {
      const std::string_view s = rest(line, static_cast<std::size_t>(col));
      std::size_t after = 0;
      std::string key = key_at(s, after);
      budget_.count_node();
      Value v = value_after(line, static_cast<std::size_t>(col) + after, col, depth + 1, true);
      members.emplace_back(std::move(key), std::move(v));
      const std::size_t next = next_content(cur_);
      if (next == ls_.size() || ls_[next].kind == Line::Kind::marker || ls_[next].indent < col) break;
      if (ls_[next].indent > col) unsupported();
      line = next;
    }
    if (duplicate_key(members)) unsupported();
    return Value(std::move(members));
  }

  // A mapping key at the start of `s`, as Builder stores it; `after` is set
  // to the offset just past its ':'.
  static std::string key_at(std::string_view s, std::size_t& after) {
    if (!s.empty() && (s[0] == '"' || s[0] == '\'')) {
      std::size_t used = 0;
      auto key = quoted_scalar(s, used);
      if (!key) unsupported();
      const std::size_t colon = s.find_first_not_of(' ', used);
      if (colon == std::string_view::npos || s[colon] != ':' || colon > 1000) unsupported();
      if (colon + 1 < s.size() && s[colon + 1] != ' ') unsupported();
      after = colon + 1;
      return std::move(*key);
    }
    auto key = plain_key(s);
    if (!key) unsupported();
    after = key->after;
    return plain_key_text(key->text);
  }

  // The value after "key:" or "-" on `line`, from byte `pos` on, in the
  // collection indented by `indent`. Sets cur_ to the first line after it.
  Value value_after(std::size_t line, std::size_t pos, int indent, std::size_t depth, bool in_map) {
    const std::string_view s = rest(line, pos);
    const std::size_t p = s.find_first_not_of(' ');
    if (p == std::string_view::npos || s[p] == '#') return value_below(line, indent, depth, in_map);
    const std::string_view v = s.substr(p);
    const int col = static_cast<int>(pos + p);
    if (v[0] == '|' || v[0] == '>') {
      budget_.count_node();
      auto text = block_scalar(text_, lines_, line, v, indent + 1, cur_);
      if (!text) unsupported();
      return Value(std::move(*text));
    }
    if (v[0] == '{' || v[0] == '[') return flow_value(line, v, indent, depth);
    if (!in_map && (dash_entry(v) || starts_with_key(v))) return collection(line, col, depth);
    budget_.count_node();
    if (v[0] == '"' || v[0] == '\'') return quoted_value(line, static_cast<std::size_t>(col), indent);
    return plain_scalar(line, v, indent);
  }

  // A quoted scalar from (line, col), over more lines if it goes on.
  Value quoted_value(std::size_t line, std::size_t col, int indent) {
    auto text = quoted_lines(text_, lines_, line, col);
    if (!text || !only_comment(rest(line, col))) unsupported();
    end_inline(line, indent);
    return Value(std::move(*text));
  }

  // A plain scalar from `v` on `line`, over more lines unless a comment
  // ends it on this one.
  Value plain_scalar(std::size_t line, std::string_view v, int indent) {
    auto first = plain_value(v);
    if (!first) unsupported();
    if (v.find('#', first->size()) != std::string_view::npos) {
      end_inline(line, indent);
      return resolve_plain_scalar(std::string(*first));
    }
    auto text = plain_lines(text_, lines_, line, *first, indent, cur_);
    if (!text) unsupported();
    return resolve_plain_scalar(*text);
  }

  // Whether `v` (not a sequence entry) opens a block mapping.
  static bool starts_with_key(std::string_view v) {
    if (v[0] != '"' && v[0] != '\'') return plain_key(v).has_value();
    std::size_t used = 0;
    if (!quoted_scalar(v, used)) return false;  // not closed on this line: not a key
    const std::size_t colon = v.find_first_not_of(' ', used);
    return colon != std::string_view::npos && v[colon] == ':' && (colon + 1 == v.size() || v[colon + 1] == ' ');
  }

  // After a value that ends on its line, a more indented line (a comment
  // too) would continue it or be an error: yaml-cpp's to judge.
  void end_inline(std::size_t line, int indent) {
    for (std::size_t j = line + 1; j < ls_.size(); ++j) {
      if (ls_[j].kind == Line::Kind::blank) continue;
      if (ls_[j].indent > indent) unsupported();
      break;
    }
    cur_ = line + 1;
  }

  // A value on the lines below "key:" or "-": a more indented collection,
  // an indentless sequence after a key, or else null.
  Value value_below(std::size_t line, int indent, std::size_t depth, bool in_map) {
    const std::size_t next = next_content(line + 1);
    cur_ = line + 1;
    if (next < ls_.size() && ls_[next].kind != Line::Kind::marker) {
      const int col = ls_[next].indent;
      const std::string_view s = rest(next, static_cast<std::size_t>(col));
      if (col > indent && (dash_entry(s) || starts_with_key(s))) return collection(next, col, depth);
      if (col > indent) unsupported();  // a scalar on the next line
      if (col == indent && in_map && dash_entry(s)) return sequence(next, col, depth);
    }
    budget_.count_node();
    return Value();
  }

  Value flow_value(std::size_t line, std::string_view v, int indent, std::size_t depth) {
    std::size_t pos = 0;
    Value out = flow_collection(v, pos, depth, budget_);
    if (!only_comment(v.substr(pos))) unsupported();
    end_inline(line, indent);
    return out;
  }

  std::string_view text_;
  Lines lines_;
  const std::vector<Line>& ls_;
  Budget budget_;
  std::size_t cur_ = 0;  // the first line not read yet
};

}  // namespace
}  // namespace model::yaml_fast

namespace model {

std::optional<std::vector<Document>> read_yaml_fast(std::string_view text, const ParseLimits& limits) noexcept {
  try {
    auto lines = yaml_fast::split_lines(text);
    if (!lines) return std::nullopt;
    return yaml_fast::DocumentReader(text, std::move(*lines), limits).documents();
  } catch (...) {  // Unsupported, or bad_alloc: yaml-cpp decides
    return std::nullopt;
  }
}

}  // namespace model
