// Internal to the fast YAML reader (yaml_fast.cpp): its line table, its
// scalar scanners, one-line flow collections and the limits it applies.
// Each reproduces what yaml-cpp 0.7 makes of the same bytes, and gives up
// where that is not certain (rare escapes, indicators yaml-cpp gives other
// meanings, anything near an error), so the caller leaves the whole
// stream to yaml-cpp instead.
// Contract: the scanners answer std::nullopt (or false) when they give up;
// Budget and flow_collection throw Unsupported, which read_yaml_fast
// turns into nullopt. Nothing else throws but bad_alloc.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/parse.hpp"

namespace model::yaml_fast {

struct Unsupported {};

[[noreturn]] inline void unsupported() {
  throw Unsupported{};
}

// ParseLimits as Builder applies them, a little earlier: each document's
// nodes (nulls too, which Builder does not count) and the nesting depth.
class Budget {
 public:
  explicit Budget(const ParseLimits& limits) : limits_(limits) {}
  void new_document() { nodes_ = 0; }
  void count_node() {
    if (++nodes_ > limits_.max_nodes) unsupported();
  }
  // A collection at `depth` (the root's is 0); the reader recurses, so it
  // stays far below yaml-cpp's own guard (500) whatever the limit.
  void open(std::size_t depth) {
    if (depth + 1 >= limits_.max_depth || depth >= 128) unsupported();
    count_node();
  }

 private:
  const ParseLimits& limits_;
  std::size_t nodes_ = 0;
};

struct Line {
  enum class Kind : std::uint8_t { blank, comment, marker, content };
  std::uint32_t begin = 0;  // offset of the first byte
  std::uint32_t end = 0;    // offset of the '\n' or of the text's end
  int indent = 0;           // leading spaces (the whole length when blank)
  Kind kind = Kind::blank;
};

struct Lines {
  std::vector<Line> lines;
  bool ends_with_break = true;  // the last line has its '\n'
};

// The lines of `text`, or nullopt when it holds what the reader leaves to
// yaml-cpp anywhere: tabs, CR, other control bytes, C1 controls, NBSP,
// U+2028/2029, a BOM, directives, "..." and "---" with text after it; and
// for text of 4 GiB or more.
std::optional<Lines> split_lines(std::string_view text);

// A quoted scalar that starts at s[0] and closes on the same line, decoded;
// `used` is set to its length with both quotes.
std::optional<std::string> quoted_scalar(std::string_view s, std::size_t& used);

// A quoted scalar that starts at (line, col) and may go on over the next
// lines, whatever their indentation (yaml-cpp does not check it), decoded;
// (line, col) is set to the position just past its closing quote.
std::optional<std::string> quoted_lines(std::string_view text, const Lines& lines, std::size_t& line, std::size_t& col);

// Whether a plain scalar may start at s[0] in block context, with the
// indicators yaml-cpp would read differently left out.
bool plain_start(std::string_view s);

// A plain key at the start of `s`: its text and the offset just past its
// ':' (which a space or the line's end follows).
struct Key {
  std::string_view text;
  std::size_t after = 0;
};
std::optional<Key> plain_key(std::string_view s);

// The plain scalar that fills the rest of a line, up to a " #" comment and
// without trailing spaces; nullopt if it holds ": " or ends with ':'.
std::optional<std::string_view> plain_value(std::string_view s);

// A plain scalar from the line after `line` on, where `first` is its text
// on `line`: more indented lines go on with it, folded as yaml-cpp folds
// them (a line break is a space, n empty lines n line breaks). `indent` is
// the enclosing collection's; `next` is set to the line that ends it.
// nullopt for continuation lines with ": ", " #" or a comment line.
std::optional<std::string> plain_lines(std::string_view text, const Lines& lines, std::size_t line,
                                       std::string_view first, int indent, std::size_t& next);

// The plain scalar inside a flow collection: stops before ',', ']', '}' or ": ";
// `used` is set to the bytes read (trailing spaces included).
std::optional<std::string_view> plain_in_flow(std::string_view s, std::size_t& used);

// A plain key as Builder stores it: a null word reaches Builder as a null
// node and is stored as "null". Merge keys ("<<") are Builder's business.
std::string plain_key_text(std::string_view key);

// The flow collection that starts at s[pos] ('[' or '{') and closes on
// this line, at nesting `depth`; `pos` is set just past it.
Value flow_collection(std::string_view s, std::size_t& pos, std::size_t depth, Budget& budget);

// The rest of a line after a value: spaces, then its end or a comment.
bool only_comment(std::string_view s);

// A literal (|) or folded (>) block scalar whose header is s[0..]: the
// text yaml-cpp reads for it. `min_indent` is the enclosing collection's
// indent plus one; `next` is set to the first line after the scalar.
std::optional<std::string> block_scalar(std::string_view text, const Lines& lines, std::size_t header_line,
                                        std::string_view header, int min_indent, std::size_t& next);

}  // namespace model::yaml_fast
