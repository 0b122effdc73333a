// The log flags every program takes, in both spellings: ours
// (--log-level, --log-format) and upstream's (-log.level, -log.format).
// Contract: a bad value throws std::invalid_argument listing the accepted
// values (cli::parse prefixes the flag as given).
#pragma once

#include <vector>

#include "cmd/flagset/flagset.hpp"
#include "model/log_format.hpp"

namespace cli {

// `level` and `format` must outlive the table.
void add_log_flags(std::vector<Flag>& table, model::LogLevel& level, model::LogFormat& format);

}  // namespace cli
