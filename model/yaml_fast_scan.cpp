// The line table and plain scalars of the fast YAML reader.
#include "model/yaml_fast_scan.hpp"

#include <algorithm>
#include <cstdint>

namespace model::yaml_fast {
namespace {

// yaml-cpp keeps a simple key only within 1024 bytes of its ':'.
constexpr std::size_t kMaxKeyLength = 1000;

// Bytes yaml-cpp may read otherwise than as plain content: controls (tab
// and CR among them; '\n' is the caller's), DEL, C1 controls with NEL and
// NBSP, the line and paragraph separators, and the BOM.
bool unusual_at(std::string_view t, std::size_t i) {
  const auto c = static_cast<unsigned char>(t[i]);
  if (c < 0x80) return c < 0x20 || c == 0x7f;
  auto at = [&](std::size_t k) { return i + k < t.size() ? static_cast<unsigned char>(t[i + k]) : 0; };
  if (c == 0xC2) return at(1) <= 0xA0;
  if (c == 0xE2) return at(1) == 0x80 && (at(2) == 0xA8 || at(2) == 0xA9);
  if (c == 0xEF) return at(1) == 0xBB && at(2) == 0xBF;
  return false;
}

std::optional<Line::Kind> classify(std::string_view s, std::size_t indent) {
  if (indent == s.size()) return Line::Kind::blank;
  if (s[indent] == '#') return Line::Kind::comment;
  if (indent > 0) return Line::Kind::content;
  if (s[0] == '%' || s.starts_with("...")) return std::nullopt;
  if (!s.starts_with("---")) return Line::Kind::content;
  if (s.size() == 3 || (s[3] == ' ' && only_comment(s.substr(3)))) return Line::Kind::marker;
  return std::nullopt;  // "---x" is a scalar, "--- x" a document on the marker's line
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<Lines> split_lines(std::string_view text) {
  if (text.size() >= UINT32_MAX) return std::nullopt;
  Lines out;
  out.lines.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  out.ends_with_break = text.empty() || text.back() == '\n';
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != '\n') {
      const auto c = static_cast<unsigned char>(text[i]);
      if ((c < 0x20 || c >= 0x7f) && unusual_at(text, i)) return std::nullopt;
      continue;
    }
    if (i == text.size() && begin == i) break;  // nothing after the last '\n'
    const std::string_view s = text.substr(begin, i - begin);
    const std::size_t indent = std::min(s.find_first_not_of(' '), s.size());
    const auto kind = classify(s, indent);
    if (!kind) return std::nullopt;
    out.lines.push_back(
        Line{static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(i), static_cast<int>(indent), *kind});
    begin = i + 1;
  }
  return out;
}

bool plain_start(std::string_view s) {
  if (s.empty()) return false;
  if (s[0] == '-') return s.size() > 1 && s[1] != ' ';
  return std::string_view(" ,[]{}#&*!|>'\"%@`?:").find(s[0]) == std::string_view::npos;
}

std::optional<Key> plain_key(std::string_view s) {
  if (!plain_start(s)) return std::nullopt;
  const std::size_t limit = std::min(s.size(), kMaxKeyLength);
  for (std::size_t i = 1; i < limit; ++i) {
    if (s[i] == '#' && s[i - 1] == ' ') return std::nullopt;
    if (s[i] != ':' || (i + 1 < s.size() && s[i + 1] != ' ')) continue;
    return Key{trim_right(s.substr(0, i)), i + 1};
  }
  return std::nullopt;
}

std::optional<std::string_view> plain_value(std::string_view s) {
  if (!plain_start(s)) return std::nullopt;
  std::size_t end = s.size();
  for (std::size_t i = 1; i < s.size(); ++i) {
    if (s[i] == '#' && s[i - 1] == ' ') {
      end = i;
      break;
    }
    if (s[i] == ':' && (i + 1 == s.size() || s[i + 1] == ' ')) return std::nullopt;
  }
  return trim_right(s.substr(0, end));
}

std::optional<std::string_view> plain_in_flow(std::string_view s, std::size_t& used) {
  if (!plain_start(s)) return std::nullopt;
  std::size_t i = 1;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ',' || c == ']' || c == '}') break;
    if (c == ':' && i + 1 < s.size() && s[i + 1] == ' ') break;
    if (c == ':' && (i + 1 == s.size() || std::string_view(",]}").find(s[i + 1]) != std::string_view::npos))
      return std::nullopt;  // an empty value, or the end of the line
    if (c == '#' || c == '?' || c == '[' || c == '{') return std::nullopt;
  }
  if (i == s.size()) return std::nullopt;  // the collection goes on after this line
  used = i;
  return trim_right(s.substr(0, i));
}

std::optional<std::string> plain_lines(std::string_view text, const Lines& lines, std::size_t line,
                                       std::string_view first, int indent, std::size_t& next) {
  std::string out(first);
  std::size_t breaks = 0;  // empty lines since the last text
  std::size_t at = line + 1;
  for (; at < lines.lines.size(); ++at) {
    const Line& l = lines.lines[at];
    if (l.kind == Line::Kind::blank) {
      ++breaks;
      continue;
    }
    if (l.indent <= indent) break;
    if (l.kind == Line::Kind::comment) return std::nullopt;  // ends the scalar; what follows is yaml-cpp's to judge
    const std::string_view s = text.substr(l.begin + static_cast<std::size_t>(l.indent), l.end - l.begin - l.indent);
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == ':' && (i + 1 == s.size() || s[i + 1] == ' ')) return std::nullopt;
      if (s[i] == '#' && i > 0 && s[i - 1] == ' ') return std::nullopt;
    }
    if (breaks == 0) {
      out += ' ';
    } else {
      out.append(breaks, '\n');
    }
    breaks = 0;
    out += trim_right(s);
  }
  next = at;
  return out;
}

std::string plain_key_text(std::string_view key) {
  if (key == "<<") unsupported();
  if (is_null_word(key)) return "null";  // never "": a plain key has text
  return std::string(key);
}

bool only_comment(std::string_view s) {
  const std::size_t p = s.find_first_not_of(' ');
  return p == std::string_view::npos || (p > 0 && s[p] == '#');
}

}  // namespace model::yaml_fast
