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
  std::vector<TargetGroup> groups;  // as of the last full reallocate (stale while dirty)
  std::vector<std::string> keys;    // their source keys
  std::set<std::string> changed;    // sources rebuilt or removed since the last reallocate
  std::string raw;                  // the config entry, as JSON
  bool dirty = false;
  explicit SdConsumer(const KubernetesSdJob& j)
      : job(Name::intern(j.job)), field(j.field), index(j.sd), specs(discovery::watch_specs(j.sd)), raw(j.raw) {}
};

}  // namespace allocation::runtime
