// Literal and folded block scalars as yaml-cpp 0.7 reads them, quirks
// included: the reader must give exactly its strings, not the spec's.
#include "model/yaml_fast_scan.hpp"

#include <algorithm>
#include <cstdint>

namespace model::yaml_fast {
namespace {

enum class Chomp : std::uint8_t { strip, clip, keep };

// yaml-cpp's reading of a block scalar's lines (ScanScalar with its block
// parameters): the indent is detected on the first line with text, and
// each line break becomes "\n", a space or nothing by its folding rules,
// whose quirks (spaces on empty lines, breaks before more-indented lines)
// this keeps.
class BlockReader {
 public:
  BlockReader(bool folded, int min_indent) : folded_(folded), indent_(min_indent) {}

  // Takes the line after a line break ("" at the end of the text); false
  // when that line ends the scalar instead.
  bool take(std::string_view line, bool has_break) {
    const int size = static_cast<int>(line.size());
    int spaces = 0;
    while (spaces < size && line[spaces] == ' ') ++spaces;
    const int column = found_ ? std::min(spaces, indent_) : spaces;
    if (!found_) indent_ = std::max(indent_, column);
    const bool next_empty = has_break && column == size;
    const bool next_more = column < size && line[column] == ' ';
    if (folded_ && breaks_ == 0 && next_empty) started_more_ = more_;
    if (past_opening_) {
      if (folded_) {
        fold(next_empty, next_more, column);
      } else {
        out_ += '\n';
      }
    }
    empty_ = next_empty;
    more_ = next_more;
    past_opening_ = true;
    if (!empty_ && column < indent_) return false;
    if (column < size) {
      out_.append(line.substr(column));
      found_ = true;
    }
    return true;
  }

  std::string finish(Chomp chomp) {
    if (chomp == Chomp::keep) return std::move(out_);
    const std::size_t pos = out_.find_last_not_of('\n');
    if (pos == std::string::npos) return {};
    out_.erase(chomp == Chomp::clip ? std::min(pos + 2, out_.size()) : pos + 1);
    return std::move(out_);
  }

 private:
  void fold(bool next_empty, bool next_more, int column) {
    if (!empty_ && !next_empty && !more_ && !next_more && column >= indent_) {
      out_ += ' ';
    } else if (next_empty) {
      ++breaks_;
    } else {
      out_ += '\n';
    }
    if (!next_empty && breaks_ > 0) {
      out_.append(static_cast<std::size_t>(breaks_ - 1), '\n');
      if (started_more_ || next_more || !found_) out_ += '\n';
      breaks_ = 0;
    }
  }

  bool folded_;
  int indent_;
  bool found_ = false;  // a line with text was read
  bool past_opening_ = false;
  bool empty_ = false;
  bool more_ = false;
  int breaks_ = 0;  // folded: empty lines not yet written
  bool started_more_ = false;
  std::string out_;
};

}  // namespace

std::optional<std::string> block_scalar(std::string_view text, const Lines& lines, std::size_t header_line,
                                        std::string_view header, int min_indent, std::size_t& next) {
  std::size_t i = 1;
  Chomp chomp = Chomp::clip;
  if (i < header.size() && (header[i] == '-' || header[i] == '+'))
    chomp = header[i++] == '-' ? Chomp::strip : Chomp::keep;
  if (!only_comment(header.substr(i))) return std::nullopt;  // indentation indicators, "|#", text
  BlockReader reader(header[0] == '>', min_indent);
  const auto& ls = lines.lines;
  for (std::size_t at = header_line;;) {
    if (at + 1 == ls.size() && !lines.ends_with_break) {  // the text ends on line `at`
      next = ls.size();
      break;
    }
    next = ++at;
    if (at == ls.size()) {
      reader.take({}, false);
      break;
    }
    const bool has_break = at + 1 < ls.size() || lines.ends_with_break;
    if (!reader.take(text.substr(ls[at].begin, ls[at].end - ls[at].begin), has_break)) break;
  }
  return reader.finish(chomp);
}

}  // namespace model::yaml_fast
