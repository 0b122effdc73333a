// Small text helpers shared across folders (anything may include this).
// Contract: ASCII only and locale-free, so results never depend on the
// process locale.
#pragma once

#include <string>
#include <string_view>

namespace model {

// `s` with A-Z mapped to a-z; every other byte (UTF-8 included) unchanged.
inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

}  // namespace model
