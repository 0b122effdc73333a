#include "model/render.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "model/config.hpp"
#include "model/integrations.hpp"
#include "model/job_cache.hpp"
#include "model/workloads.hpp"
#include "model/yaml_emit.hpp"

namespace model {
namespace {

std::string str_field(const Value& obj, const char* a, const char* b = nullptr) {
  const Value* v = obj.find(a);
  if (v && b) v = v->find(b);
  return v && v->is_string() ? v->as_string() : std::string();
}

bool object_less(const Value& a, const Value& b) {
  return std::make_tuple(str_field(a, "metadata", "namespace"), str_field(a, "kind"),
                         str_field(a, "metadata", "name")) <
         std::make_tuple(str_field(b, "metadata", "namespace"), str_field(b, "kind"), str_field(b, "metadata", "name"));
}

void add_config(AgentRender& r, const GrafanaAgent& agent, const std::string& name, Value config,
                const RenderOptions& opts) {
  r.objects.push_back(make_config_secret(agent, name, to_yaml(config), opts));
  r.configs[name] = std::move(config);
}

// The integrations of both kinds: a DaemonSet for the daemonset type, a
// Deployment for the others, each with its config Secret, and (not in
// upstream_compat: upstream has no SD aggregation) the Service the SD
// aggregator finds their pods through.
void render_integrations(AgentRender& r, const Hierarchy& h, const RenderOptions& opts, AssetRefs& assets) {
  std::vector<IntegrationView> all = runnable_integrations(integration_views(h.integrations, h.metrics_integrations),
                                                           *h.agent, opts, assets, r.problems);
  for (bool all_nodes : {true, false}) {
    Hierarchy part = h;
    part.integrations.clear();
    part.metrics_integrations.clear();
    std::vector<IntegrationView> mine;
    for (const IntegrationView& v : all) {
      if (v.daemonset() != all_nodes) continue;
      mine.push_back(v);
      if (v.integration) part.integrations.push_back(v.integration);
      if (v.metrics_integration) part.metrics_integrations.push_back(v.metrics_integration);
    }
    if (mine.empty()) continue;
    Value cfg = render_integrations_config(part, all_nodes, opts, assets, r.problems);
    const std::string& ga = h.agent->meta.name;
    std::string base = ga + (all_nodes ? "-integrations-ds" : "-integrations-deploy");
    add_config(r, *h.agent, base + "-config", std::move(cfg), opts);
    r.objects.push_back(make_integrations_workload(*h.agent, mine, all_nodes, opts));
  }
  if (!all.empty() && !opts.upstream_compat) r.objects.push_back(make_integrations_service(*h.agent, opts));
}

// Store keys are flattened into Secret data keys ([^a-zA-Z0-9_] -> '_'), so
// "/secrets/a-b/c/k" and "/secrets/a/b-c/k" would share one file; the pods
// would read the wrong value for one of them, so say so.
void report_key_collisions(AgentRender& r) {
  std::map<std::string, std::string> seen;
  for (const auto& [key, value] : r.assets) {
    auto [it, fresh] = seen.emplace(sanitize_label_name(key), key);
    if (!fresh)
      r.problems.push_back({"GrafanaAgent", r.ns, r.name, "",
                            "referenced keys " + it->second + " and " + key + " map to the same file " + it->first +
                                "; rename one of the Secrets or keys"});
  }
}

// shardingStrategy node: say what the strategy changes beyond the monitors,
// so nothing is a surprise: one pod per Node, whatever shards and replicas
// say, and the jobs the operator does not discover run on every pod.
void report_node_local(AgentRender& r, const Hierarchy& h) {
  const MetricsSubsystemSpec& m = h.agent->metrics;
  auto warn = [&](const std::string& path, const std::string& message) {
    r.problems.push_back({"GrafanaAgent", r.ns, r.name, path, message, true});
  };
  const std::string why = "is ignored under shardingStrategy node: one metrics pod runs on each Node";
  if (m.shards && *m.shards > 1) warn("spec.metrics.shards", why);
  if (m.replicas && *m.replicas != 1) warn("spec.metrics.replicas", why);
  std::size_t additional = 0, integration_monitors = 0;
  for (const MetricsInstanceNode& node : h.metrics) {
    additional += node.instance->additional_scrape_configs.has_value();
    integration_monitors += node.integration_monitors.size();
  }
  std::string whose;
  if (additional) whose = "the additionalScrapeConfigs of " + std::to_string(additional) + " MetricsInstances";
  if (additional && integration_monitors) whose += " and ";
  if (integration_monitors) whose += std::to_string(integration_monitors) + " IntegrationMonitors";
  if (whose.empty()) return;
  warn("spec.metrics.shardingStrategy", "the jobs of " + whose +
                                            " keep their own discovery, so the metrics pod on every Node scrapes "
                                            "all their targets");
}

}  // namespace

Value owner_reference(const GrafanaAgent& agent, bool controller) {
  Value ref = Value::obj({{"apiVersion", "monitoring.grafana.com/v1alpha1"},
                          {"kind", "GrafanaAgent"},
                          {"name", agent.meta.name},
                          {"blockOwnerDeletion", true}});
  if (!agent.meta.uid.empty()) ref.set("uid", agent.meta.uid);
  if (controller) ref.set("controller", true);
  return ref;
}

std::string dns_sanitize(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    out += ok ? c : '-';
  }
  return out;
}

