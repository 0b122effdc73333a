// Target labels: grafana/agent's integrations-next reads a common block
// inlined into every integration's config (pkg/integrations/v2/common:
// `autoscrape`, `instance`, `extra_labels`). `extra_labels` is a string map
// the agent copies onto the target group its SD API
// (/agent/api/v1/metrics/integrations/sd) returns for that integration
// instance, after its own labels (instance, job, agent_hostname,
// __meta_agent_integration_*), so it can carry meta labels too. That is
// where the __meta_agentoperator_integration_* labels go; they survive the
// operator's aggregation and reach the IntegrationMonitor jobs' relabeling.
#include "model/integrations.hpp"

#include <algorithm>
#include <set>
#include <tuple>

namespace model {
namespace {

std::string key_of(const ObjectMeta& m) {
  return m.ns + "/" + m.name;
}

Problem problem(const IntegrationView& v, std::string path, std::string message) {
  return Problem{v.kind, v.meta->ns, v.meta->name, std::move(path), std::move(message)};
}

// A view whose references fail is left out (its Secrets are projected into
// the pods, so a missing one would keep them from starting).
bool resolve_refs(const IntegrationView& v, AssetRefs& assets, std::vector<Problem>& problems) {
  AssetRefs scratch(assets.inventory());
  for (std::size_t k = 0; k < v.secrets->size(); ++k)
    scratch.record_secret(v.meta->ns, (*v.secrets)[k], "spec.secrets[" + std::to_string(k) + "]");
  for (std::size_t k = 0; k < v.config_maps->size(); ++k)
    scratch.record_config_map(v.meta->ns, (*v.config_maps)[k], "spec.configMaps[" + std::to_string(k) + "]");
  if (!scratch.errors.empty()) {
    for (auto& e : scratch.errors) problems.push_back(problem(v, e.path, e.message));
    return false;
  }
  assets.absorb(std::move(scratch));
  return true;
}

std::string exclusivity(const IntegrationView& v) {
  if (v.integration) return "unique";
  return v.daemonset() ? "a daemonset" : "a singleton";
}

// Upstream never reads spec.type.unique; we keep the first integration of
// an exclusive name (in namespace/name order) and reject the rest on this
// root, whichever kind or type they are.
std::vector<IntegrationView> dedupe_exclusive(const std::vector<IntegrationView>& in, const GrafanaAgent& agent,
                                              std::vector<Problem>& problems) {
  std::map<std::string, const IntegrationView*> first_by_name;
  std::map<std::string, const IntegrationView*> exclusive_by_name;
  for (const IntegrationView& v : in) {
    first_by_name.emplace(*v.name, &v);
    if (v.exclusive) exclusive_by_name.emplace(*v.name, &v);
  }
  std::vector<IntegrationView> out;
  for (const IntegrationView& v : in) {
    const IntegrationView* first = first_by_name[*v.name];
    auto excl = exclusive_by_name.find(*v.name);
    if (first == &v || excl == exclusive_by_name.end()) {
      out.push_back(v);
      continue;
    }
    const IntegrationView& why = *excl->second;
    problems.push_back(problem(v, v.exclusive_path,
                               "integration \"" + *v.name + "\" is " + exclusivity(why) + " and already provided by " +
                                   first->kind + " " + key_of(*first->meta) + " for GrafanaAgent " +
                                   key_of(agent.meta)));
  }
  return out;
}

}  // namespace

IntegrationView view_of(const Integration& i) {
  IntegrationView v;
  v.kind = "Integration";
  v.integration = &i;
  v.meta = &i.meta;
  v.name = &i.name;
  v.type = i.all_nodes ? IntegrationType::daemonset : i.unique ? IntegrationType::singleton : IntegrationType::normal;
  v.exclusive = i.unique;
  v.exclusive_path = "spec.type.unique";
  v.config = &i.config;
  static const std::string kNoError;
  v.config_error = &kNoError;
  v.volumes = &i.volumes;
  v.volume_mounts = &i.volume_mounts;
  v.secrets = &i.secrets;
  v.config_maps = &i.config_maps;
  return v;
}

IntegrationView view_of(const MetricsIntegration& i) {
  IntegrationView v;
  v.kind = "MetricsIntegration";
  v.metrics_integration = &i;
  v.meta = &i.meta;
  v.name = &i.name;
  v.type = i.type;
  v.exclusive = i.type != IntegrationType::normal;
  v.exclusive_path = "spec.type";
  v.config = &i.config;
  v.config_error = &i.config_error;
  v.labels = &i.labels;
  v.volumes = &i.volumes;
  v.volume_mounts = &i.volume_mounts;
  v.secrets = &i.secrets;
  v.config_maps = &i.config_maps;
  return v;
}

std::vector<IntegrationView> integration_views(const std::vector<const Integration*>& integrations,
                                               const std::vector<const MetricsIntegration*>& metrics_integrations) {
  std::vector<IntegrationView> out;
  for (const Integration* i : integrations) out.push_back(view_of(*i));
  for (const MetricsIntegration* i : metrics_integrations) out.push_back(view_of(*i));
  std::stable_sort(out.begin(), out.end(), [](const IntegrationView& a, const IntegrationView& b) {
    return std::tie(a.meta->ns, a.meta->name) < std::tie(b.meta->ns, b.meta->name);
  });
  return out;
}

std::vector<IntegrationView> runnable_integrations(const std::vector<IntegrationView>& views, const GrafanaAgent& agent,
                                                   const RenderOptions& opts, AssetRefs& assets,
                                                   std::vector<Problem>& problems) {
  // Config and references first: a rejected integration must not shadow an
  // exclusive one.
  std::vector<IntegrationView> ok;
  for (const IntegrationView& v : views) {
    if (!v.config_error->empty()) {
      problems.push_back(problem(v, "spec.config", *v.config_error));
      continue;
    }
    if (resolve_refs(v, assets, problems)) ok.push_back(v);
  }
  return opts.upstream_compat ? ok : dedupe_exclusive(ok, agent, problems);
}

std::map<std::string, std::string> integration_extra_labels(const IntegrationView& v) {
  std::map<std::string, std::string> out;
  if (v.labels) out = *v.labels;
  const std::string p = kIntegrationMetaPrefix;
  out[p + "type"] = to_string(v.type);
  out[p + "cr_namespace"] = v.meta->ns;
  out[p + "cr_name"] = v.meta->name;
  for (const auto& [k, value] : v.meta->labels) {
    std::string name = sanitize_label_name(k);
    out[p + "cr_label_" + name] = value;
    out[p + "cr_labelpresent_" + name] = "true";
  }
  return out;
}

Value integration_config_block(const IntegrationView& v, const RenderOptions& opts) {
  Value block = v.config->is_object() ? *v.config : Value::object();
  if (opts.upstream_compat) return block;
  Value labels = Value::object();
  if (const Value* own = block.find("extra_labels"); own && own->is_object())
    for (const auto& [k, value] : own->as_object()) labels.set(k, value);
  for (const auto& [k, value] : integration_extra_labels(v)) labels.set(k, value);
  block.set("extra_labels", std::move(labels));
  // Design 2: MetricsIntegrations are collected only by IntegrationMonitors.
  if (v.metrics_integration) {
    Value* as = block.find("autoscrape");
    if (!as || !as->is_object()) as = &block.set("autoscrape", Value::object());
    as->set("enable", false);
  }
  return block;
}

}  // namespace model
