// A Prometheus relabel regex: RE2 (Go regexp syntax) compiled fully
// anchored as ^(?:pattern)$, with fast paths for the patterns that dominate
// real configs (".*", "(.*)", literals, "literal.*", and alternations of
// literals such as "a|b" or "(a|b)"), and Go's template
// expansion ($1, ${1}, $name, ${name}, $$) for replacements.
// Contract: matching behaves exactly as Go's regexp on the anchored pattern
// (so "." does not match "\n"); construction throws std::invalid_argument
// with RE2's message when the pattern does not compile.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace allocation {

class PromRegex {
 public:
  explicit PromRegex(std::string pattern);
  ~PromRegex();
  PromRegex(PromRegex&&) noexcept;
  PromRegex& operator=(PromRegex&&) noexcept;

  const std::string& pattern() const { return pattern_; }
  // Whether the pattern is one group around a shape every group of which
  // captures the whole input (e.g. "(.*)"), so group 1 of a match is the
  // input itself.
  bool group1_is_input() const { return kind_ != Kind::general && groups_ == 2; }
  // single_line: the caller knows `s` holds no '\n', so "." needs no scan.
  bool match(std::string_view s, bool single_line = false) const;
  // On a match fills groups (groups[0] is the whole input; an unmatched
  // group is an empty view with a null data pointer).
  bool match(std::string_view s, std::vector<std::string_view>& groups) const;
  // Appends `tmpl` to out with $-references replaced by groups, as Go's
  // Regexp.ExpandString does. Names are ASCII letters, digits and '_'.
  void expand(std::string_view tmpl, std::span<const std::string_view> groups, std::string& out) const;

 private:
  enum class Kind { everything, literal, prefix, alternatives, general };
  bool classify();

  Kind kind_ = Kind::general;
  std::string pattern_;
  std::vector<std::string> literals_;  // literal / prefix / alternatives
  std::unique_ptr<re2::RE2> re_;
  std::map<std::string, int> names_;
  int groups_ = 0;
};

}  // namespace allocation
