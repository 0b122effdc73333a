// The build this program came from, for `--version` and the
// `<binary>_build_info` gauge. Shared by every program in cmd/.
// Contract: the version is CMake's project(VERSION); the revision is
// `git rev-parse --short HEAD` at configure time (with "-dirty" when
// tracked files had uncommitted changes), or "unknown" outside a git
// checkout. Both are fixed for the life of the binary.
#pragma once

#include "model/build_info.hpp"

namespace cli {

const model::BuildInfo& this_build();

}  // namespace cli
