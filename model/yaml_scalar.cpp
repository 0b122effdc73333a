#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <regex>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace model {

bool is_null_word(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

namespace {

// YAML 1.1 booleans, as Kubernetes' YAML reader (go-yaml v2) resolves them.
int bool_word(std::string_view s) {
  // string_views: every manifest scalar passes here, and comparing with
  // C strings measured each word with strlen on every call.
  static constexpr std::string_view t[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
  static constexpr std::string_view f[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
  if (s.size() > 5) return -1;
  for (auto w : t)
    if (s == w) return 1;
  for (auto w : f)
    if (s == w) return 0;
  return -1;
}

bool all_of(std::string_view s, const char* set) {
  for (char c : s)
    if (!std::strchr(set, c)) return false;
  return !s.empty();
}

std::optional<std::int64_t> parse_int(const std::string& s) {
  std::string_view v = s;
  bool neg = false;
  if (!v.empty() && (v[0] == '+' || v[0] == '-')) {
    neg = v[0] == '-';
    v.remove_prefix(1);
  }
  int base = 10;
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
    base = 16, v.remove_prefix(2);
  else if (v.size() > 2 && v[0] == '0' && (v[1] == 'o' || v[1] == 'O'))
    base = 8, v.remove_prefix(2);
  if (v.empty()) return std::nullopt;
  if (base == 10 && !all_of(v, "0123456789")) return std::nullopt;
  std::uint64_t out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out, base);
  if (ec != std::errc() || p != v.data() + v.size()) return std::nullopt;
  if (out > static_cast<std::uint64_t>(INT64_MAX) + (neg ? 1 : 0)) return std::nullopt;
  return neg ? static_cast<std::int64_t>(0 - out) : static_cast<std::int64_t>(out);
}

std::optional<double> parse_float(const std::string& s) {
  if (s == ".inf" || s == ".Inf" || s == ".INF" || s == "+.inf") return INFINITY;
  if (s == "-.inf" || s == "-.Inf" || s == "-.INF") return -INFINITY;
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return NAN;
  static const std::regex float_re(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (!all_of(s, "0123456789.+-eE") || !std::regex_match(s, float_re)) return std::nullopt;
  double d = 0;
  std::string_view v = s;
  if (!v.empty() && v[0] == '+') v.remove_prefix(1);
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  if (ec != std::errc() && ec != std::errc::result_out_of_range) return std::nullopt;
  (void)p;
  return d;
}

}  // namespace

Value resolve_plain_scalar(const std::string& text) {
  if (is_null_word(text)) return Value();
  if (int b = bool_word(text); b >= 0) return Value(b == 1);
  char c = text[0];
  if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
    if (auto i = parse_int(text)) return Value(*i);
    if (auto d = parse_float(text)) return Value(*d);
  }
  return Value(text);
}

namespace {

// Byte classes for yaml_plain_safe, one table lookup per byte: the emitter
// asks about every string of every rendered object, most of them plain.
enum : unsigned char {
  kNever = 1,         // control, DEL or non-ASCII: always quoted
  kColonHash = 2,     // ':' or '#', which matter by their neighbours
  kBadFirst = 4,      // an indicator that cannot start a plain scalar
  kNumberChar = 8,    // may appear in something a reader takes for a number
  kKeywordFirst = 16  // first byte of some keyword of is_keyword
};

constexpr std::array<unsigned char, 256> make_classes() {
  std::array<unsigned char, 256> t{};
  for (int c = 0; c < 256; ++c)
    if (c < 0x20 || c >= 0x7f) t[c] |= kNever;
  t[':'] |= kColonHash;
  t['#'] |= kColonHash;
  for (char c : std::string_view("?:,[]{}#&*!|>'\"%@`")) t[static_cast<unsigned char>(c)] |= kBadFirst;
  for (char c : std::string_view("0123456789+-._:eExXoObBabcdefABCDEF"))
    t[static_cast<unsigned char>(c)] |= kNumberChar;
  for (char c : std::string_view("~nNtTfFyYoO=<.-+")) t[static_cast<unsigned char>(c)] |= kKeywordFirst;
  return t;
}

constexpr std::array<unsigned char, 256> kClasses = make_classes();

unsigned char byte_class(char c) {
  return kClasses[static_cast<unsigned char>(c)];
}

// Words a YAML 1.1 or 1.2 reader resolves to null, bool, inf or nan.
bool is_keyword(std::string_view s) {
  static constexpr std::string_view words[] = {
      "~",    "null", "Null", "NULL",  "true",  "True",  "TRUE",  "false", "False", "FALSE", "yes",  "Yes", "YES", "no",
      "No",   "NO",   "on",   "On",    "ON",    "off",   "Off",   "OFF",   "y",     "Y",     "n",    "N",   "=",   "<<",
      ".inf", ".Inf", ".INF", "-.inf", "-.Inf", "-.INF", "+.inf", "+.Inf", "+.INF", ".nan",  ".NaN", ".NAN"};
  if (s.size() > 6 || !(byte_class(s[0]) & kKeywordFirst)) return false;
  for (auto w : words)
    if (s == w) return true;
  return false;
}

bool number_like(std::string_view s) {
  char c = s[0];
  if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')) return false;
  for (char ch : s)
    if (!(byte_class(ch) & kNumberChar)) return false;
  return true;
}

// The index of the first byte at or after `i` that is kNever or
// kColonHash, or s.size(). Sixteen bytes at a time where SSE2 is there:
// long strings (regexes, label names, base64 data) are most of the bytes.
std::size_t next_notable(std::string_view s, std::size_t i) {
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7f);
  const __m128i colon = _mm_set1_epi8(':'), hash = _mm_set1_epi8('#');
  for (; i + 16 <= s.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    // Signed compare: bytes 0x80-0xff are negative, so "< 0x20" finds them too.
    const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, del)),
                                     _mm_or_si128(_mm_cmpeq_epi8(v, colon), _mm_cmpeq_epi8(v, hash)));
    if (const int bits = _mm_movemask_epi8(hit)) return i + static_cast<std::size_t>(__builtin_ctz(bits));
  }
#endif
  for (; i < s.size(); ++i)
    if (byte_class(s[i]) & (kNever | kColonHash)) return i;
  return s.size();
}

// Whether the ':' or '#' at `i` ends a key or starts a comment.
bool breaks_plain(std::string_view s, std::size_t i) {
  if (s[i] == ':') return i + 1 < s.size() && s[i + 1] == ' ';
  return i > 0 && s[i - 1] == ' ';
}

}  // namespace

bool yaml_plain_safe(std::string_view s) {
  if (s.empty()) return false;
  if (byte_class(s[0]) & kBadFirst) return false;
  if (s[0] == '-' && (s.size() == 1 || s[1] == ' ' || s[1] == '-')) return false;
  if (s.front() == ' ' || s.back() == ' ' || s.back() == ':') return false;
  for (std::size_t i = next_notable(s, 0); i < s.size(); i = next_notable(s, i + 1))
    if ((byte_class(s[i]) & kNever) || breaks_plain(s, i)) return false;
  if (s.starts_with("...")) return false;
  // Anything a reader could take for a number (hex, octal, sexagesimal,
  // 1_000) or a keyword is quoted.
  if (is_keyword(s) || number_like(s)) return false;
  return true;
}

}  // namespace model
