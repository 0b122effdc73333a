// Rendering: (inventory, options) -> the Kubernetes objects the controller
// must apply for each GrafanaAgent. Pure: no clock, no I/O, sorted
// iteration, so equal inputs always give byte-identical output.
// Contract: an invalid root renders nothing; an invalid member is left out
// of its roots with a Problem naming it; other roots are unaffected.
#pragma once

#include <string>
#include <vector>

#include "model/assets.hpp"
#include "model/hierarchy.hpp"
#include "model/inventory.hpp"

namespace model {

class JobCache;

inline constexpr const char* kManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr const char* kManagedByValue = "grafana-agent-operator";
inline constexpr const char* kAgentNameLabel = "operator.agent.grafana.com/name";

struct RenderOptions {
  Labels operator_labels;                    // the -labels flag; wins on conflicts
  std::string operator_version = "v0.39.2";  // sanitised into app.kubernetes.io/version
  std::string default_agent_version = "v0.39.2";
  std::string default_reloader_image = "quay.io/prometheus-operator/prometheus-config-reloader:v0.67.1";
  std::size_t gzip_threshold = 100 * 1024;  // config Secrets above this are gzipped
  // Reproduce upstream's known bugs (docs/differences.md) instead of fixing
  // them; only golden comparisons against upstream use this.
  bool upstream_compat = false;
  // Monitor TLS material from Secrets/ConfigMaps as inline PEM (`ca`,
  // `cert`, `key`) instead of files under the agent's secrets mount: for
  // consumers without that volume (the target allocator's collectors).
  bool inline_tls = false;
  // Optional memo of per-monitor scrape jobs as YAML text (one per root,
  // owned by the caller): the objects are byte-identical with or without it.
  JobCache* job_cache = nullptr;
  // Threads that render a root's monitors into jobs, the caller's included
  // (model/parallel_for.hpp). 1 keeps rendering on the calling thread, as
  // the controller's actors need; the output is the same for any value.
  unsigned render_threads = 1;
  // The operator's aggregated integrations SD endpoint, which every
  // IntegrationMonitor job polls (with ?agent=<ns>/<name> appended).
  std::string integrations_sd_url =
      "http://agent-operator-metrics.agent-operator.svc:8080/operator/api/v1/metrics/integrations/sd";
  // The operator's targets endpoint, which the monitor jobs of a
  // GrafanaAgent with shardingStrategy: consistent poll for their shard's
  // share (query agent, job and shard appended).
  std::string operator_targets_url =
      "http://agent-operator-metrics.agent-operator.svc:8080/operator/api/v1/metrics/targets";
};

struct AgentRender {
  std::string ns, name;
  // spec.paused: nothing is rendered, and a writer must neither apply nor
  // prune (empty objects do not mean "delete everything").
  bool paused = false;
  std::vector<Value> objects;  // sorted by kind, then name
  std::vector<Problem> problems;
  std::map<std::string, std::string> assets;  // store key -> value
  // The rendered agent.yml documents, keyed by config Secret name. With a
  // job_cache the metrics document is not here: its jobs exist only as text.
  std::map<std::string, Value> configs;
  // shardingStrategy consistent: the target allocator config (YAML, for
  // allocation::runtime::load_config) the operator places this agent's
  // monitor targets with: static collectors "0".."shards-1", strategy
  // consistent-hashing, the monitor jobs as kubernetes_sd would run them
  // (no sharding rules, no credentials). Empty otherwise.
  std::string allocator_config;
};

AgentRender render_agent(const Inventory& inv, const GrafanaAgent& agent, const RenderOptions& opts);

// A lazy inventory after render_agent(inv, agent, opts) with `cache` as
// opts.job_cache: lets go of the decoded form of every member whose jobs
// the cache now holds, so a root keeps only trees for the members it has
// rendered (a later miss decodes the tree again, for that render only).
// A member whose render failed keeps it. Nothing is let go when the agent
// uses operator SD: its allocator config renders every member every time.
void release_cached_members(Inventory& inv, const JobCache& cache, const GrafanaAgent& agent,
                            const RenderOptions& opts);

struct RenderAll {
  std::vector<Value> objects;     // sorted by namespace, kind, name
  std::vector<Problem> problems;  // decode and render problems, sorted, unique
};
RenderAll render_all(const Inventory& inv, const RenderOptions& opts);

// Kubernetes objects as one multi-document YAML stream ("---" separated).
std::string to_yaml_stream(const std::vector<Value>& objects);

// Helpers shared by the renderers.
Value owner_reference(const GrafanaAgent& agent, bool controller);
std::string dns_sanitize(const std::string& s);  // "v0.40.2" -> "v0-40-2"

}  // namespace model
