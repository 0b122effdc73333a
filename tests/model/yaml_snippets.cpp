#include "yaml_snippets.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>
#include <vector>

// In a namespace of their own: unity builds put test files in one
// translation unit, where anonymous namespaces merge.
namespace testutil::snippets {

using Rng = std::mt19937;

std::size_t pick(Rng& rng, std::size_t n) {
  return rng() % n;
}
bool chance(Rng& rng, unsigned percent) {
  return rng() % 100 < percent;
}
template <std::size_t N>
std::string_view one_of(Rng& rng, const std::string_view (&items)[N]) {
  return items[pick(rng, N)];
}

// Scalars, keys and headers as written: mostly ones the fast reader takes
// (numbers and keywords of both YAML versions, colons and '#' where they
// stay text, escapes), now and then one it leaves to yaml-cpp or a wrong one.
const std::string_view kPlain[] = {"a",
                                   "value",
                                   "hello world",
                                   "1",
                                   "-1",
                                   "+1",
                                   "007",
                                   "0x1F",
                                   "0o17",
                                   "1_000",
                                   "1e3",
                                   "1.5",
                                   "-.5",
                                   ".inf",
                                   "-.Inf",
                                   ".nan",
                                   "true",
                                   "Yes",
                                   "off",
                                   "y",
                                   "~",
                                   "null",
                                   "NULL",
                                   "http://x:80/y?q=1#f",
                                   "--flag=1",
                                   "-x",
                                   "a#b",
                                   "a,b",
                                   "a]b",
                                   "x[0]",
                                   "\xC3\xA9 \xE4\xB8\xAD",
                                   "12:30",
                                   "2001-12-14",
                                   "a'b",
                                   "a\"b",
                                   "1e999",
                                   "9223372036854775808",
                                   "-9223372036854775808",
                                   "0.",
                                   "=",
                                   "a b  c",
                                   "a\\b",
                                   "a #c"};
const std::string_view kOddPlain[] = {"x: y", "a:", ":x", "?x",     "-",      "*x",      "&x v",
                                      "!t v", "%x", "@x", "`x",     "|",      ">",       "!!str 1",
                                      "<<",   "{}", "[]", "{a: 1}", "[1, 2]", "a: b # c"};
const std::string_view kQuoted[] = {"\"\"",
                                    "''",
                                    "\"a b\"",
                                    "'a b'",
                                    "'it''s'",
                                    "\"x: y\"",
                                    "'# not a comment'",
                                    "\"esc \\n\\t\\\\\\\"\"",
                                    "\"\\x41\\u00e9\\U0001F600\"",
                                    "\"\\/\\0\\a\\e\\ \"",
                                    "\"true\"",
                                    "'1'",
                                    "\" padded \"",
                                    "\"\\x85\\xA0\"",
                                    "'a''''b'",
                                    "\"a # b\"",
                                    "'a: b'"};
const std::string_view kOddQuoted[] = {"\"\\N\\_\"",    "\"\\q\"",        "\"\\ud800\"",    "\"\\x4\"",
                                       "'unterminated", "\"unterminated", "\"a\" trailing", "'a'#c",
                                       "\"\\L\"",       "\"\\U00110000\""};
const std::string_view kKeys[] = {"a",     "b",        "c",         "d",        "name",    "key with space",
                                  "x.y/z", "null",     "yes",       "1",        "-k",      "k:v",
                                  "a#b",   "\"q\"",    "'s'",       "\"a: b\"", "'it''s'", "\"\"",
                                  "a[0]",  "\xC3\xA9", "\"a\\tb\"", "'null'",   "e",       "f",
                                  "g",     "h",        "i",         "j"};
const std::string_view kOddKeys[] = {"<<", "? c", "&k a", "b ", "~", "Null", "*k", "!t k", "[a]", "{a: b}", "- a"};
const std::string_view kFlowPlain[] = {"a",   "1",    "x y", "true", "~", "-1", "a b ", "http//x",
                                       "a'b", "NULL", "1.0", "b",    "c", "d",  "e"};
const std::string_view kOddFlowPlain[] = {"a:b", "#x", "?x", "-", "a #b", "http://x", "*a", "!t a", "&a b"};
const std::string_view kBlockHeaders[] = {"|", "|-", "|+", ">", ">-", ">+", "| # c", ">  ", "|-  # c"};
const std::string_view kOddBlockHeaders[] = {"|2", "|#c", ">+1", "|x", "|-+"};
const std::string_view kBlockWords[] = {"text", "# not a comment", "key: v",      "- item", "a  b", "x",
                                        "---",  "tail  ",          "\xE2\x80\xA6"};
const std::string_view kTokens[] = {": ", "- ",  "#",   " #",           "'",        "\"",     "{",  "}",    "[",
                                    "]",  "|",   ">",   "&a ",          "*a",       "!!str ", "? ", "<<: ", "\t",
                                    "\r", "---", "...", "%YAML 1.2\n",  "\\",       ",",      "  ", "\\n",  "''",
                                    "~",  ":",   "-",   "\xEF\xBB\xBF", "\xC2\xA0", "\n",     " |", " >-"};

// One of `usual`, or now and then one of `odd`.
template <std::size_t N, std::size_t M>
std::string either(Rng& rng, const std::string_view (&usual)[N], const std::string_view (&odd)[M]) {
  return std::string(chance(rng, 2) ? one_of(rng, odd) : one_of(rng, usual));
}

std::string spaces(int n) {
  return std::string(static_cast<std::size_t>(std::max(n, 0)), ' ');
}

class Gen {
 public:
  explicit Gen(Rng& rng) : rng_(rng) {}

