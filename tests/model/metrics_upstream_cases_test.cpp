// Upstream template tests C1-C5 (grafana-agent-operator.md §4), inputs
// and expected outputs transcribed inline. Each compares the whole
// rendered unit (document, external_labels or job) with upstream_compat,
// and states what default mode changes.
#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "test_render.hpp"

using model::Value;

using testutil::check_same;
using testutil::metrics_agent_yaml;
using testutil::only_metrics_job;
using testutil::yaml;

namespace {

// The metrics agent.yml of the only GrafanaAgent (for the integrations
// flavor, {metrics: <its metrics block>}); any Problem fails.
Value render(const model::Inventory& inv, bool compat, model::ConfigFlavor flavor = model::ConfigFlavor::full) {
  const bool full = flavor == model::ConfigFlavor::full;
  testutil::ConfigRender r =
      full ? testutil::render_metrics(inv, compat) : testutil::render_metrics_flavor(inv, flavor, compat);
  testutil::require_clean(r);
  return full ? r.config : Value::obj({{"metrics", r.config}});
}

// A GrafanaAgent operator/agent with one MetricsInstance selecting every
// monitor in namespace operator, plus `extra` (the monitor under test).
model::Inventory operator_inventory(const std::string& extra) {
  return testutil::inventory_from_yaml(metrics_agent_yaml("operator", "{instanceSelector: {}}") + R"(---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: operator}
spec: {serviceMonitorSelector: {}, podMonitorSelector: {}, probeSelector: {}}
---
)" + extra);
}

}  // namespace

TEST_CASE("C1 remote_write with basic auth and TLS from Secrets and a ConfigMap", "[metrics]") {
  // Upstream renders password_file and the ConfigMap CA as paths without
  // reading them; we resolve every reference, so the inputs provide them.
  auto inv = testutil::inventory_from_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: example, namespace: default}
spec:
  logLevel: debug
  metrics:
    scrapeInterval: 15s
    scrapeTimeout: 10s
    externalLabels: {cluster: prod, foo: bar}
    remoteWrite:
    - url: http://localhost:9090/api/v1/write
      basicAuth: {username: {name: example-secret, key: key}, password: {name: example-secret, key: pword}}
      tlsConfig:
        ca: {configMap: {name: example-cm, key: key}}
        cert: {secret: {name: example-secret, key: key}}
        keySecret: {name: example-secret, key: key}
---
apiVersion: v1
kind: Secret
metadata: {name: example-secret, namespace: default}
stringData: {key: somesecret, pword: p}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: example-cm, namespace: default}
data: {key: ca}
)");
  Value expected = yaml(R"(
server: {log_level: debug}
metrics:
  wal_directory: /var/lib/grafana-agent/data
  global:
    scrape_interval: 15s
    scrape_timeout: 10s
    external_labels: {cluster: prod, foo: bar, __replica__: replica-$(STATEFULSET_ORDINAL_NUMBER)}
    remote_write:
    - url: http://localhost:9090/api/v1/write
      basic_auth: {username: somesecret, password_file: /var/lib/grafana-agent/secrets/_secrets_default_example_secret_pword}
      tls_config:
        ca_file: /var/lib/grafana-agent/secrets/_configMaps_default_example_cm_key
        cert_file: /var/lib/grafana-agent/secrets/_secrets_default_example_secret_key
        key_file: /var/lib/grafana-agent/secrets/_secrets_default_example_secret_key
)");
  check_same(expected, render(inv, true));
  check_same(expected, render(inv, false));  // no difference applies
}

TEST_CASE("C2 external labels and the replica label", "[metrics]") {
  auto labels = [](const std::string& metrics_spec, model::ConfigFlavor flavor) {
    auto inv = testutil::inventory_from_yaml(metrics_agent_yaml("operator", metrics_spec));
    Value cfg = render(inv, true, flavor);
    return *cfg.find("metrics")->find("global")->find("external_labels");
  };
  const auto full = model::ConfigFlavor::full;
  // addReplica=false is the integrations config.
  CHECK(labels("{}", model::ConfigFlavor::integrations) == yaml("{cluster: operator/agent}"));
  CHECK(labels("{}", full) == yaml("{cluster: operator/agent, __replica__: replica-$(STATEFULSET_ORDINAL_NUMBER)}"));
  CHECK(labels("{externalLabels: {foo: bar}}", full) ==
        yaml("{cluster: operator/agent, foo: bar, __replica__: replica-$(STATEFULSET_ORDINAL_NUMBER)}"));
  CHECK(labels("{externalLabels: {foo: bar}, metricsExternalLabelName: deployment, replicaExternalLabelName: replica}",
               full) == yaml("{deployment: operator/agent, foo: bar, replica: replica-$(STATEFULSET_ORDINAL_NUMBER)}"));
  // A user label cannot override the replica label.
  CHECK(labels("{externalLabels: {__replica__: mine}}", full) ==
        yaml("{cluster: operator/agent, __replica__: replica-$(STATEFULSET_ORDINAL_NUMBER)}"));
}

