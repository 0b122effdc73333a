// The agent's ServiceMonitor/PodMonitor/Probe jobs against
// prometheus-operator's golden scrape configs
// (../shared/reference/golden/prometheus-operator, inputs described in
// prometheus-operator-scrape-configs.md §6, reconstructed here from the
// outputs). Default mode only: its selector rules, pod-phase filter, limits
// and Probe sharding follow prometheus-operator.
//
// What is compared: the whole job, after two normalisations that do not
// change meaning (prometheus-operator writes `${1}` where the agent writes
// `$1`, and always writes `metric_relabel_configs`, even empty) and after
// applying, per case, the agent-operator differences named in each test.
#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "test_render.hpp"

using model::Value;

using testutil::check_same;
using testutil::yaml;

namespace {

void normalize(Value& v) {
  if (v.is_string() && v.as_string() == "${1}") v = Value("$1");
  if (v.is_string() && v.as_string() == "${1}://${2}${3}") v = Value("$1://$2$3");
  if (v.is_array())
    for (auto& item : v.as_array()) normalize(item);
  if (!v.is_object()) return;
  const Value* mr = v.find("metric_relabel_configs");
  if (mr && mr->is_array() && mr->size() == 0) v.erase("metric_relabel_configs");
  for (auto& [k, child] : v.as_object()) normalize(child);
}

// The first job of a prometheus-operator golden file, normalised.
Value golden_job(const std::string& name) {
  Value doc = yaml(testutil::read_text(testutil::reference_path("golden/prometheus-operator/" + name + ".golden")));
  Value job = doc.find("scrape_configs")->as_array().at(0);
  normalize(job);
  return job;
}

// Renders (default mode) a GrafanaAgent default/agent with `metrics_spec`
// and one MetricsInstance selecting every monitor in every namespace, plus
// `objects`; returns the only job.
Value agent_job(const std::string& metrics_spec, const std::string& objects) {
  testutil::ConfigRender r = testutil::render_metrics(testutil::valid_inventory(
      testutil::metrics_agent_yaml("default", metrics_spec) +
      testutil::select_all_instance_yaml("name: primary, namespace: default, labels: {agent: agent}") + "---\n" +
      objects));
  testutil::require_clean(r);
  return testutil::only_metrics_job(r.config);
}

Value::Array& rules(Value& job) {
  return job.find("relabel_configs")->as_array();
}

}  // namespace

TEST_CASE("prometheus-operator NoEnforcedNamespaceLabelServiceMonitor", "[metrics]") {
  Value job = agent_job("{instanceSelector: {}}", R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: test, namespace: default}
spec:
  selector: {matchLabels: {foo: bar}}
  endpoints:
  - port: https-metrics
    interval: 30s
    honorLabels: true
    metricRelabelings:
    - {sourceLabels: [__name__], regex: 'container_(network_tcp_usage_total|network_udp_usage_total|tasks_state|cpu_load_average_10s)', action: drop}
    relabelings:
    - {sourceLabels: [__address__], targetLabel: __address__, regex: '(.+)(?::d+)', replacement: '$1:9537', action: replace}
    - {targetLabel: job, replacement: crio, action: replace}
)");
  check_same(golden_job("NoEnforcedNamespaceLabelServiceMonitor_Expected"), job);
}

TEST_CASE("prometheus-operator EmptyEndpointPorts", "[metrics]") {
  Value job = agent_job("{instanceSelector: {}}", R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: test, namespace: default}
spec: {selector: {matchLabels: {foo: bar}}, endpoints: [{}]}
)");
  check_same(golden_job("EmptyEndpointPorts"), job);
}

TEST_CASE("prometheus-operator HonorTimestampsOverriding", "[metrics]") {
  Value job = agent_job("{instanceSelector: {}, overrideHonorTimestamps: true}", R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: testservicemonitor1, namespace: default}
spec:
  selector: {}
  targetLabels: [example, env]
  endpoints: [{port: web, interval: 30s, honorTimestamps: true}]
)");
  check_same(golden_job("HonorTimestampsOverriding"), job);
}

TEST_CASE("prometheus-operator ServiceMonitor with matchExpressions and enforced label", "[metrics]") {
  // TestServiceMonitorWithEndpointSliceEnable: the agent has no
  // endpointslice role, so the expected job is renamed to the endpoints
  // role. Its relabeling gains a target_label (a replace without one is
  // rejected at decode time). The agent drops metric relabelings that
  // target the enforced label and appends no enforced metric rule, so
  // metric_relabel_configs disappears. The enforced label is ns_key, not
  // the golden's ns-key: "ns-key" is not a label name, so the GrafanaAgent
  // is rejected at decode time (Prometheus rejects it as a target_label).
  Value job = agent_job("{instanceSelector: {}, enforcedNamespaceLabel: ns_key}", R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: test, namespace: default}
spec:
  selector:
    matchLabels: {foo: bar}
    matchExpressions: [{key: alpha, operator: In, values: [beta, gamma]}]
  endpoints:
  - port: web
    interval: 30s
    relabelings: [{sourceLabels: [__meta_kubernetes_pod_ready], regex: (.*), replacement: $1, action: replace, targetLabel: pod_ready}]
    metricRelabelings: [{sourceLabels: [pod_name], targetLabel: ns_key, regex: my-job-pod-.+, action: drop}]
)");
  std::string text = testutil::read_text(
      testutil::reference_path("golden/prometheus-operator/TestServiceMonitorWithEndpointSliceEnable_Expected.golden"));
  for (std::size_t at; (at = text.find("endpointslice")) != std::string::npos;) text.replace(at, 13, "endpoint");
  for (std::size_t at; (at = text.find("role: endpoint\n")) != std::string::npos;)
    text.replace(at, 14, "role: endpoints");
  for (std::size_t at; (at = text.find("ns-key")) != std::string::npos;) text.replace(at, 6, "ns_key");
  Value expected = yaml(text).find("scrape_configs")->as_array().at(0);
  normalize(expected);
  expected.erase("metric_relabel_configs");
  for (auto& r : rules(expected))
    if (r.find("source_labels") && r.find("source_labels")->as_array()[0] == Value("__meta_kubernetes_pod_ready"))
      r.set("target_label", "pod_ready");
  check_same(expected, job);
}

