// Only this file sees the values (compile definitions of ao_build_info),
// so a new revision recompiles one file and relinks the programs.
#include "cmd/build_info.hpp"

namespace cli {

const model::BuildInfo& this_build() {
  static const model::BuildInfo info{AO_VERSION, AO_REVISION};
  return info;
}

}  // namespace cli
