// What a reallocation changed, as log entries: target counts per job
// (component discovery) and the collector set (component collectors).
// Pure: the State compares each reallocation's result with the last one
// and adds the entries to Effects::logs, so a replay logs the same.
// Contract: only what changed is logged, jobs and collectors in name order;
// a job whose targets all went away is logged with targets=0; added and
// removed collectors are listed up to 20 names.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "allocation/allocator.hpp"
#include "model/log.hpp"

namespace allocation::runtime {

using JobCounts = std::map<std::string, std::size_t>;

JobCounts count_targets(const Allocator& a);
std::vector<std::string> collector_names(const Allocator& a);  // sorted

void log_target_changes(const JobCounts& before, const JobCounts& after, std::vector<model::LogEntry>& out);
void log_collector_changes(const std::vector<std::string>& before, const std::vector<std::string>& after,
                           std::vector<model::LogEntry>& out);

}  // namespace allocation::runtime