  std::string stream() {
    const std::size_t docs = 1 + pick(rng_, 3);
    for (std::size_t d = 0; d < docs; ++d) {
      if (chance(rng_, 20)) comment_line(0);
      if (d > 0 || chance(rng_, 30)) out_ += chance(rng_, 90) ? "---\n" : chance(rng_, 50) ? "--- # doc\n" : "...\n";
      document();
    }
    if (chance(rng_, 10) && !out_.empty() && out_.back() == '\n') out_.pop_back();
    return std::move(out_);
  }

 private:
  void document() {
    const int indent = chance(rng_, 5) ? 2 : 0;
    const auto kind = pick(rng_, 20);
    if (kind == 0) {
      out_ += spaces(indent) + scalar() + "\n";
    } else if (kind < 6) {
      sequence(indent, 0, false);
    } else {
      mapping(indent, 0, false);
    }
  }

  void mapping(int indent, int depth, bool first_inline) {
    const std::size_t n = 1 + pick(rng_, 4);
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < n; ++i) {
      if (i > 0 || !first_inline) out_ += spaces(indent);
      std::string key = either(rng_, kKeys, kOddKeys);
      for (int retry = 0; retry < 5 && std::find(keys.begin(), keys.end(), key) != keys.end() && !chance(rng_, 5);)
        key = either(rng_, kKeys, kOddKeys), ++retry;
      keys.push_back(key);
      out_ += key;
      out_ += chance(rng_, 2) ? " :" : ":";
      value(indent, depth, true);
      if (chance(rng_, 8)) comment_line(indent);
    }
  }

  void sequence(int indent, int depth, bool first_inline) {
    const std::size_t n = 1 + pick(rng_, 4);
    for (std::size_t i = 0; i < n; ++i) {
      if (i > 0 || !first_inline) out_ += spaces(indent);
      out_ += '-';
      value(indent, depth, false);
    }
  }

  // After "key:" or "-": the rest of the line, and the lines below.
  void value(int indent, int depth, bool in_map) {
    const auto kind = pick(rng_, 100);
    if (kind < 30 || depth > 4) {
      out_ += " " + scalar();
      end_line();
    } else if (kind < 35) {
      chance(rng_, 50) ? plain_lines(indent) : quoted_lines(indent);
    } else if (kind < 55) {
      end_line();
      below(indent, depth, in_map);
    } else if (kind < 65) {
      out_ += " " + flow(0);
      end_line();
    } else if (kind < 75) {
      block_scalar(indent);
    } else if (kind < 80 || in_map) {
      end_line();  // empty: null, or what the next line makes of it
    } else if (kind < 92) {
      const int gap = chance(rng_, 85) ? 1 : 3;
      out_ += spaces(gap);
      mapping(indent + 1 + gap, depth + 1, true);
    } else {
      out_ += ' ';
      sequence(indent + 2, depth + 1, true);
    }
  }

