// Quoted scalars as yaml-cpp 0.7 reads them (its ScanScalar with the
// quoted parameters), on one line or over several.
#include "model/yaml_fast_scan.hpp"

#include <cstdint>

namespace model::yaml_fast {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Decodes the escape whose letter is s[i] and returns the bytes it used,
// or 0. \N and \_ are left out: yaml-cpp writes them as single Latin-1
// bytes, which parse_documents then re-encodes; \L, \P and a backslash
// before a line break or tab are rare enough to leave to yaml-cpp too.
std::size_t escape(std::string_view s, std::size_t i, std::string& out) {
  static constexpr std::string_view from = "0abtnvfre \"'\\/";
  static constexpr std::string_view to{"\0\a\b\t\n\v\f\r\x1b \"'\\/", from.size()};
  if (i >= s.size()) return 0;
  if (auto k = from.find(s[i]); k != std::string_view::npos) {
    out += to[k];
    return 1;
  }
  const std::size_t digits = s[i] == 'x' ? 2 : s[i] == 'u' ? 4 : s[i] == 'U' ? 8 : 0;
  if (digits == 0 || i + digits >= s.size()) return 0;
  std::uint32_t cp = 0;
  for (std::size_t d = 1; d <= digits; ++d) {
    const int v = hex_digit(s[i + d]);
    if (v < 0) return 0;
    cp = cp * 16 + static_cast<std::uint32_t>(v);
  }
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;  // yaml-cpp refuses these
  append_utf8(out, cp);
  return 1 + digits;
}

// yaml-cpp's reading of a quoted scalar (ScanScalar with the quoted
// parameters), a line at a time: spaces at a line's end are dropped, a
// line break becomes a space and n empty lines n line breaks, "\" at the
// end of a line joins it to the next, and trailing line breaks are
// clipped to one unless escaped.
class QuotedReader {
 public:
  enum class Step : std::uint8_t { closed, line_end, bad };

  explicit QuotedReader(char quote) : quote_(quote) {}

  // Reads `s` from `pos` on; when the quote closes, `pos` is just past it.
  Step read_line(std::string_view s, std::size_t& pos) {
    last_text_ = out_.size();
    escaped_break_ = false;
    while (pos < s.size()) {
      const char c = s[pos];
      if (c == quote_ && (c == '"' || pos + 1 == s.size() || s[pos + 1] != '\'')) {
        ++pos;
        return Step::closed;
      }
      if (c == '\'' && quote_ == '\'') {
        out_ += '\'';
        pos += 2;
      } else if (c == '\\' && quote_ == '"' && pos + 1 == s.size()) {
        ++pos;
        escaped();
        escaped_break_ = true;
        return Step::line_end;
      } else if (c == '\\' && quote_ == '"') {
        const std::size_t n = escape(s, pos + 1, out_);
        if (n == 0) return Step::bad;
        pos += 1 + n;
      } else {
        out_ += c;
        if (c != ' ') last_text_ = out_.size();
        ++pos;
        continue;
      }
      escaped();
    }
    return Step::line_end;
  }

  // Between a line and the next, which is empty when it has only spaces
  // before its line break.
  void line_break(bool next_empty) {
    out_.erase(last_text_);
    if (next_empty) {
      out_ += '\n';
    } else if (!empty_ && !escaped_break_) {
      out_ += ' ';
    }
    empty_ = next_empty;
  }

  std::string finish() {
    std::size_t pos = out_.find_last_not_of('\n');
    if (last_escaped_ != std::string::npos && (pos == std::string::npos || pos < last_escaped_)) pos = last_escaped_;
    if (pos == std::string::npos) return {};
    if (pos + 1 < out_.size()) out_.erase(pos + 2);
    return std::move(out_);
  }

 private:
  void escaped() { last_text_ = last_escaped_ = out_.size(); }

  char quote_;
  std::string out_;
  std::size_t last_text_ = 0;  // where the line's trailing spaces start
  std::size_t last_escaped_ = std::string::npos;
  bool escaped_break_ = false;
  bool empty_ = false;
};

}  // namespace

std::optional<std::string> quoted_scalar(std::string_view s, std::size_t& used) {
  QuotedReader reader(s[0]);
  used = 1;
  if (reader.read_line(s, used) != QuotedReader::Step::closed) return std::nullopt;
  return reader.finish();
}

std::optional<std::string> quoted_lines(std::string_view text, const Lines& lines, std::size_t& line,
                                        std::size_t& col) {
  const auto& ls = lines.lines;
  auto line_text = [&](std::size_t i) { return text.substr(ls[i].begin, ls[i].end - ls[i].begin); };
  QuotedReader reader(line_text(line)[col]);
  std::size_t pos = col + 1;
  for (std::size_t at = line;;) {
    const auto step = reader.read_line(line_text(at), pos);
    if (step == QuotedReader::Step::closed) {
      line = at;
      col = pos;
      return reader.finish();
    }
    if (step == QuotedReader::Step::bad || at + 1 >= ls.size()) return std::nullopt;  // the text ends inside
    const Line& next = ls[++at];
    if (next.kind == Line::Kind::marker) return std::nullopt;  // yaml-cpp refuses a document marker here
    const bool has_break = at + 1 < ls.size() || lines.ends_with_break;
    reader.line_break(next.kind == Line::Kind::blank && has_break);
    pos = static_cast<std::size_t>(next.indent);
  }
}

}  // namespace model::yaml_fast
