// Small value parsers the subcommands' flag tables share: durations like
// "100ms", "10s", "2m" (a bare number is seconds) and label lists
// "k=v,k2=v2", and the flags render and replay share. The tables
// themselves are cmd/flagset. Contract: a malformed
// duration throws std::invalid_argument (prefixed with `flag` unless it is
// empty); parse_labels returns false.
#pragma once

#include <chrono>
#include <string>

#include "cmd/flagset/flagset.hpp"
#include "model/meta.hpp"

namespace cli {

std::chrono::milliseconds parse_duration(const std::string& flag, const std::string& text);
bool parse_labels(const std::string& text, model::Labels& out);

// The flags render and replay share, each storing into `out`.
Flag explain_flag(std::string& out);         // --explain NS/NAME
Flag extra_labels_flag(model::Labels& out);  // --labels k=v,... (as run takes them)

}  // namespace cli