TEST_CASE("C3 default ServiceMonitor job", "[metrics]") {
  auto inv = operator_inventory(R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: servicemonitor, namespace: operator}
spec: {selector: {}, endpoints: [{port: metrics, filterRunning: true}]}
)");
  Value expected = yaml(R"(
job_name: serviceMonitor/operator/servicemonitor/0
honor_labels: false
kubernetes_sd_configs: [{role: endpoints, namespaces: {names: [operator]}}]
relabel_configs:
- {source_labels: [job], target_label: __tmp_prometheus_job_name}
- {source_labels: [__meta_kubernetes_endpoint_port_name], regex: metrics, action: keep}
- {source_labels: [__meta_kubernetes_endpoint_address_target_kind, __meta_kubernetes_endpoint_address_target_name], separator: ';', regex: 'Node;(.*)', replacement: $1, target_label: node}
- {source_labels: [__meta_kubernetes_endpoint_address_target_kind, __meta_kubernetes_endpoint_address_target_name], separator: ';', regex: 'Pod;(.*)', replacement: $1, target_label: pod}
- {source_labels: [__meta_kubernetes_namespace], target_label: namespace}
- {source_labels: [__meta_kubernetes_service_name], target_label: service}
- {source_labels: [__meta_kubernetes_pod_name], target_label: pod}
- {source_labels: [__meta_kubernetes_pod_container_name], target_label: container}
- {source_labels: [__meta_kubernetes_pod_phase], regex: (Failed|Succeeded), action: drop}
- {source_labels: [__meta_kubernetes_service_name], target_label: job, replacement: $1}
- {target_label: endpoint, replacement: metrics}
- {source_labels: [__address__], target_label: __tmp_hash, modulus: 1, action: hashmod}
- {source_labels: [__tmp_hash], regex: $(SHARD), action: keep}
)");
  check_same(expected, only_metrics_job(render(inv, true)));
  // filterRunning is explicitly true and the selector is empty: no difference.
  check_same(expected, only_metrics_job(render(inv, false)));

  SECTION("without filterRunning only default mode drops finished pods") {
    auto inv2 = operator_inventory(R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: servicemonitor, namespace: operator}
spec: {selector: {}, endpoints: [{port: metrics}]}
)");
    Value upstream = expected;
    auto& rules = upstream.find("relabel_configs")->as_array();
    rules.erase(rules.begin() + 8);
    check_same(upstream, only_metrics_job(render(inv2, true)));
    check_same(expected, only_metrics_job(render(inv2, false)));
  }
}

TEST_CASE("C4 PodMonitor job", "[metrics]") {
  auto inv = operator_inventory(R"(
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: podmonitor, namespace: operator}
spec: {selector: {}, podMetricsEndpoints: [{port: metrics, enableHttp2: false, filterRunning: true}]}
)");
  Value expected = yaml(R"(
job_name: podMonitor/operator/podmonitor/0
enable_http2: false
honor_labels: false
kubernetes_sd_configs: [{role: pod, namespaces: {names: [operator]}}]
relabel_configs:
- {source_labels: [job], target_label: __tmp_prometheus_job_name}
- {source_labels: [__meta_kubernetes_pod_phase], regex: (Failed|Succeeded), action: drop}
- {source_labels: [__meta_kubernetes_pod_container_port_name], regex: metrics, action: keep}
- {source_labels: [__meta_kubernetes_namespace], target_label: namespace}
- {source_labels: [__meta_kubernetes_service_name], target_label: service}
- {source_labels: [__meta_kubernetes_pod_name], target_label: pod}
- {source_labels: [__meta_kubernetes_pod_container_name], target_label: container}
- {target_label: job, replacement: operator/podmonitor}
- {target_label: endpoint, replacement: metrics}
- {source_labels: [__address__], target_label: __tmp_hash, action: hashmod, modulus: 1}
- {source_labels: [__tmp_hash], action: keep, regex: $(SHARD)}
)");
  check_same(expected, only_metrics_job(render(inv, true)));
  check_same(expected, only_metrics_job(render(inv, false)));  // no difference applies
}

TEST_CASE("C5 Probe with ingress targets", "[metrics]") {
  // The Probe CRD requires prober.url (upstream's template test left it
  // empty and got `replacement: ""`); here it is blackbox:9115.
  auto inv = operator_inventory(R"(
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: probe, namespace: operator}
spec:
  module: mod
  prober: {url: 'blackbox:9115'}
  targets: {ingress: {selector: {matchLabels: {foo: bar}}}}
  tlsConfig: {insecureSkipVerify: true}
)");
  Value expected = yaml(R"(
job_name: probe/operator/probe
honor_timestamps: true
kubernetes_sd_configs: [{role: ingress, namespaces: {names: [operator]}}]
metrics_path: /probe
params: {module: [mod]}
relabel_configs:
- {source_labels: [job], target_label: __tmp_prometheus_job_name}
- {action: keep, regex: bar, source_labels: [__meta_kubernetes_ingress_label_foo]}
- {action: replace, regex: '(.+);(.+);(.+)', replacement: '$1://$2$3', separator: ';', source_labels: [__meta_kubernetes_ingress_scheme, __address__, __meta_kubernetes_ingress_path], target_label: __param_target}
- {source_labels: [__meta_kubernetes_namespace], target_label: namespace}
- {source_labels: [__meta_kubernetes_ingress_name], target_label: ingress}
- {source_labels: [__param_target], target_label: instance}
- {replacement: 'blackbox:9115', target_label: __address__}
tls_config: {insecure_skip_verify: true}
)");
  check_same(expected, only_metrics_job(render(inv, true)));

  // Default mode: the two-source selector rule and the sharding pair.
  auto& rules = expected.find("relabel_configs")->as_array();
  rules[1] = yaml(
      R"({action: keep, regex: '(bar);true', source_labels: [__meta_kubernetes_ingress_label_foo, __meta_kubernetes_ingress_labelpresent_foo]})");
  rules.push_back(yaml("{source_labels: [__param_target], target_label: __tmp_hash, modulus: 1, action: hashmod}"));
  rules.push_back(yaml("{source_labels: [__tmp_hash], regex: $(SHARD), action: keep}"));
  check_same(expected, only_metrics_job(render(inv, false)));
}
