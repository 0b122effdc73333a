// The target allocator config of a GrafanaAgent with shardingStrategy
// consistent or node: what the operator runs to place the agent's monitor
// targets on its shards, or on its per-Node pods (AgentRender::allocator_config).
#include <algorithm>
#include <map>

#include "model/config.hpp"
#include "model/labels.hpp"
#include "model/scrape/jobs.hpp"
#include "model/scrape/operator_sd.hpp"
#include "model/workload_options.hpp"
#include "model/yaml_emit.hpp"

namespace model {
namespace {

using AllocationJobs = std::map<std::string, Value>;

void add_allocation_jobs(AllocationJobs& out, Value rendered) {
  if (!rendered.is_array()) rendered = Value::arr({std::move(rendered)});
  for (Value& job : rendered.as_array()) {
    const Value* name = job.find("job_name");
    if (name && name->is_string()) out.emplace(name->as_string(), scrape::allocation_job(std::move(job)));
  }
}

// Each member renders into its own scratch assets, as the agent's render
// does, so one member's missing Secret leaves only that member out.
template <class T, class Render>
void add_allocation_members(AllocationJobs& out, const Inventory& inv, const std::vector<Selected<T>>& members,
                            Render render) {
  for (const Selected<T>& m : members) {
    AssetRefs scratch(inv);
    std::optional<T> decoded_here;
    Value rendered = render(object_of(m, decoded_here), scratch);
    if (scratch.errors.empty()) add_allocation_jobs(out, std::move(rendered));
  }
}

Value allocator_global(const GrafanaAgent& agent) {
  // The agent's Prometheus (v2) accepts only legacy label names, so its
  // relabeling drops the targets the allocator must drop too.
  Value g = Value::obj({{"metric_name_validation_scheme", "legacy"}});
  g.set_nonempty("scrape_interval", agent.metrics.scrape_interval);
  g.set_nonempty("scrape_timeout", agent.metrics.scrape_timeout);
  return g;
}

// consistent: the shards "0".."N-1" are static collectors.
void add_shard_collectors(Value& doc, const GrafanaAgent& agent) {
  Value collectors = Value::array();
  const std::int64_t shards = std::max<std::int64_t>(1, agent.metrics.shards.value_or(1));
  for (std::int64_t i = 0; i < shards; ++i) collectors.push(std::to_string(i));
  doc.set("allocation_strategy", "consistent-hashing");
  doc.set("collectors", std::move(collectors));
}

// node: the collectors are the metrics DaemonSet's pods, each holding the
// targets on its own Node; targets without a Node (static URLs, external
// addresses), or on a Node without a Ready pod, spread over all pods by
// consistent hashing.
void add_node_collectors(Value& doc, const GrafanaAgent& agent, const RenderOptions& opts) {
  const Labels selector = with_operator_labels(pod_selector_labels(agent, metrics_node_selector_extras()), opts);
  doc.set("allocation_strategy", "per-node");
  doc.set("allocation_fallback_strategy", "consistent-hashing");
  // A Node the DaemonSet does not run on (taints, nodeSelector) would
  // otherwise have its targets scraped by no one.
  doc.set("allocation_fallback_for_nodes_without_collector", true);
  doc.set("collector_selector", Value::obj({{"matchLabels", labels_value(selector)}}));
  doc.set("collector_namespace", agent.meta.ns);
}

}  // namespace

bool uses_operator_sd(const GrafanaAgent& agent, const RenderOptions& opts) {
  return agent.metrics.sharding_strategy != ShardingStrategy::hashmod && !opts.upstream_compat;
}

bool node_local(const GrafanaAgent& agent, const RenderOptions& opts) {
  return agent.metrics.sharding_strategy == ShardingStrategy::node && !opts.upstream_compat;
}

std::string render_allocator_config(const Inventory& inv, const Hierarchy& h, const RenderOptions& opts) {
  const GrafanaAgent& agent = *h.agent;
  const Value no_sd_fields = Value::object();  // the operator discovers with its own connection
  const scrape::JobContext jc{agent, opts, scrape::kNoSharding, no_sd_fields};
  AllocationJobs jobs;
  for (const MetricsInstanceNode& node : h.metrics) {
    add_allocation_members(jobs, inv, node.service_monitors, [&](const ServiceMonitor& sm, AssetRefs& a) {
      return scrape::service_monitor_jobs(jc, sm, a);
    });
    add_allocation_members(jobs, inv, node.pod_monitors,
                           [&](const PodMonitor& pm, AssetRefs& a) { return scrape::pod_monitor_jobs(jc, pm, a); });
    add_allocation_members(jobs, inv, node.probes,
                           [&](const Probe& p, AssetRefs& a) { return scrape::probe_job(jc, p, a); });
  }
  Value scrape_configs = Value::array();
  for (auto& [name, job] : jobs) scrape_configs.push(std::move(job));
  Value doc = Value::object();
  if (node_local(agent, opts))
    add_node_collectors(doc, agent, opts);
  else
    add_shard_collectors(doc, agent);
  doc.set("filter_strategy", "relabel-config");
  doc.set("config", Value::obj({{"global", allocator_global(agent)}, {"scrape_configs", std::move(scrape_configs)}}));
  return to_yaml(doc);
}

}  // namespace model
