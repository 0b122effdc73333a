// PodLogs scrape configs in the logs config: the upstream reference case D4
// (upstream_compat), the default mode's corrected selector rules, relabel
// order, namespaces, enforced label, and per-PodLogs rejection.
#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "test_render.hpp"

using testutil::ConfigRender;
using testutil::render_logs;
using testutil::yaml;

namespace {

const model::Value& scrape_config(const ConfigRender& r, std::size_t instance = 0, std::size_t index = 0) {
  const model::Value* scs = testutil::logs_instance(r, instance).find("scrape_configs");
  REQUIRE(scs);
  REQUIRE(scs->size() > index);
  return scs->as_array()[index];
}

const model::Value::Array& relabels(const model::Value& sc) {
  return sc.find("relabel_configs")->as_array();
}

const char* kSelectorCase = R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: monitoring}
spec:
  logs:
    instanceSelector: {}
    clients: [{url: http://loki/push}]
    enforcedNamespaceLabel: tenant_ns
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: main, namespace: monitoring}
spec: {podLogsSelector: {}, podLogsNamespaceSelector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: PodLogs
metadata: {name: api, namespace: app}
spec:
  jobLabel: app.kubernetes.io/name
  podTargetLabels: [team, app.kubernetes.io/part-of]
  namespaceSelector: {any: true}
  selector:
    matchLabels: {app.kubernetes.io/name: api.v1, tier: ''}
    matchExpressions:
    - {key: track, operator: In, values: [stable, canary+1]}
    - {key: env, operator: NotIn, values: [dev]}
    - {key: legacy, operator: DoesNotExist}
    - {key: owner, operator: Exists}
  pipelineStages: [{docker: {}}]
  relabelings:
  - {sourceLabels: [__meta_kubernetes_pod_node_name], targetLabel: node}
  - {targetLabel: cleared, replacement: ''}
)";

}  // namespace

TEST_CASE("D4: PodLogs stages client basic auth custom cluster label (upstream_compat)", "[logs]") {
  auto rc = testutil::load_reference_case("D4_podlogs_stages");
  REQUIRE(rc.entry == "agent-logs.libsonnet");
  ConfigRender r = render_logs(rc.inventory, true);
  CHECK(r.problems.empty());
  CHECK(r.root_errors.empty());
  testutil::check_same(*rc.expected.find("logs"), *r.config.find("logs"));
  testutil::check_same(rc.expected, r.config);
  CHECK(r.used == std::map<std::string, std::string>{{"/secrets/monitoring/loki-auth/pass", "glc_key"},
                                                     {"/secrets/monitoring/loki-auth/user", "12345"}});
}

TEST_CASE("D4 in default mode differs only in the selector rule form", "[logs]") {
  auto rc = testutil::load_reference_case("D4_podlogs_stages");
  ConfigRender r = render_logs(rc.inventory, false);
  CHECK(r.problems.empty());
  model::Value expected = rc.expected;
  model::Value& rules = *expected.find("logs")
                             ->find("configs")
                             ->as_array()[0]
                             .find("scrape_configs")
                             ->as_array()[0]
                             .find("relabel_configs");
  rules.as_array()[1] = yaml(R"({action: keep, regex: '(nginx);true',
      source_labels: [__meta_kubernetes_pod_label_app, __meta_kubernetes_pod_labelpresent_app]})");
  testutil::check_same(expected, r.config);
}

TEST_CASE("selector rules: default form matches literally and needs the label", "[logs]") {
  ConfigRender r = render_logs(testutil::inventory_from_yaml(kSelectorCase), false);
  REQUIRE(r.problems.empty());
  const auto& rules = relabels(scrape_config(r));
  REQUIRE(rules.size() >= 7);
  CHECK(rules[1] == yaml(R"({action: keep, regex: '(api\.v1);true', source_labels:
      [__meta_kubernetes_pod_label_app_kubernetes_io_name, __meta_kubernetes_pod_labelpresent_app_kubernetes_io_name]})"));
  CHECK(rules[2] == yaml(R"({action: keep, regex: '();true',
      source_labels: [__meta_kubernetes_pod_label_tier, __meta_kubernetes_pod_labelpresent_tier]})"));
  CHECK(rules[3] == yaml(R"({action: keep, regex: '(stable|canary\+1);true',
      source_labels: [__meta_kubernetes_pod_label_track, __meta_kubernetes_pod_labelpresent_track]})"));
  CHECK(rules[4] == yaml(R"({action: drop, regex: '(dev);true',
      source_labels: [__meta_kubernetes_pod_label_env, __meta_kubernetes_pod_labelpresent_env]})"));
  CHECK(rules[5] == yaml("{action: drop, regex: 'true', source_labels: [__meta_kubernetes_pod_labelpresent_legacy]}"));
  CHECK(rules[6] == yaml("{action: keep, regex: 'true', source_labels: [__meta_kubernetes_pod_labelpresent_owner]}"));
}

