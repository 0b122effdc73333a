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
#include <string>
#include <string_view>

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

}  // namespace fuzz