  void below(int indent, int depth, bool in_map) {
    if (chance(rng_, 10)) comment_line(indent + static_cast<int>(pick(rng_, 4)));
    const int deeper = indent + 1 + static_cast<int>(pick(rng_, 4));
    const auto kind = pick(rng_, 10);
    if (kind < 5) {
      mapping(deeper, depth + 1, false);
    } else if (kind < 8 || !in_map) {
      sequence(kind < 7 ? deeper : indent, depth + 1, false);
    } else {
      sequence(indent, depth + 1, false);  // indentless
    }
  }

  std::string scalar() {
    return chance(rng_, 70) ? either(rng_, kPlain, kOddPlain) : either(rng_, kQuoted, kOddQuoted);
  }

  std::string flow(int depth) {
    if (depth > 3 || (depth > 0 && chance(rng_, 45))) {
      return chance(rng_, 75) ? either(rng_, kFlowPlain, kOddFlowPlain) : either(rng_, kQuoted, kOddQuoted);
    }
    const bool map = chance(rng_, 50);
    const std::size_t n = pick(rng_, 4);
    std::string s(1, map ? '{' : '[');
    if (chance(rng_, 10)) s += ' ';
    for (std::size_t i = 0; i < n; ++i) {
      if (i > 0) s += chance(rng_, 90) ? ", " : chance(rng_, 50) ? "," : " , ";
      if (map) s += either(rng_, kFlowPlain, kOddFlowPlain) + (chance(rng_, 97) ? ": " : ":");
      if (!map || chance(rng_, 98)) s += flow(depth + 1);
    }
    if (chance(rng_, 2)) s += ",";
    if (chance(rng_, 10)) s += ' ';
    s += map ? '}' : ']';
    return s;
  }

  void block_scalar(int indent) {
    out_ += " ";
    out_ += either(rng_, kBlockHeaders, kOddBlockHeaders);
    out_ += '\n';
    const int base = indent + (chance(rng_, 5) ? 0 : 1 + static_cast<int>(pick(rng_, 3)));
    const std::size_t n = pick(rng_, 7);
    bool text = false;  // a line with text was written: the indent is set
    for (std::size_t i = 0; i < n; ++i) {
      const auto kind = pick(rng_, 100);
      if (kind < 15) {
        out_ += '\n';
      } else if (kind < 25) {  // spaces only: more than the indent now and then
        const int most = text || chance(rng_, 10) ? base + 3 : base;
        out_ += spaces(static_cast<int>(pick(rng_, static_cast<std::size_t>(most) + 1))) + "\n";
      } else {  // more indented after the first text; less, rarely
        const int extra = text && kind < 40 ? 1 + static_cast<int>(pick(rng_, 3)) : kind < 42 ? -1 : 0;
        out_ += spaces(base + extra) + std::string(one_of(rng_, kBlockWords)) + "\n";
        text = true;
      }
    }
  }

  // A plain scalar over more lines: mostly more indented than `indent`,
  // with empty lines, and now and then a comment or a line that ends it.
  void plain_lines(int indent) {
    out_ += " " + either(rng_, kPlain, kOddPlain) + "\n";
    for (std::size_t n = 1 + pick(rng_, 3); n > 0; --n) {
      if (chance(rng_, 15)) out_ += chance(rng_, 70) ? "\n" : spaces(static_cast<int>(pick(rng_, 6))) + "\n";
      if (chance(rng_, 4)) comment_line(indent + static_cast<int>(pick(rng_, 4)));
      const int at = chance(rng_, 5) ? indent : indent + 1 + static_cast<int>(pick(rng_, 3));
      out_ += spaces(at) + either(rng_, kPlain, kOddPlain) + (chance(rng_, 10) ? "  \n" : "\n");
    }
  }

