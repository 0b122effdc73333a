// yaml_plain_safe decides whether the emitter writes a string unquoted. It
// is checked two ways: against the straightforward rules it was first
// written as (so a faster version cannot drift), and by reading every
// string it calls safe back through yaml-cpp.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "model/yaml_emit.hpp"
#include "model/yaml_fast.hpp"

namespace {

bool reference_keyword(std::string_view s) {
  static const char* words[] = {"~",    "null",  "Null",  "NULL",  "true",  "True",  "TRUE",  "false", "False", "FALSE",
                                "yes",  "Yes",   "YES",   "no",    "No",    "NO",    "on",    "On",    "ON",    "off",
                                "Off",  "OFF",   "y",     "Y",     "n",     "N",     "=",     "<<",    ".inf",  ".Inf",
                                ".INF", "-.inf", "-.Inf", "-.INF", "+.inf", "+.Inf", "+.INF", ".nan",  ".NaN",  ".NAN"};
  for (const char* w : words)
    if (s == w) return true;
  return false;
}

bool reference_number_like(std::string_view s) {
  const char c = s[0];
  if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')) return false;
  for (char ch : s)
    if (ch == 0 || !std::strchr("0123456789+-._:eExXoObBabcdefABCDEF", ch)) return false;
  return true;
}

// The rules as first written: one condition per YAML hazard.
bool reference_plain_safe(std::string_view s) {
  if (s.empty()) return false;
  const auto first = static_cast<unsigned char>(s[0]);
  if (first != 0 && std::strchr("?:,[]{}#&*!|>'\"%@`", first)) return false;
  if (first == '-' && (s.size() == 1 || s[1] == ' ' || s[1] == '-')) return false;
  if (s.front() == ' ' || s.back() == ' ' || s.back() == ':') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto ch = static_cast<unsigned char>(s[i]);
    if (ch < 0x20 || ch == 0x7f || ch >= 0x80) return false;
    if (ch == ':' && i + 1 < s.size() && s[i + 1] == ' ') return false;
    if (ch == '#' && i > 0 && s[i - 1] == ' ') return false;
  }
  if (s.starts_with("...")) return false;
  return !reference_keyword(s) && !reference_number_like(s);
}

// Bytes that matter to some rule, and a few that matter to none.
const std::string kAlphabet = std::string("aZ09 -:#.?,[]{}&*!|>'\"%@`~+_xeE=<\t\x01\x7f\xc3\xa9", 38) + '\0';

void check_same(const std::string& s) {
  INFO("string: " << s);
  REQUIRE(model::yaml_plain_safe(s) == reference_plain_safe(s));
}

}  // namespace

TEST_CASE("yaml_plain_safe: every string of up to three bytes of the alphabet", "[emit]") {
  check_same("");
  for (char a : kAlphabet) {
    check_same(std::string(1, a));
    for (char b : kAlphabet) {
      check_same(std::string{a, b});
      for (char c : kAlphabet) check_same(std::string{a, b, c});
    }
  }
}

TEST_CASE("yaml_plain_safe: keywords, numbers and longer random strings", "[emit]") {
  for (const char* s :
       {"null",  "Null",   "yes", "OFF", "<<",  "-.inf", ".NaN", "0x1F", "1_000", "1:30",         "+12e3",
        "nullx", "truely", "...", "..x", "- a", "a: b",  "a #b", "a#b",  "a:b",   "http://x:80/y"})
    check_same(s);
  std::mt19937 rng(20261127);
  std::uniform_int_distribution<std::size_t> len(1, 40), pick(0, kAlphabet.size() - 1);
  for (int round = 0; round < 200000; ++round) {
    std::string s(len(rng), ' ');
    for (char& c : s) c = kAlphabet[pick(rng)];
    check_same(s);
  }
}

TEST_CASE("yaml_plain_safe: what it calls safe reads back as the same string", "[emit]") {
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::size_t> len(1, 12), pick(0, kAlphabet.size() - 1);
  int checked = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string s(len(rng), ' ');
    for (char& c : s) c = kAlphabet[pick(rng)];
    if (!model::yaml_plain_safe(s)) continue;
    ++checked;
    INFO("string: " << s);
    auto docs = model::read_yaml_cpp("k: " + s + "\n", "plain", model::ParseLimits{});
    REQUIRE(docs.size() == 1);
    const model::Value* v = docs[0].value.find("k");
    REQUIRE(v);
    REQUIRE(v->is_string());
    CHECK(v->as_string() == s);
  }
  CHECK(checked > 1000);
}
