// reshard_bench's synthetic cluster: a GrafanaAgent with one
// MetricsInstance and seven ServiceMonitors, and the Services, Endpoints
// and Pods behind them, shaped as kubernetes_sd sees a real cluster
// (several jobs of uneven size spread over namespaces, pods of ReplicaSets
// on ~200 nodes with per-node pod CIDRs).
// Contract: deterministic: the same `targets` gives the same objects, so
// runs and placements compare like with like. render_scrape_configs()
// renders the agent with spec.metrics.shards = `shards` through the
// operator's own renderer (model::render_agent) and returns the metrics
// instance's scrape_configs as the agent would read them; it throws
// std::runtime_error listing the problems when the render reports any.
// The placement helpers below are shared with tests/allocation/
// reshard_test.cpp, which runs the same path on a small cluster in CI.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "allocation/collector.hpp"
#include "allocation/discovery/kubernetes_index.hpp"
#include "allocation/target.hpp"
#include "model/value.hpp"

namespace reshard_bench {

struct Cluster {
  // Namespaces, the GrafanaAgent (without shards), MetricsInstance, ServiceMonitors.
  std::vector<model::Value> manifests;
  // What kubernetes_sd watches: Services, Endpoints, Pods.
  std::vector<allocation::discovery::KindObject> objects;
  std::size_t endpoints = 0;  // addresses over every Endpoints object
};

// About `targets` endpoint addresses (exactly 10,000 for 10,000), one
// scrape target each.
Cluster make_cluster(std::size_t targets);

model::Value render_scrape_configs(const Cluster& cluster, std::int64_t shards);

// The name of shard `shard`'s StatefulSet ("agent", "agent-shard-1", ...):
// the collector id each shard would poll with.
std::string shard_name(std::int64_t shard);
// Collectors named as the shards 0..n-1 (shard_name), all ready.
std::vector<allocation::Collector> shard_collectors(int n);

// Each job's kubernetes_sd targets over `objects` (the job's first
// kubernetes_sd config), numbered in discovery order (Target::order).
allocation::TargetList discover(const model::Value& jobs,
                                const std::vector<allocation::discovery::KindObject>& objects);
// `v` with every string "$(SHARD)" replaced by `shard`, as the config
// reloader expands it in each shard's pods.
model::Value with_shard(model::Value v, std::int64_t shard);

// Where each discovered target goes under the rendered hashmod rules
// (-1: no shard keeps it), by Target::order; `twice` counts targets that
// more than one shard keeps.
struct Placement {
  std::vector<int> shard_of;
  std::size_t twice = 0;
};
Placement hashmod_placement(const model::Value& jobs, const allocation::TargetList& discovered, int shards);

}  // namespace reshard_bench
