#include "allocation/runtime/change_log.hpp"

#include <algorithm>
#include <iterator>

namespace allocation::runtime {

namespace {

// At most 20 names: a per-node pool can start with a thousand collectors.
std::string join(const std::vector<std::string>& names) {
  constexpr std::size_t kMax = 20;
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < kMax; ++i) out += (i ? "," : "") + names[i];
  if (names.size() > kMax) out += ",... (" + std::to_string(names.size() - kMax) + " more)";
  return out;
}

}  // namespace

JobCounts count_targets(const Allocator& a) {
  JobCounts out;
  for (Name job : a.jobs()) out.emplace(std::string(job.text()), a.job_size(job));
  return out;
}

std::vector<std::string> collector_names(const Allocator& a) {
  std::vector<std::string> out;
  for (const Collector& c : a.collectors()) out.push_back(c.name);
  std::sort(out.begin(), out.end());
  return out;
}

void log_target_changes(const JobCounts& before, const JobCounts& after, std::vector<model::LogEntry>& out) {
  auto entry = [&](const std::string& job, std::size_t now, std::size_t was) {
    out.push_back(
        model::log_info("discovery", "targets changed").with("job", job).with("targets", now).with("previous", was));
  };
  auto b = before.begin();
  auto a = after.begin();
  while (b != before.end() || a != after.end()) {
    if (a == after.end() || (b != before.end() && b->first < a->first)) {
      entry(b->first, 0, b->second);
      ++b;
    } else if (b == before.end() || a->first < b->first) {
      entry(a->first, a->second, 0);
      ++a;
    } else {
      if (a->second != b->second) entry(a->first, a->second, b->second);
      ++a;
      ++b;
    }
  }
}

void log_collector_changes(const std::vector<std::string>& before, const std::vector<std::string>& after,
                           std::vector<model::LogEntry>& out) {
  if (before == after) return;
  std::vector<std::string> added, removed;
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(added));
  std::set_difference(before.begin(), before.end(), after.begin(), after.end(), std::back_inserter(removed));
  model::LogEntry e = model::log_info("collectors", "collectors changed").with("collectors", after.size());
  if (!added.empty()) e.with("added", join(added));
  if (!removed.empty()) e.with("removed", join(removed));
  out.push_back(std::move(e));
}

}  // namespace allocation::runtime
