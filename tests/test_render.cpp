#include "test_render.hpp"

#include <algorithm>

#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "model/hierarchy.hpp"

namespace testutil {

void require_no_problems(const model::Inventory& inv) {
  std::string listed;
  for (const auto& p : inv.problems()) listed += p.str() + "\n";
  INFO(listed);
  REQUIRE(inv.problems().empty());
}

model::Inventory valid_inventory(const std::string& text) {
  model::Inventory inv = inventory_from_yaml(text);
  require_no_problems(inv);
  return inv;
}

const model::GrafanaAgent& only_agent(const model::Inventory& inv) {
  REQUIRE(inv.agents.size() == 1);
  REQUIRE(inv.agents.begin()->second.valid);
  return inv.agents.begin()->second.obj;
}

model::GrafanaAgent agent_from_spec(const std::string& spec, const std::string& meta_extra) {
  auto inv = inventory_from_yaml(
      "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\n"
      "metadata: {name: a, namespace: ns" +
      meta_extra + "}\n" + (spec.empty() ? "" : "spec:\n" + spec));
  return only_agent(inv);
}

model::AgentRender render_only_agent(const model::Inventory& inv, bool compat) {
  model::RenderOptions opts;
  opts.upstream_compat = compat;
  return model::render_agent(inv, only_agent(inv), opts);
}

model::RenderAll render_all_yaml(const std::string& text) {
  return model::render_all(inventory_from_yaml(text), model::RenderOptions{});
}

namespace {

// Builds the hierarchy of the only GrafanaAgent and calls
// render(hierarchy, options, assets, problems).
template <class Render>
ConfigRender render_config(const model::Inventory& inv, bool compat, Render render) {
  model::Hierarchy h = model::build_hierarchy(inv, only_agent(inv));
  model::RenderOptions opts;
  opts.upstream_compat = compat;
  model::AssetRefs assets(inv);
  ConfigRender r;
  r.config = render(h, opts, assets, r.problems);
  r.root_errors = assets.errors;
  r.used = assets.used;
  return r;
}

}  // namespace

ConfigRender render_logs(const model::Inventory& inv, bool compat) {
  return render_config(inv, compat, model::render_logs_config);
}

ConfigRender render_metrics(const model::Inventory& inv, bool compat) {
  return render_config(inv, compat, model::render_metrics_config);
}

ConfigRender render_metrics_flavor(const model::Inventory& inv, model::ConfigFlavor flavor, bool compat) {
  return render_config(inv, compat, [flavor](const auto& h, const auto& opts, auto& assets, auto& problems) {
    return model::render_metrics_block(h, opts, assets, problems, flavor);
  });
}

void require_clean(const ConfigRender& r) {
  std::string listed;
  for (const auto& p : r.problems) listed += p.str() + "\n";
  for (const auto& e : r.root_errors) listed += e.path + ": " + e.message + "\n";
  INFO(listed);
  REQUIRE(r.problems.empty());
  REQUIRE(r.root_errors.empty());
}

void require_warnings(const ConfigRender& r, std::vector<std::string> warnings) {
  std::vector<std::string> got;
  for (const auto& p : r.problems) {
    INFO(p.str());
    CHECK(p.warning);
    got.push_back(p.str());
  }
  for (const auto& e : r.root_errors) FAIL_CHECK(e.path + ": " + e.message);
  std::sort(got.begin(), got.end());
  std::sort(warnings.begin(), warnings.end());
  CHECK(got == warnings);
}

std::vector<std::string> problem_texts(const std::vector<model::Problem>& problems) {
  std::vector<std::string> out;
  for (const auto& p : problems) out.push_back(p.str());
  return out;
}

const model::Value& logs_instance(const ConfigRender& r, std::size_t i) {
  const model::Value* configs = r.config.find("logs")->find("configs");
  REQUIRE(configs);
  REQUIRE(configs->size() > i);
  return configs->as_array()[i];
}

model::Value& metrics_jobs(model::Value& config) {
  return *config.find("metrics")->find("configs")->as_array().at(0).find("scrape_configs");
}

const model::Value& metrics_jobs(const model::Value& config) {
  return *config.find("metrics")->find("configs")->as_array().at(0).find("scrape_configs");
}

const model::Value& only_metrics_job(const model::Value& config) {
  const model::Value& jobs = metrics_jobs(config);
  REQUIRE(jobs.size() == 1);
  return jobs.as_array()[0];
}

std::string compat_ignored(const std::string& object, const std::string& field) {
  return object + ": " + field +
         ": not rendered with --upstream-compat (the Grafana Agent Operator leaves it out); ignored";
}

std::string metrics_agent_yaml(const std::string& ns, const std::string& metrics) {
  return "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: agent, namespace: " + ns +
         "}\nspec:\n  metrics: " + metrics + "\n";
}

std::string select_all_instance_yaml(const std::string& metadata) {
  return R"(---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {)" +
         metadata +
         R"(}
spec:
  serviceMonitorSelector: {}
  serviceMonitorNamespaceSelector: {}
  podMonitorSelector: {}
  podMonitorNamespaceSelector: {}
  probeSelector: {}
  probeNamespaceSelector: {}
)";
}

const char* const kLogsAgent = R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: monitoring}
spec:
  logs:
    instanceSelector: {}
    instanceNamespaceSelector: {}
    clients:
    - url: https://loki.global/push
      basicAuth: {username: {name: global-auth, key: user}, password: {name: global-auth, key: pass}}
      externalLabels: {region: eu}
---
apiVersion: v1
kind: Secret
metadata: {name: global-auth, namespace: monitoring}
stringData: {user: g-user, pass: g-pass}
)";

}  // namespace testutil