TEST_CASE("selector rules: upstream_compat uses the single-label regex form", "[logs]") {
  ConfigRender r = render_logs(testutil::inventory_from_yaml(kSelectorCase), true);
  REQUIRE(r.problems.empty());
  const auto& rules = relabels(scrape_config(r));
  REQUIRE(rules.size() >= 7);
  CHECK(rules[1] ==
        yaml("{action: keep, regex: api.v1, source_labels: [__meta_kubernetes_pod_label_app_kubernetes_io_name]}"));
  CHECK(rules[2] == yaml("{action: keep, regex: '', source_labels: [__meta_kubernetes_pod_label_tier]}"));
  CHECK(rules[3] == yaml("{action: keep, regex: stable|canary+1, source_labels: [__meta_kubernetes_pod_label_track]}"));
  CHECK(rules[4] == yaml("{action: drop, regex: dev, source_labels: [__meta_kubernetes_pod_label_env]}"));
  CHECK(rules[5] == yaml("{action: drop, regex: 'true', source_labels: [__meta_kubernetes_pod_labelpresent_legacy]}"));
}

TEST_CASE("PodLogs relabel order namespaces and enforced label", "[logs]") {
  ConfigRender r = render_logs(testutil::inventory_from_yaml(kSelectorCase), false);
  REQUIRE(r.problems.empty());
  const model::Value& sc = scrape_config(r);
  CHECK(*sc.find("job_name") == model::Value("podLogs/app/api"));
  CHECK(*sc.find("kubernetes_sd_configs") == yaml("[{role: pod}]"));  // any: true
  CHECK(*sc.find("pipeline_stages") == yaml("[{docker: {}}]"));
  const auto& rules = relabels(sc);
  REQUIRE(rules.size() == 19);
  CHECK(rules[0] == yaml("{source_labels: [job], target_label: __tmp_prometheus_job_name}"));
  CHECK(rules[7] == yaml("{source_labels: [__meta_kubernetes_namespace], target_label: namespace}"));
  CHECK(rules[10] == yaml("{source_labels: [__meta_kubernetes_pod_container_name], target_label: container}"));
  CHECK(rules[11] ==
        yaml("{source_labels: [__meta_kubernetes_pod_label_team], target_label: team, regex: (.+), replacement: $1}"));
  CHECK(rules[12] == yaml(R"({source_labels: [__meta_kubernetes_pod_label_app_kubernetes_io_part_of],
      target_label: app_kubernetes_io_part_of, regex: (.+), replacement: $1})"));
  CHECK(rules[13] == yaml("{target_label: job, replacement: app/api}"));
  CHECK(rules[14] == yaml(R"({source_labels: [__meta_kubernetes_pod_label_app_kubernetes_io_name],
      target_label: job, regex: (.+), replacement: $1})"));
  CHECK(rules[15] == yaml(R"({source_labels: [__meta_kubernetes_pod_uid, __meta_kubernetes_pod_container_name],
      target_label: __path__, separator: /, replacement: /var/log/pods/*$1/*.log})"));
  CHECK(rules[16] == yaml("{source_labels: [__meta_kubernetes_pod_node_name], target_label: node}"));
  // An explicit empty replacement is kept (upstream would drop it, turning it into $1).
  CHECK(rules[17] == yaml("{target_label: cleared, replacement: ''}"));
  CHECK(rules[18] == yaml("{target_label: tenant_ns, replacement: app}"));
}

TEST_CASE("upstream_compat drops empty relabel fields like upstream", "[logs]") {
  ConfigRender r = render_logs(testutil::inventory_from_yaml(kSelectorCase), true);
  const auto& rules = relabels(scrape_config(r));
  REQUIRE(rules.size() == 19);
  CHECK(rules[17] == yaml("{target_label: cleared}"));
}

TEST_CASE("kubernetes_sd namespaces follow namespacesFromSelector", "[logs]") {
  std::string base = kSelectorCase;
  auto sd_for = [&](const std::string& from, const std::string& to, bool ignore) {
    std::string text = base;
    text.replace(text.find(from), from.size(), to);
    if (ignore) text.replace(text.find("enforcedNamespaceLabel"), 0, "ignoreNamespaceSelectors: true\n    ");
    ConfigRender r = render_logs(testutil::inventory_from_yaml(text), false);
    return *scrape_config(r).find("kubernetes_sd_configs");
  };
  CHECK(sd_for("{any: true}", "{matchNames: [a, b]}", false) == yaml("[{role: pod, namespaces: {names: [a, b]}}]"));
  CHECK(sd_for("{any: true}", "{matchNames: []}", false) == yaml("[{role: pod, namespaces: {names: [app]}}]"));
  CHECK(sd_for("{any: true}", "{}", false) == yaml("[{role: pod, namespaces: {names: [app]}}]"));
  CHECK(sd_for("{any: true}", "{any: true}", true) == yaml("[{role: pod, namespaces: {names: [app]}}]"));
}

TEST_CASE("the GrafanaAgent apiServer goes into every PodLogs discovery", "[logs]") {
  std::string text = std::string(kSelectorCase) + R"(
---
apiVersion: v1
kind: Secret
metadata: {name: api-auth, namespace: monitoring}
stringData: {user: admin, pass: pw, ca: CA}
)";
  text.replace(text.find("  logs:"), 0,
               "  apiServer:\n    host: https://kube:6443\n    basicAuth: {username: {name: api-auth, key: user}, "
               "password: {name: api-auth, key: pass}}\n    tlsConfig: {ca: {secret: {name: api-auth, key: ca}}}\n");
  ConfigRender r = render_logs(testutil::inventory_from_yaml(text), false);
  CHECK(r.root_errors.empty());
  CHECK(*scrape_config(r).find("kubernetes_sd_configs") == yaml(R"([{role: pod, api_server: 'https://kube:6443',
      basic_auth: {username: admin, password: pw},
      tls_config: {ca_file: /var/lib/grafana-agent/secrets/_secrets_monitoring_api_auth_ca}}])"));
}

TEST_CASE("a PodLogs that cannot be rendered is left out with a Problem", "[logs]") {
  std::string text = std::string(kSelectorCase) + R"(
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: PodLogs
metadata: {name: bad, namespace: app}
spec:
  selector: {}
  podTargetLabels: [ok, 1st]
)";
  ConfigRender r = render_logs(testutil::inventory_from_yaml(text), false);
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].str() == "PodLogs app/bad: spec.podTargetLabels[1]: \"1st\" cannot be used as a label name");
  const model::Value& configs = *r.config.find("logs")->find("configs");
  REQUIRE(configs.as_array()[0].find("scrape_configs")->size() == 1);
  CHECK(*scrape_config(r).find("job_name") == model::Value("podLogs/app/api"));
}

TEST_CASE("invalid stages make the PodLogs invalid at decode time with full paths", "[logs]") {
  std::string text = std::string(kSelectorCase) + R"(
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: PodLogs
metadata: {name: broken, namespace: app}
spec:
  selector: {}
  pipelineStages:
  - cri: {}
  - docker: {}
  - regex: {expression: '(?P<a>.)'}
  - match:
      selector: '{a="b"}'
      stages: |
        - json:
            expressions: [msg]
)";
  model::Inventory inv = testutil::inventory_from_yaml(text);
  for (const auto& p : inv.problems()) UNSCOPED_INFO(p.str());
  REQUIRE(inv.problems().size() == 1);
  CHECK(inv.problems()[0].str() ==
        "PodLogs app/broken: spec.pipelineStages[3].match.stages[0].json.expressions: expected object, got array");
  ConfigRender r = render_logs(inv, false);
  CHECK(r.config.find("logs")->find("configs")->as_array()[0].find("scrape_configs")->size() == 1);
}
