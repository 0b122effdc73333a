// Internal to runtime::State (state.cpp, state_sources.cpp): one
// kubernetes_sd_configs entry with its index and the watches it needs.
#pragma once

#include <set>

#include "allocation/runtime/state.hpp"

namespace allocation::runtime {

struct State::SdConsumer {
  Name job;
  std::string field;
  discovery::KubernetesIndex index;
  std::vector<discovery::WatchSpec> specs;
  std::set<std::string> changed;  // sources rebuilt or removed since the last reallocate
  std::string raw;                // the config entry, as JSON
  // A full pass's copy of the index's groups, emptied once the Allocator
  // has the targets (set_all_targets): kept, it would go stale with the next
  // watch event and hold the label sets of every group rebuilt since.
  // Emptied any earlier, the releases would pull every set's count line to
  // this thread just before the filter's second lane reads half of them.
  std::vector<TargetGroup> pass_groups;
  std::vector<std::string> pass_keys;
  explicit SdConsumer(const KubernetesSdJob& j)
      : job(Name::intern(j.job)), field(j.field), index(j.sd), specs(discovery::watch_specs(j.sd)), raw(j.raw) {}
};

}  // namespace allocation::runtime
