// Helpers shared by the fuzz targets (tests/fuzz/*_fuzz.cpp).
// Contract: header-only, no state; fuzz_fail() is how a target reports a
// broken contract that is not a crash (a wrong exception type, a failed
// round trip): it prints the reason and aborts, which libFuzzer records as
// a crash and the corpus replay (replay_main.cpp) as a failed ctest.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "model/parse.hpp"
#include "model/value.hpp"

namespace fuzz {

[[noreturn]] inline void fuzz_fail(std::string_view what) {
  std::fprintf(stderr, "fuzz contract broken: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

// Small parse limits for targets that only need a few small documents: the
// fuzzer explores structure instead of building huge trees.
inline model::ParseLimits small_limits() {
  model::ParseLimits limits;
  limits.max_depth = 32;
  limits.max_nodes = 10'000;
  limits.max_alias_nodes = 1'000;
  return limits;
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Splits off the first line (without its '\n'); `rest` is what follows.
inline std::string_view take_line(std::string_view& rest) {
  std::size_t nl = rest.find('\n');
  std::string_view line = rest.substr(0, nl);
  rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
  return line;
}

// Whether some number in `v` satisfies `pred`: NaN never equals itself
// and JSON has no infinities, so round-trip checks skip such trees.
template <class Pred>
bool has_number(const model::Value& v, Pred pred) {
  if (v.type() == model::Value::Type::number) return pred(v.as_double());
  if (v.is_array()) {
    for (const auto& item : v.as_array())
      if (has_number(item, pred)) return true;
  } else if (v.is_object()) {
    for (const auto& [key, member] : v.as_object())
      if (has_number(member, pred)) return true;
  }
  return false;
}
inline bool has_nan(const model::Value& v) {
  return has_number(v, [](double d) { return std::isnan(d); });
}
inline bool has_non_finite(const model::Value& v) {
  return has_number(v, [](double d) { return !std::isfinite(d); });
}

// Where `a` and `b` differ, or "": unlike Value's operator==, member order,
// integer against number and the bits of a double count (NaN equals NaN).
inline std::string strict_difference(const model::Value& a, const model::Value& b, const std::string& path = "$") {
  using T = model::Value::Type;
  if (a.type() != b.type()) return path + ": " + a.type_name() + " vs " + b.type_name();
  if (a.size() != b.size())
    return path + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " members";
  switch (a.type()) {
    case T::boolean:
      return a.as_bool() == b.as_bool() ? "" : path + ": booleans";
    case T::integer:
      return a.as_int() == b.as_int() ? ""
                                      : path + ": " + std::to_string(a.as_int()) + " vs " + std::to_string(b.as_int());
    case T::number: {
      const double x = a.as_double(), y = b.as_double();
      return std::memcmp(&x, &y, sizeof x) == 0 || (std::isnan(x) && std::isnan(y)) ? "" : path + ": numbers";
    }
    case T::string:
      return a.as_string() == b.as_string() ? "" : path + ": \"" + a.as_string() + "\" vs \"" + b.as_string() + "\"";
    case T::array:
      for (std::size_t i = 0; i < a.size(); ++i) {
        std::string d = strict_difference(a.as_array()[i], b.as_array()[i], path + "[" + std::to_string(i) + "]");
        if (!d.empty()) return d;
      }
      return "";
    case T::object:
      for (std::size_t i = 0; i < a.size(); ++i) {
        const auto& [ka, va] = a.as_object()[i];
        const auto& [kb, vb] = b.as_object()[i];
        if (ka != kb) return path + ": key \"" + ka + "\" vs \"" + kb + "\"";
        std::string d = strict_difference(va, vb, path + "." + ka);
        if (!d.empty()) return d;
      }
      return "";
    case T::null:
      return "";
  }
  return "";
}

// Where the fast YAML reader's documents differ from yaml-cpp's (their
// number, a document's line, strict_difference of a value), or "".
inline std::string documents_difference(const std::vector<model::Document>& fast,
                                        const std::vector<model::Document>& slow) {
  if (fast.size() != slow.size()) return std::to_string(fast.size()) + " documents vs " + std::to_string(slow.size());
  for (std::size_t i = 0; i < slow.size(); ++i) {
    const std::string doc = "document " + std::to_string(i);
    if (fast[i].line != slow[i].line)
      return doc + ": line " + std::to_string(fast[i].line) + " vs " + std::to_string(slow[i].line);
    if (std::string d = strict_difference(fast[i].value, slow[i].value); !d.empty()) return doc + ": " + d;
  }
  return "";
}

}  // namespace fuzz
