// Decoding of MetricsIntegration and IntegrationMonitor: wrong types, a bad
// spec.type and missing required fields name the object and the field;
// spec.config parses into a mapping, and an unparsable one is kept aside
// (the object stays valid) for rendering to report.
#include <catch2/catch.hpp>

#include <algorithm>

#include "golden_util.hpp"
#include "test_render.hpp"

namespace {

std::vector<std::string> integration_problems(const std::string& yaml) {
  return testutil::inventory_problems(yaml);
}

}  // namespace

TEST_CASE("MetricsIntegration decode errors name the object and the field", "[decode][integrations]") {
  auto p = integration_problems(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: bad, namespace: mon}
spec:
  type: everywhere
  config: {a: 1}
  labels: {ok: x, 'not a label': y, n: [1]}
  secrets: [{name: s}]
  volumes: [{hostPath: {path: /}}]
)");
  REQUIRE(p.size() == 7);
  CHECK(p[0] == "MetricsIntegration mon/bad: spec.config: expected string, got object");
  CHECK(p[1] == "MetricsIntegration mon/bad: spec.labels.n: expected string, got array");
  CHECK(p[2] == "MetricsIntegration mon/bad: spec.labels.not a label: \"not a label\" is not a valid label name");
  CHECK(p[3] == "MetricsIntegration mon/bad: spec.name: is required");
  CHECK(p[4] == "MetricsIntegration mon/bad: spec.secrets[0].key: must not be empty");
  CHECK(p[5] ==
        "MetricsIntegration mon/bad: spec.type: must be one of daemonset, singleton, normal, got \"everywhere\"");
  CHECK(p[6] == "MetricsIntegration mon/bad: spec.volumes[0].name: is required");
}

TEST_CASE("MetricsIntegration spec.type is a string and defaults to normal", "[decode][integrations]") {
  auto p = integration_problems(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: typed, namespace: mon}
spec: {name: node_exporter, type: {allNodes: true}}
)");
  REQUIRE(p.size() == 1);
  CHECK(p[0] == "MetricsIntegration mon/typed: spec.type: expected string, got object");
  auto inv = testutil::valid_inventory(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: plain, namespace: mon}
spec: {name: redis_exporter}
)");
  const auto& mi = inv.metrics_integrations.at({"mon", "plain"}).obj;
  CHECK(mi.type == model::IntegrationType::normal);
  CHECK(mi.config == model::Value::object());
  CHECK(mi.config_error.empty());
}

TEST_CASE("MetricsIntegration spec.config is parsed and a broken one stays valid", "[decode][integrations]") {
  auto inv = testutil::valid_inventory(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: good, namespace: mon}
spec:
  name: mysqld_exporter
  type: singleton
  config: |
    data_source_name: root@(db:3306)/
    extra_labels: {tier: db}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: broken, namespace: mon}
spec: {name: mysqld_exporter, config: "a: [unclosed"}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: scalar, namespace: mon}
spec: {name: mysqld_exporter, config: "just text"}
)");
  const auto& good = inv.metrics_integrations.at({"mon", "good"});
  CHECK(good.valid);
  CHECK(good.obj.type == model::IntegrationType::singleton);
  CHECK(good.obj.config == testutil::yaml("{data_source_name: 'root@(db:3306)/', extra_labels: {tier: db}}"));
  const auto& broken = inv.metrics_integrations.at({"mon", "broken"});
  CHECK(broken.valid);
  CHECK(broken.obj.config_error.starts_with("not valid YAML"));
  CHECK(inv.metrics_integrations.at({"mon", "scalar"}).obj.config_error == "must be a YAML mapping, got string");
}

TEST_CASE("IntegrationMonitor decode errors name the object and the field", "[decode][integrations]") {
  auto p = integration_problems(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: IntegrationMonitor
metadata: {name: im, namespace: mon}
spec:
  namespaceSelector: {any: 'yes'}
  interval: 30
  honorLabels: maybe
  sampleLimit: many
  relabelings: [{action: explode}]
  params: {module: http}
)");
  REQUIRE(p.size() == 7);
  CHECK(p[0] == "IntegrationMonitor mon/im: spec.honorLabels: expected boolean, got string");
  CHECK(p[1] == "IntegrationMonitor mon/im: spec.interval: expected string, got integer");
  CHECK(p[2] == "IntegrationMonitor mon/im: spec.namespaceSelector.any: expected boolean, got string");
  CHECK(p[3] == "IntegrationMonitor mon/im: spec.params.module: expected array, got string");
  CHECK(p[4] == "IntegrationMonitor mon/im: spec.relabelings[0].action: unknown relabel action \"explode\"");
  CHECK(p[5] == "IntegrationMonitor mon/im: spec.sampleLimit: expected integer, got string");
  CHECK(p[6] == "IntegrationMonitor mon/im: spec.selector: is required");
}

TEST_CASE("the new selectors of GrafanaAgent and MetricsInstance decode", "[decode][integrations]") {
  auto p = integration_problems(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: ga, namespace: mon}
spec: {metricsIntegrations: {selector: [], namespaceSelector: {matchLabels: {a: [1]}}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: mi, namespace: mon}
spec: {integrationMonitorSelector: {matchLabels: 3}, integrationMonitorNamespaceSelector: x}
)");
  REQUIRE(p.size() == 4);
  CHECK(p[0] ==
        "GrafanaAgent mon/ga: spec.metricsIntegrations.namespaceSelector.matchLabels.a: expected string, got "
        "array");
  CHECK(p[1] == "GrafanaAgent mon/ga: spec.metricsIntegrations.selector: expected object, got array");
  CHECK(p[2] == "MetricsInstance mon/mi: spec.integrationMonitorNamespaceSelector: expected object, got string");
  CHECK(p[3] == "MetricsInstance mon/mi: spec.integrationMonitorSelector.matchLabels: expected object, got integer");
}
