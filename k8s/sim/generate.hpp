// Seeded synthetic clusters for benchmarks and load tests (simcluster
// --generate): namespaces with GrafanaAgents, MetricsInstances,
// ServiceMonitors, PodMonitors, Probes, Secrets and Pods that select and
// reference each other as a real deployment does.
// Contract: parse_generate_spec() reads "key=value,..." and throws
// std::invalid_argument naming the key for unknown keys or bad values.
// generate_objects() is a pure function of the spec: the same spec gives
// the same objects in the same order. generate_cluster() creates them
// with strict field validation, so every object is valid against the
// registered CRD schemas; it throws std::runtime_error when the CRDs of
// deploy/crds and deploy/prometheus-operator-crds are not registered yet. Cluster-scoped objects that exist
// already (e.g. a Namespace from a loaded manifest) are kept. Layout (all indices zero-based):
//   - namespaces ns-NNNN labelled team=team-(i % metrics_instances), plus
//     "monitoring" for the agents, instances and their remote-write Secrets;
//   - agent-A (GrafanaAgent + ServiceAccount) selects instances labelled
//     agent=agent-A in "monitoring";
//   - mi-M (MetricsInstance) has agent=agent-(M % agents), remote-writes with
//     basicAuth from Secret rw-M, selects monitors and probes labelled
//     instance=mi-M in namespaces labelled team=team-M (every tenth
//     instance looks in all namespaces);
//   - monitor J lives in namespace J % namespaces, carries
//     instance=mi-(that namespace % metrics_instances), selects app=app-(q % 10)
//     (q = J / namespaces) and, when its namespace has Secrets, references
//     one of them: basicAuth, bearerTokenSecret, or none, in turn;
//   - Secret K (creds-K) lives in namespace K % namespaces; Pod P in
//     namespace P % namespaces is labelled app=app-((P / namespaces) % 10).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "k8s/sim/cluster.hpp"
#include "model/value.hpp"

namespace k8s::sim {

struct GenerateSpec {
  std::size_t namespaces = 10;
  std::size_t agents = 1;
  std::size_t metrics_instances = 2;
  std::size_t service_monitors = 50;
  std::size_t pod_monitors = 20;
  std::size_t probes = 5;
  std::size_t secrets = 20;
  std::size_t pods = 50;
  std::uint64_t seed = 1;
};

GenerateSpec parse_generate_spec(const std::string& text);

// Every object, Namespaces first, in creation order.
std::vector<model::Value> generate_objects(const GenerateSpec& spec);

// Creates generate_objects(spec) in `cluster`; returns how many it created.
std::size_t generate_cluster(Cluster& cluster, const GenerateSpec& spec);

}  // namespace k8s::sim