TEST_CASE("prometheus-operator EnforcedNamespaceLabelPodMonitor", "[metrics]") {
  // Differences: the agent also copies the service name and orders the
  // copies namespace/service/pod/container; it adds no enforced rule to
  // metric_relabel_configs; the user relabeling gains a target_label. The
  // enforced label is ns_key: "ns-key" is not a label name.
  Value job = agent_job("{instanceSelector: {}, enforcedNamespaceLabel: ns_key}", R"(
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: testpodmonitor1, namespace: pod-monitor-ns}
spec:
  selector: {}
  podTargetLabels: [example, env]
  podMetricsEndpoints:
  - port: web
    interval: 30s
    relabelings: [{sourceLabels: [__meta_kubernetes_pod_ready], regex: (.*), replacement: $1, action: replace, targetLabel: pod_ready}]
    metricRelabelings: [{sourceLabels: [pod_name], targetLabel: my-ns, regex: my-job-pod-.+, action: drop}]
)");
  Value expected = golden_job("EnforcedNamespaceLabelPodMonitor_Expected");
  auto& r = rules(expected);
  for (auto& rule : r)
    if (rule.find("target_label") && *rule.find("target_label") == Value("ns-key")) rule.set("target_label", "ns_key");
  REQUIRE(r[4] == yaml("{source_labels: [__meta_kubernetes_pod_container_name], target_label: container}"));
  r.erase(r.begin() + 3, r.begin() + 6);
  r.insert(r.begin() + 3, {yaml("{source_labels: [__meta_kubernetes_namespace], target_label: namespace}"),
                           yaml("{source_labels: [__meta_kubernetes_service_name], target_label: service}"),
                           yaml("{source_labels: [__meta_kubernetes_pod_name], target_label: pod}"),
                           yaml("{source_labels: [__meta_kubernetes_pod_container_name], target_label: container}")});
  r[11].set("target_label", "pod_ready");
  expected.find("metric_relabel_configs")->as_array().pop_back();
  check_same(expected, job);
}

TEST_CASE("prometheus-operator ProbeStaticTargetsConfigGenerationWithLabelEnforce", "[metrics]") {
  // Differences: the agent always sets the static `namespace` label to the
  // Probe's namespace (prometheus-operator keeps a user-given one), and adds
  // no enforced rule to metric_relabel_configs.
  Value job = agent_job("{instanceSelector: {}, enforcedNamespaceLabel: namespace}", R"(
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: testprobe1, namespace: default}
spec:
  module: http_2xx
  prober: {url: blackbox.exporter.io, scheme: http}
  targets:
    staticConfig: {static: [prometheus.io, promcon.io], labels: {static: label, namespace: custom}}
  metricRelabelings: [{regex: noisy_labels.*, action: labeldrop}]
)");
  Value expected = golden_job("ProbeStaticTargetsConfigGenerationWithLabelEnforce");
  expected.find("static_configs")->as_array()[0].find("labels")->set("namespace", "default");
  expected.find("metric_relabel_configs")->as_array().pop_back();
  check_same(expected, job);
}

TEST_CASE("prometheus-operator ProbeIngressSDConfigGenerationWithShards", "[metrics]") {
  // Difference: the agent has no __tmp_ingress_address rule.
  Value job = agent_job("{instanceSelector: {}, shards: 2}", R"(
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: testprobe1, namespace: default}
spec:
  module: http_2xx
  prober: {url: blackbox.exporter.io, scheme: http}
  targets:
    ingress:
      selector: {matchLabels: {prometheus.io/probe: 'true'}}
      namespaceSelector: {any: true}
      relabelingConfigs: [{targetLabel: foo, replacement: bar, action: replace}]
)");
  Value expected = golden_job("ProbeIngressSDConfigGenerationWithShards");
  auto& r = rules(expected);
  REQUIRE(*r[5].find("target_label") == Value("__tmp_ingress_address"));
  r.erase(r.begin() + 5);
  check_same(expected, job);
}

TEST_CASE("prometheus-operator probe_monitor_with_oauth2", "[metrics]") {
  // Differences: prober.url is required here (the golden's is empty), the
  // agent defaults metrics_path to /probe and always sends the module param.
  Value job = agent_job("{instanceSelector: {}}", R"(
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: testprobe1, namespace: default}
spec:
  prober: {url: 'blackbox:9115'}
  targets: {staticConfig: {static: [127.0.0.1]}}
  oauth2:
    clientId: {secret: {name: oauth2, key: client_id}}
    clientSecret: {name: oauth2, key: client_secret}
    tokenUrl: http://test.url
    scopes: [scope 1, scope 2]
    endpointParams: {param1: value1, param2: value2}
---
apiVersion: v1
kind: Secret
metadata: {name: oauth2, namespace: default}
stringData: {client_id: test_client_id, client_secret: test_client_secret}
)");
  Value expected = golden_job("probe_monitor_with_oauth2");
  expected.set("metrics_path", "/probe");
  expected.set("params", yaml("{module: ['']}"));
  rules(expected)[3].set("replacement", "blackbox:9115");
  check_same(expected, job);
}
