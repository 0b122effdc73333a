#include "model/yaml_emit.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <vector>

namespace model {
namespace {

bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : 4;
    if (n == 4) return false;
    for (std::size_t k = 1; k <= n; ++k)
      if (i + k >= s.size() || (static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    i += n + 1;
  }
  return true;
}

void hex_escape(unsigned char c, const char* prefix, int width, std::string& out) {
  static const char* hex = "0123456789abcdef";
  out += prefix;
  if (width == 4) out += "00";
  out += hex[c >> 4];
  out += hex[c & 15];
}

void emit_double_quoted(std::string_view s, std::string& out, bool json) {
  bool utf8 = valid_utf8(s);
  out += '"';
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f || (c >= 0x80 && !utf8)) {
          hex_escape(c, json ? "\\u" : "\\x", json ? 4 : 2, out);
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

void emit_string(std::string_view s, std::string& out) {
  if (yaml_plain_safe(s)) {
    out += s;
    return;
  }
  bool single_ok = valid_utf8(s) && std::none_of(s.begin(), s.end(), [](char ch) {
                     auto c = static_cast<unsigned char>(ch);
                     return c < 0x20 || c == 0x7f;
                   });
  if (!single_ok) return emit_double_quoted(s, out, false);
  out += '\'';
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  out += '\'';
}

void emit_number(const Value& v, std::string& out, bool json) {
  if (v.is_int()) {
    out += std::to_string(v.as_int());
    return;
  }
  double d = v.as_double();
  if (std::isnan(d)) {
    out += json ? "null" : ".nan";
    return;
  }
  if (std::isinf(d)) {
    out += json ? "null" : (d > 0 ? ".inf" : "-.inf");
    return;
  }
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, d);
  // The shortest form of a large integral double can be plain digits
  // ("666666666666666622976"), which reads back as an integer literal that
  // fits no 64-bit type: simdjson refuses it (so a journal line holding it
  // would not decode). Beyond int64 write the exponent form instead.
  if (std::fabs(d) >= 0x1p63 && std::find_if(buf, p, [](char c) { return c == '.' || c == 'e'; }) == p)
    p = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific).ptr;
  out.append(buf, p);
}

bool emit_scalar(const Value& v, std::string& out) {
  switch (v.type()) {
    case Value::Type::null:
      out += "null";
      return true;
    case Value::Type::boolean:
      out += v.as_bool() ? "true" : "false";
      return true;
    case Value::Type::integer:
    case Value::Type::number:
      emit_number(v, out, false);
      return true;
    case Value::Type::string:
      emit_string(v.as_string(), out);
      return true;
    case Value::Type::array:
      if (v.size() == 0) return out += "[]", true;
      return false;
    case Value::Type::object:
      if (v.size() == 0) return out += "{}", true;
      return false;
  }
  return false;
}

// An object's members in key order, as pointers; up to 16 of them (nearly
// every object) without a heap allocation.
class SortedMembers {
 public:
  explicit SortedMembers(const Value& v) {
    const auto& members = v.as_object();
    const Value::Member** first = small_.data();
    if (members.size() > small_.size()) {
      big_.resize(members.size());
      first = big_.data();
    }
    for (std::size_t i = 0; i < members.size(); ++i) first[i] = &members[i];
    view_ = {first, members.size()};
    std::sort(view_.begin(), view_.end(),
              [](const Value::Member* a, const Value::Member* b) { return a->first < b->first; });
  }
  SortedMembers(const SortedMembers&) = delete;
  SortedMembers& operator=(const SortedMembers&) = delete;
  auto begin() const { return view_.begin(); }
  auto end() const { return view_.end(); }

 private:
  std::array<const Value::Member*, 16> small_;
  std::vector<const Value::Member*> big_;
  std::span<const Value::Member*> view_;
};

struct Emitter {
  std::string& out;
  std::span<const YamlSplice> splices;

  const YamlSplice* splice_for(const Value& v) const {
    for (const auto& s : splices)
      if (s.node == &v) return &s;
    return nullptr;
  }

