// Paths of the programs the build made, for tests that run them as a user
// would. AO_BIN_DIR is defined per test target in tests/CMakeLists.txt.
#pragma once

#include <string>

namespace testutil {

inline std::string bin(const std::string& name) {
  return std::string(AO_BIN_DIR) + "/" + name;
}

inline std::string operator_bin() {
  return bin("agent-operator");
}

}  // namespace testutil
