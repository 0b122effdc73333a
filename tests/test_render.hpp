// Test helpers that load manifests and render them: the inventory's only
// GrafanaAgent, its metrics or logs agent.yml together with what rendering
// reported, accessors into those configs, and YAML builders for the
// GrafanaAgent/MetricsInstance pairs many tests start from.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/inventory.hpp"
#include "model/render.hpp"
#include "model/value.hpp"

namespace testutil {

// REQUIREs that `inv` decoded without Problems (listing them if not).
void require_no_problems(const model::Inventory& inv);
// inventory_from_yaml followed by require_no_problems.
model::Inventory valid_inventory(const std::string& text);

// The only GrafanaAgent of `inv`; REQUIREs exactly one, decoded as valid.
const model::GrafanaAgent& only_agent(const model::Inventory& inv);

// A GrafanaAgent ns/a. `spec` holds the lines of its spec, indented by two
// spaces ("" for none); `meta_extra` adds fields to its flow-style metadata,
// e.g. ", uid: u".
model::GrafanaAgent agent_from_spec(const std::string& spec, const std::string& meta_extra = "");

// model::render_agent for the only GrafanaAgent of `inv`.
model::AgentRender render_only_agent(const model::Inventory& inv, bool compat = false);

// model::render_all (default options) of the manifests in `text`.
model::RenderAll render_all_yaml(const std::string& text);

// A metrics or logs agent.yml (or block) of the only GrafanaAgent of an
// inventory, with what rendering it reported.
struct ConfigRender {
  model::Value config;
  std::vector<model::Problem> problems;     // members left out
  model::FieldErrors root_errors;           // the GrafanaAgent's own references
  std::map<std::string, std::string> used;  // asset store key -> value
};

// render_logs_config.
ConfigRender render_logs(const model::Inventory& inv, bool compat = false);
// render_metrics_config: the whole metrics agent.yml.
ConfigRender render_metrics(const model::Inventory& inv, bool compat = false);
// render_metrics_block: only the `metrics` block, in `flavor`.
ConfigRender render_metrics_flavor(const model::Inventory& inv, model::ConfigFlavor flavor, bool compat = false);

// REQUIREs no Problem and no root error (listing them if any).
void require_clean(const ConfigRender& r);
// REQUIREs no root error and exactly `warnings` as Problems (each given as
// Problem::str(), in any order), every one of them a warning.
void require_warnings(const ConfigRender& r, std::vector<std::string> warnings);

// Problem::str() of each Problem.
std::vector<std::string> problem_texts(const std::vector<model::Problem>& problems);

// Item `i` of logs.configs (REQUIREs it).
const model::Value& logs_instance(const ConfigRender& r, std::size_t i);

// metrics.configs[0].scrape_configs of a metrics agent.yml.
model::Value& metrics_jobs(model::Value& config);
const model::Value& metrics_jobs(const model::Value& config);
// The single job of metrics_jobs (REQUIREs exactly one).
const model::Value& only_metrics_job(const model::Value& config);

// A GrafanaAgent `agent` in `ns` whose spec is `metrics: <metrics>` (a flow
// mapping such as "{instanceSelector: {}}").
std::string metrics_agent_yaml(const std::string& ns, const std::string& metrics);

// The warning --upstream-compat gives for `field` of `object`, which upstream leaves out.
std::string compat_ignored(const std::string& object, const std::string& field);

// A "---" and a MetricsInstance whose metadata is `{<metadata>}` and whose
// six selectors select every ServiceMonitor, PodMonitor and Probe in every
// namespace. Its spec comes last: append lines indented by two spaces to
// extend it.
std::string select_all_instance_yaml(const std::string& metadata);

// GrafanaAgent monitoring/agent selecting every LogsInstance, with one
// client (https://loki.global/push, basic auth from Secret
// monitoring/global-auth, external label region: eu), and that Secret.
extern const char* const kLogsAgent;

}  // namespace testutil
