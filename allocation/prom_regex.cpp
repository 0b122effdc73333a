#include "allocation/prom_regex.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace allocation {
namespace {

bool is_literal(std::string_view p) {
  return p.find_first_of("\\.+*?()|[]{}^$") == std::string_view::npos;
}

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Parses the reference after a '$' (Go's regexp extract): returns the name
// and the length consumed, or an empty name when malformed.
std::pair<std::string_view, std::size_t> extract(std::string_view s) {
  const bool brace = !s.empty() && s[0] == '{';
  std::size_t i = brace ? 1 : 0;
  const std::size_t start = i;
  while (i < s.size() && name_char(s[i])) ++i;
  if (i == start) return {{}, 0};
  std::string_view name = s.substr(start, i - start);
  if (brace) {
    if (i >= s.size() || s[i] != '}') return {{}, 0};
    ++i;
  }
  return {name, i};
}

// The group number `name` denotes, or -1 when it is not a number (Go: no
// leading zeros, at most 8 digits).
int group_number(std::string_view name) {
  if (name.size() > 1 && name[0] == '0') return -1;
  int num = 0;
  for (char c : name) {
    if (c < '0' || c > '9' || num >= 100000000) return -1;
    num = num * 10 + (c - '0');
  }
  return num;
}

// Whether s[from..] holds '\n'. Relabeled values are mostly short: test
// eight bytes per step (a zero byte of w ^ "\n\n..." is a newline; the
// test is exact), where a call into libc's vector memchr costs more.
bool has_newline(std::string_view s, std::size_t from = 0) {
  const char* p = s.data() + from;
  std::size_t n = s.size() - from;
  if (n > 64) return std::memchr(p, '\n', n) != nullptr;
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    w ^= kOnes * '\n';
    if ((w - kOnes) & ~w & kHighs) return true;
  }
  for (; n > 0; ++p, --n) {
    if (*p == '\n') return true;
  }
  return false;
}

// a == b, inline for the short literals of relabel rules (a libc memcmp
// call costs more than the compare): two overlapping words cover 8-16 bytes.
bool same_bytes(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  if (n != b.size()) return false;
  if (n > 16) return std::memcmp(a.data(), b.data(), n) == 0;
  auto word = [](const char* p) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  };
  if (n >= 8) return word(a.data()) == word(b.data()) && word(a.data() + n - 8) == word(b.data() + n - 8);
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

}  // namespace

// Recognises the fast-path shapes; every group of those captures the whole
// input, so match() can fill groups without RE2.
bool PromRegex::classify() {
  std::string_view p = pattern_;
  groups_ = 1;
  if (p.size() >= 2 && p.front() == '(' && p.back() == ')' && p.find_first_of("()", 1) == p.size() - 1) {
    p = p.substr(1, p.size() - 2);
    groups_ = 2;
  }
  if (p == ".*") return kind_ = Kind::everything, true;
  if (is_literal(p)) return kind_ = Kind::literal, literals_ = {std::string(p)}, true;
  if (p.size() > 2 && p.ends_with(".*") && is_literal(p.substr(0, p.size() - 2))) {
    return kind_ = Kind::prefix, literals_ = {std::string(p.substr(0, p.size() - 2))}, true;
  }
  if (p.find('|') == std::string_view::npos) return false;
  std::vector<std::string> alternatives;
  for (std::size_t start = 0;;) {
    const std::size_t bar = p.find('|', start);
    std::string_view alt = p.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
    if (!is_literal(alt)) return false;
    alternatives.emplace_back(alt);
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  kind_ = Kind::alternatives;
  literals_ = std::move(alternatives);
  return true;
}

PromRegex::PromRegex(std::string pattern) : pattern_(std::move(pattern)) {
  if (classify()) return;
  RE2::Options opts;
  opts.set_log_errors(false);
  re_ = std::make_unique<RE2>("^(?:" + pattern_ + ")$", opts);
  if (!re_->ok()) throw std::invalid_argument(re_->error());
  groups_ = re_->NumberOfCapturingGroups() + 1;
  names_ = re_->NamedCapturingGroups();
}

PromRegex::~PromRegex() = default;
PromRegex::PromRegex(PromRegex&&) noexcept = default;
PromRegex& PromRegex::operator=(PromRegex&&) noexcept = default;

bool PromRegex::match(std::string_view s, bool single_line) const {
  switch (kind_) {
    case Kind::everything:
      return single_line || !has_newline(s);
    case Kind::literal:
      return same_bytes(s, literals_[0]);
    case Kind::prefix:
      return s.size() >= literals_[0].size() && same_bytes(s.substr(0, literals_[0].size()), literals_[0]) &&
             (single_line || !has_newline(s, literals_[0].size()));
    case Kind::alternatives:
      for (const auto& l : literals_) {
        if (same_bytes(s, l)) return true;
      }
      return false;
    case Kind::general:
      break;
  }
  return RE2::FullMatch(re2::StringPiece(s.data(), s.size()), *re_);
}

bool PromRegex::match(std::string_view s, std::vector<std::string_view>& groups) const {
  groups.assign(static_cast<std::size_t>(groups_), std::string_view());
  if (kind_ != Kind::general) {
    if (!match(s)) return false;
    for (auto& g : groups) g = s;
    return true;
  }
  std::vector<re2::StringPiece> pieces(static_cast<std::size_t>(groups_));
  if (!re_->Match(re2::StringPiece(s.data(), s.size()), 0, s.size(), RE2::ANCHOR_BOTH, pieces.data(), groups_)) {
    return false;
  }
  for (std::size_t i = 0; i < pieces.size(); ++i) groups[i] = std::string_view(pieces[i].data(), pieces[i].size());
  return true;
}

void PromRegex::expand(std::string_view tmpl, std::span<const std::string_view> groups, std::string& out) const {
  while (!tmpl.empty()) {
    const std::size_t dollar = tmpl.find('$');
    out.append(tmpl.substr(0, dollar));
    if (dollar == std::string_view::npos) return;
    tmpl.remove_prefix(dollar + 1);
    if (!tmpl.empty() && tmpl[0] == '$') {
      out.push_back('$');
      tmpl.remove_prefix(1);
      continue;
    }
    auto [name, used] = extract(tmpl);
    if (used == 0) {
      out.push_back('$');
      continue;
    }
    tmpl.remove_prefix(used);
    int num = group_number(name);
    if (num < 0) {
      auto it = names_.find(std::string(name));
      num = it == names_.end() ? -1 : it->second;
    }
    if (num >= 0 && static_cast<std::size_t>(num) < groups.size()) out.append(groups[static_cast<std::size_t>(num)]);
  }
}

}  // namespace allocation