AgentRender render_agent(const Inventory& inv, const GrafanaAgent& agent, const RenderOptions& opts) {
  AgentRender r;
  r.ns = agent.meta.ns;
  r.name = agent.meta.name;
  r.paused = agent.paused;
  if (agent.paused) return r;
  Hierarchy h = build_hierarchy(inv, agent);
  AssetRefs assets(inv);
  if (!h.metrics.empty() && opts.job_cache) {
    const std::string yaml = render_metrics_yaml(h, opts, assets, r.problems, *opts.job_cache);
    r.objects.push_back(make_config_secret(agent, agent.meta.name + "-config", yaml, opts));
  } else if (!h.metrics.empty()) {
    add_config(r, agent, agent.meta.name + "-config", render_metrics_config(h, opts, assets, r.problems), opts);
  }
  if (!h.metrics.empty() && uses_operator_sd(agent, opts)) r.allocator_config = render_allocator_config(inv, h, opts);
  if (!h.metrics.empty()) {
    r.objects.push_back(make_governing_service(agent, opts));
    if (node_local(agent, opts)) {
      r.objects.push_back(make_metrics_daemonset(agent, opts));
      report_node_local(r, h);
    } else {
      for (auto& ss : make_metrics_statefulsets(agent, opts)) r.objects.push_back(std::move(ss));
    }
  }
  if (!h.logs.empty()) {
    add_config(r, agent, agent.meta.name + "-logs-config", render_logs_config(h, opts, assets, r.problems), opts);
    r.objects.push_back(make_logs_daemonset(agent, opts));
  }
  render_integrations(r, h, opts, assets);
  if (!assets.errors.empty()) {
    // The root's own references failed: it is invalid and renders nothing.
    for (auto& e : assets.errors) r.problems.push_back({"GrafanaAgent", r.ns, r.name, e.path, e.message});
    r.objects.clear();
    r.configs.clear();
    r.allocator_config.clear();
    return r;
  }
  r.assets = assets.used;
  report_key_collisions(r);
  std::sort(r.problems.begin(), r.problems.end());
  r.objects.push_back(make_assets_secret(agent, r.assets, opts));
  std::sort(r.objects.begin(), r.objects.end(), object_less);
  return r;
}

RenderAll render_all(const Inventory& inv, const RenderOptions& opts) {
  RenderAll out;
  out.problems = inv.problems();
  // (namespace, kind, name) -> the root that rendered it first.
  std::map<std::tuple<std::string, std::string, std::string>, std::string> owners;
  for (const auto& [key, entry] : inv.agents) {
    if (!entry.valid) continue;
    // Without a caller's cache, a throwaway one: each member's jobs then go
    // to text as soon as they are built, so the whole metrics document never
    // exists as one tree (less memory, nothing big to free). Same bytes.
    JobCache scratch;
    RenderOptions root_opts = opts;
    if (!root_opts.job_cache) root_opts.job_cache = &scratch;
    AgentRender r = render_agent(inv, entry.obj, root_opts);
    for (auto& o : r.objects) {
      auto id = std::make_tuple(str_field(o, "metadata", "namespace"), str_field(o, "kind"),
                                str_field(o, "metadata", "name"));
      auto [it, fresh] = owners.emplace(id, r.name);
      if (!fresh) {
        // E.g. GrafanaAgents "a" (logs) and "a-logs" (metrics) both want
        // Secret "a-logs-config": the second would overwrite the first.
        out.problems.push_back({"GrafanaAgent", r.ns, r.name, "metadata.name",
                                std::get<1>(id) + " " + std::get<2>(id) + " is also rendered by GrafanaAgent " + r.ns +
                                    "/" + it->second + "; rename one of them"});
        continue;
      }
      out.objects.push_back(std::move(o));
    }
    for (auto& p : r.problems) out.problems.push_back(std::move(p));
  }
  std::stable_sort(out.objects.begin(), out.objects.end(), object_less);
  std::sort(out.problems.begin(), out.problems.end());
  out.problems.erase(std::unique(out.problems.begin(), out.problems.end()), out.problems.end());
  return out;
}

std::string to_yaml_stream(const std::vector<Value>& objects) {
  std::string out;
  for (const auto& o : objects) {
    out += "---\n";
    emit_yaml(o, out);
  }
  return out;
}

}  // namespace model