  // Each line of `block` (emitted at indent 0) shifted right by `indent`.
  void reindent(std::string_view block, std::size_t indent) {
    while (!block.empty()) {
      const std::size_t end = block.find('\n');
      const std::string_view line = block.substr(0, end == std::string_view::npos ? block.size() : end + 1);
      out.append(indent, ' ');
      out += line;
      block.remove_prefix(line.size());
    }
  }

  // Emits an array item after its "- " has been written.
  void item(const Value& v, std::size_t indent) {
    if (emit_scalar(v, out)) {
      out += '\n';
      return;
    }
    block(v, indent);  // the block's first line shares the dash's line
  }

  void member(const Value::Member& m, std::size_t indent) {
    // YAML limits implicit keys to 1024 characters (yaml-cpp refuses a
    // longer one: "illegal map value"), so a longer key is written in the
    // explicit form "? key" with its ':' on the next line. The limit is on
    // the key as written: escapes make "\x01" four characters of one byte.
    const std::size_t start = out.size();
    emit_string(m.first, out);
    if (out.size() - start > 1000) {
      out.insert(start, "? ");
      out += '\n';
      out.append(indent, ' ');
    }
    out += ':';
    const Value& v = m.second;
    if (!v.is_array() && !v.is_object()) {
      out += ' ';
      emit_scalar(v, out);
      out += '\n';
      return;
    }
    if (v.size() == 0) {
      out += v.is_array() ? " []\n" : " {}\n";
      return;
    }
    out += '\n';
    const std::size_t child = v.is_array() ? indent : indent + 2;
    if (const YamlSplice* s = splices.empty() ? nullptr : splice_for(v)) {
      for (std::string_view text : s->items) reindent(text, child);
      return;
    }
    out.append(child, ' ');
    block(v, child);
  }

  void block(const Value& v, std::size_t indent) {
    bool first = true;
    auto pad = [&] {
      if (!first) out.append(indent, ' ');
      first = false;
    };
    if (v.is_array()) {
      for (const auto& i : v.as_array()) {
        pad();
        out += "- ";
        item(i, indent + 2);
      }
      return;
    }
    for (const auto* m : SortedMembers(v)) {
      pad();
      member(*m, indent);
    }
  }
};

}  // namespace

void emit_yaml(const Value& v, std::string& out) {
  emit_yaml(v, out, {});
}

void emit_yaml(const Value& v, std::string& out, std::span<const YamlSplice> splices) {
  if (emit_scalar(v, out)) {
    out += '\n';
    return;
  }
  Emitter{out, splices}.block(v, 0);
}

std::string to_yaml(const Value& v) {
  std::string out;
  emit_yaml(v, out);
  return out;
}

void emit_json(const Value& v, std::string& out) {
  switch (v.type()) {
    case Value::Type::null:
      out += "null";
      return;
    case Value::Type::boolean:
      out += v.as_bool() ? "true" : "false";
      return;
    case Value::Type::integer:
    case Value::Type::number:
      emit_number(v, out, true);
      return;
    case Value::Type::string:
      emit_double_quoted(v.as_string(), out, true);
      return;
    case Value::Type::array: {
      out += '[';
      bool first = true;
      for (const auto& item : v.as_array()) {
        if (!first) out += ',';
        first = false;
        emit_json(item, out);
      }
      out += ']';
      return;
    }
    case Value::Type::object: {
      out += '{';
      bool first = true;
      for (const auto* m : SortedMembers(v)) {
        if (!first) out += ',';
        first = false;
        emit_double_quoted(m->first, out, true);
        out += ':';
        emit_json(m->second, out);
      }
      out += '}';
      return;
    }
  }
}

void emit_json_string(std::string_view s, std::string& out) {
  emit_double_quoted(s, out, true);
}

std::string to_json(const Value& v) {
  std::string out;
  emit_json(v, out);
  return out;
}

}  // namespace model
