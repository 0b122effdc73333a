// Shared helpers for the simcluster tests: a cluster on a pinned clock,
// and short ways to build and read objects.
#pragma once

#include <string>
#include <vector>

#include "k8s/sim/cluster.hpp"
#include "model/parse.hpp"

namespace simtest {

inline k8s::sim::Clock::time_point epoch() {
  return std::chrono::system_clock::from_time_t(1714564800);  // 2024-05-01T12:00:00Z
}

struct SimFixture {
  k8s::sim::ManualClock clock{epoch()};
  k8s::sim::Cluster cluster;
  std::vector<std::string> warnings;

  explicit SimFixture(k8s::sim::ClusterOptions o = {}) : cluster(clock, withSeed(o)) {}

  static k8s::sim::ClusterOptions withSeed(k8s::sim::ClusterOptions o) {
    o.store.seed = 42;
    return o;
  }
  k8s::sim::ResourceType type(const std::string& group, const std::string& plural) {
    auto versions = cluster.types_snapshot();
    for (auto& t : versions)
      if (t.group == group && t.plural == plural) return t;
    throw std::runtime_error("no type " + plural);
  }
  k8s::sim::SnapshotPtr create(const std::string& plural, const std::string& json, const std::string& ns = "default",
                               const std::string& group = "") {
    return cluster.create(type(group, plural), ns, model::parse_json(json), {}, warnings);
  }
};

inline std::string meta(const k8s::sim::SnapshotPtr& s, const std::string& field) {
  const model::Value* m = s->value.find("metadata");
  const model::Value* v = m ? m->find(field) : nullptr;
  if (!v) return "";
  if (v->is_int()) return std::to_string(v->as_int());
  return v->is_string() ? v->as_string() : "";
}

}  // namespace simtest
