// IntegrationMonitor jobs in the metrics agent.yml: one job per monitor and
// MetricsInstance over the operator's integrations SD endpoint, golden in
// tests/golden/metrics/integration_monitor{,.compat}.yaml (regenerate with
// UPDATE_GOLDEN=1), plus the selection and option behaviours around it.
#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "model/yaml_emit.hpp"
#include "test_render.hpp"

namespace {

using model::Value;
using testutil::at;

const std::string kMonitorBase = R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: mon}
spec:
  metrics: {instanceSelector: {}, shards: 2, enforcedNamespaceLabel: tenant, enforcedSampleLimit: 500}
  metricsIntegrations: {selector: {}, namespaceSelector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: mon}
spec:
  integrationMonitorSelector: {matchLabels: {scrape: integrations}}
  integrationMonitorNamespaceSelector: {}
)";

const std::string kMonitor = R"(
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: IntegrationMonitor
metadata: {name: infra, namespace: ops, labels: {scrape: integrations}}
spec:
  selector:
    matchLabels: {team: platform}
    matchExpressions: [{key: tier, operator: In, values: [db, cache]}]
  namespaceSelector: {matchNames: [infra, shop]}
  interval: 30s
  scrapeTimeout: 10s
  honorLabels: true
  honorTimestamps: false
  params: {'collect[]': [cpu, meminfo]}
  relabelings: [{sourceLabels: [agent_hostname], targetLabel: node}]
  metricRelabelings: [{sourceLabels: [__name__], regex: 'go_.*', action: drop}]
  sampleLimit: 1000
  targetLimit: 10
  labelLimit: 30
)";

model::Value render_monitor_config(const std::string& manifests, bool compat = false,
                                   std::vector<std::string> warnings = {}) {
  testutil::ConfigRender r = testutil::render_metrics(testutil::valid_inventory(manifests), compat);
  testutil::require_warnings(r, std::move(warnings));
  return r.config;
}

}  // namespace

TEST_CASE("golden: an IntegrationMonitor job", "[metrics][integrations]") {
  testutil::check_golden("metrics", "integration_monitor.yaml",
                         model::to_yaml(render_monitor_config(kMonitorBase + kMonitor)));
  // Upstream renders no label limits.
  testutil::check_golden(
      "metrics", "integration_monitor.compat.yaml",
      model::to_yaml(render_monitor_config(kMonitorBase + kMonitor, true,
                                           {"IntegrationMonitor ops/infra: spec.labelLimit: not rendered with "
                                            "--upstream-compat (the Grafana Agent Operator leaves it out); "
                                            "ignored"})));
}

TEST_CASE("an IntegrationMonitor job keeps this agent's targets and labels them", "[metrics][integrations]") {
  Value cfg = render_monitor_config(kMonitorBase + kMonitor);
  const Value& job = testutil::only_metrics_job(cfg);
  CHECK(at(job, "job_name") == Value("integrationMonitor/ops/infra"));
  CHECK(at(job, "http_sd_configs") ==
        testutil::yaml("[{url: 'http://agent-operator-metrics.agent-operator.svc:8080/operator/api/v1/metrics/"
                       "integrations/sd?agent=mon/agent'}]"));
  const Value& rules = at(job, "relabel_configs");
  CHECK(at(rules, "[0]") == testutil::yaml(R"({source_labels: [__meta_agentoperator_grafanaagent_namespace,
      __meta_agentoperator_grafanaagent_name], separator: ';', regex: mon;agent, action: keep})"));
  std::map<std::string, Value> set;
  for (const Value& r : rules.as_array())
    if (const Value* t = r.find("target_label"); t && r.find("replacement") && !r.find("source_labels"))
      set[t->as_string()] = *r.find("replacement");
  CHECK(set["cluster"] == Value("mon/agent"));
  CHECK(set["monitor"] == Value("ops/infra"));
  CHECK(set["metrics_instance"] == Value("mon/primary"));
  CHECK(set["tenant"] == Value("ops"));
  CHECK(at(job, "sample_limit") == Value(500));
}

TEST_CASE("an IntegrationMonitor that selects nothing still renders its job", "[metrics][integrations]") {
  // Like a ServiceMonitor whose Services do not exist: the rules keep no
  // target until an integration with matching labels appears.
  Value cfg = render_monitor_config(kMonitorBase + R"(
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: IntegrationMonitor
metadata: {name: none, namespace: mon, labels: {scrape: integrations}}
spec: {selector: {matchLabels: {nothing: here}}}
)");
  const Value& job = testutil::only_metrics_job(cfg);
  CHECK(at(job, "job_name") == Value("integrationMonitor/mon/none"));
  // No namespaceSelector: the monitor's own namespace.
  bool own_namespace = false;
  for (const Value& r : at(job, "relabel_configs").as_array())
    if (r == testutil::yaml("{source_labels: [__meta_agentoperator_integration_cr_namespace], regex: (mon), "
                            "action: keep}"))
      own_namespace = true;
  CHECK(own_namespace);
}

TEST_CASE("the integrations SD URL comes from RenderOptions", "[metrics][integrations]") {
  auto inv = testutil::valid_inventory(kMonitorBase + kMonitor);
  model::RenderOptions opts;
  opts.integrations_sd_url = "https://op.example:8443/operator/api/v1/metrics/integrations/sd?x=1";
  model::AgentRender r = model::render_agent(inv, testutil::only_agent(inv), opts);
  REQUIRE(r.configs.count("agent-config") == 1);
  const Value& job = testutil::only_metrics_job(r.configs.at("agent-config"));
  CHECK(at(job, "http_sd_configs[0].url") ==
        Value("https://op.example:8443/operator/api/v1/metrics/integrations/sd?x=1&agent=mon/agent"));
}

TEST_CASE("a bad IntegrationMonitor is left out with a Problem", "[metrics][integrations]") {
  testutil::ConfigRender r = testutil::render_metrics(testutil::valid_inventory(kMonitorBase + R"(
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: IntegrationMonitor
metadata: {name: slow, namespace: mon, labels: {scrape: integrations}}
spec: {selector: {}, interval: 10s, scrapeTimeout: 1m}
)"));
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].str() ==
        "IntegrationMonitor mon/slow: spec.scrapeTimeout: scrapeTimeout 1m is greater than the scrape interval 10s");
  CHECK_FALSE(at(r.config, "metrics.configs[0]").find("scrape_configs"));
}