  // A quoted scalar over more lines, at any indentation (yaml-cpp does not
  // check it), with empty lines, trailing spaces and escapes.
  void quoted_lines(int indent) {
    const char quote = chance(rng_, 50) ? '\'' : '"';
    static const std::string_view words[] = {"a", "b c", "''", "\\\"", "\\n", "\\ ", "# x", "- y", "k: v", "---"};
    out_ += std::string(" ") + quote + "x";
    for (std::size_t n = 1 + pick(rng_, 3); n > 0; --n) {
      std::string_view word = one_of(rng_, words);
      if ((quote == '"') == (word == "''")) word = "w";
      out_ += std::string(word) + (chance(rng_, 15) ? "  " : "");
      if (quote == '"' && chance(rng_, 15)) out_ += "\\";
      out_ += '\n';
      if (chance(rng_, 20)) out_ += chance(rng_, 70) ? "\n" : spaces(static_cast<int>(pick(rng_, 6))) + "\n";
      out_ += spaces(static_cast<int>(pick(rng_, static_cast<std::size_t>(indent) + 5)));
    }
    out_ += chance(rng_, 80) ? std::string("z") + quote : std::string(1, quote);
    end_line();
  }

  void comment_line(int indent) { out_ += spaces(indent) + (chance(rng_, 80) ? "# comment: x\n" : "\n"); }

  void end_line() {
    const auto kind = pick(rng_, 10);
    if (kind == 0) out_ += "  ";
    if (kind == 1) out_ += " # trailing: comment";
    if (kind == 2) out_ += " #";
    out_ += '\n';
  }

  Rng& rng_;
  std::string out_;
};

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t nl = text.find('\n', begin);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(begin, nl - begin));
    begin = nl + 1;
  }
  return lines;
}

std::string join(const std::vector<std::string>& lines, std::size_t from, std::size_t to, bool final_break) {
  std::string out;
  for (std::size_t i = from; i < to; ++i) {
    out += lines[i];
    if (i + 1 < to || final_break) out += '\n';
  }
  return out;
}

void edit_line(std::vector<std::string>& lines, std::size_t i, Rng& rng) {
  std::string& line = lines[i];
  switch (pick(rng, 7)) {
    case 0:
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    case 1:
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(i), line);
      break;
    case 2:
      if (i + 1 < lines.size()) std::swap(lines[i], lines[i + 1]);
      break;
    case 3:
      line.insert(0, spaces(1 + static_cast<int>(pick(rng, 2))));
      break;
    case 4:
      if (!line.empty() && line[0] == ' ') line.erase(0, 1 + pick(rng, 2));
      break;
    case 5:
      line.resize(pick(rng, line.size() + 1));
      break;
    default:
      line.insert(pick(rng, line.size() + 1), std::string(one_of(rng, kTokens)));
      break;
  }
}

}  // namespace testutil::snippets

namespace testutil {

std::string random_yaml(std::mt19937& rng) {
  return snippets::Gen(rng).stream();
}

std::string mutate_lines(const std::string& text, std::mt19937& rng) {
  std::vector<std::string> lines = snippets::split(text);
  const bool final_break = !text.empty() && text.back() == '\n';
  const std::size_t edits = 1 + snippets::pick(rng, 4);
  for (std::size_t e = 0; e < edits && !lines.empty(); ++e)
    snippets::edit_line(lines, snippets::pick(rng, lines.size()), rng);
  return snippets::join(lines, 0, lines.size(), final_break);
}

std::string line_window(const std::string& text, std::mt19937& rng) {
  std::vector<std::string> lines = snippets::split(text);
  if (lines.empty()) return text;
  std::size_t from = snippets::pick(rng, lines.size());
  // Mostly from a line at the left margin, where a document could start.
  while (from > 0 && snippets::chance(rng, 97) && (lines[from].empty() || lines[from][0] == ' ')) --from;
  const std::size_t to = std::min(lines.size(), from + 1 + snippets::pick(rng, 80));
  return snippets::join(lines, from, to, true);
}

}  // namespace testutil
