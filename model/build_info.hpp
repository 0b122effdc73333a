// What every binary says about its own build: the release version (CMake's
// project(VERSION)) and the source revision (the git commit it was
// configured from), in the two shapes users see them — the `--version` line
// and the `<binary>_build_info` gauge's name.
// Contract: pure string functions; the values themselves come from the
// build (cmd/build_info.hpp), so a library never bakes them in. An unknown
// revision is the string "unknown", never empty.
#pragma once

#include <string>
#include <string_view>

namespace model {

struct BuildInfo {
  std::string version;
  std::string revision;
};

// "<binary> version X (revision R)", without a newline.
std::string version_line(std::string_view binary, const BuildInfo& info);
// "agent-operator" -> "agent_operator_build_info": a program name made a
// Prometheus metric name ('-' and any other character outside
// [a-zA-Z0-9_] becomes '_').
std::string build_info_metric_name(std::string_view binary);
// Whether argv asks for the version: `--version` or `-version` (upstream's
// Go flag spelling) anywhere, or `version` as the first argument when the
// binary has subcommands.
bool version_requested(int argc, const char* const* argv, bool has_subcommands);

}  // namespace model
