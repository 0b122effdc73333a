// The agent.yml renderers. Each returns the document as a Value (keys are
// sorted on output, matching the upstream jsonnet templates) and records the
// Secrets it uses in `assets`. A member whose references fail is left out
// and reported in `problems`.
// Contract: pure functions of the hierarchy and options.
#pragma once

#include <vector>

#include "model/assets.hpp"
#include "model/hierarchy.hpp"
#include "model/render.hpp"

namespace model {

enum class ConfigFlavor {
  full,          // metrics/logs pods: every monitor and PodLogs
  integrations,  // integration pods: instances without monitors/PodLogs, no replica label
};

// The `server` block: {log_level, log_format} when set.
Value render_server_block(const GrafanaAgent& agent);

// The `metrics` block (wal_directory, global, configs).
Value render_metrics_block(const Hierarchy& h, const RenderOptions& opts, AssetRefs& assets,
                           std::vector<Problem>& problems, ConfigFlavor flavor);
// The whole agent.yml of the metrics StatefulSets.
Value render_metrics_config(const Hierarchy& h, const RenderOptions& opts, AssetRefs& assets,
                            std::vector<Problem>& problems);
// The same document as YAML text, byte-identical to
// to_yaml(render_metrics_config(...)), with each monitor's jobs taken from
// `cache` when still valid and stored into it otherwise.
std::string render_metrics_yaml(const Hierarchy& h, const RenderOptions& opts, AssetRefs& assets,
                                std::vector<Problem>& problems, JobCache& cache);

// Whether the agent's monitor jobs poll the operator for their targets
// (shardingStrategy consistent; never in upstream_compat, whose upstream
// has no sharding strategies).
bool uses_operator_sd(const GrafanaAgent& agent, const RenderOptions& opts);
// shardingStrategy node outside upstream_compat: a metrics DaemonSet whose
// pods are the allocation's collectors, placed per Node.
bool node_local(const GrafanaAgent& agent, const RenderOptions& opts);
// AgentRender::allocator_config of `h` (uses_operator_sd must hold): the
// monitor jobs in the operator's form (model/scrape/operator_sd.hpp),
// unique by job name in name order, members with errors left out (the
// agent's render reports them).
std::string render_allocator_config(const Inventory& inv, const Hierarchy& h, const RenderOptions& opts);

// The `logs` block (positions_directory, configs).
Value render_logs_block(const Hierarchy& h, const RenderOptions& opts, AssetRefs& assets,
                        std::vector<Problem>& problems, ConfigFlavor flavor);
Value render_logs_config(const Hierarchy& h, const RenderOptions& opts, AssetRefs& assets,
                         std::vector<Problem>& problems);

// agent.yml for the integrations DaemonSet (all_nodes) or Deployment, with
// the integrations of both kinds in `h` whose type fits.
Value render_integrations_config(const Hierarchy& h, bool all_nodes, const RenderOptions& opts, AssetRefs& assets,
                                 std::vector<Problem>& problems);

}  // namespace model
