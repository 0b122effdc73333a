#include <catch2/catch.hpp>

#include <algorithm>

#include "golden_util.hpp"

namespace {

std::vector<std::string> problems(const std::string& yaml) {
  auto inv = testutil::inventory_from_yaml(yaml);
  std::vector<std::string> out;
  for (const auto& p : inv.problems()) out.push_back(p.str());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("wrong types name the object and the field path", "[decode]") {
  auto p = problems(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: ga, namespace: mon}
spec:
  metrics: {shards: three, externalLabels: {a: [1]}}
  secrets: x
)");
  REQUIRE(p.size() == 3);
  CHECK(p[0] == "GrafanaAgent mon/ga: spec.metrics.externalLabels.a: expected string, got array");
  CHECK(p[1] == "GrafanaAgent mon/ga: spec.metrics.shards: expected integer, got string");
  CHECK(p[2] == "GrafanaAgent mon/ga: spec.secrets: expected array, got string");
}

TEST_CASE("bad regexes and relabel actions are rejected like Prometheus does", "[decode]") {
  auto p = problems(R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: sm, namespace: app}
spec:
  selector: {}
  endpoints:
  - port: web
    relabelings:
    - {sourceLabels: [a], regex: '(unclosed', targetLabel: b}
    - {action: hashmod, sourceLabels: [a], targetLabel: t}
    - {action: explode}
    metricRelabelings:
    - {action: replace, sourceLabels: [a]}
)");
  REQUIRE(p.size() == 4);
  CHECK(p[0] ==
        "ServiceMonitor app/sm: spec.endpoints[0].metricRelabelings[0].targetLabel: is required for action replace");
  CHECK(p[1].starts_with("ServiceMonitor app/sm: spec.endpoints[0].relabelings[0].regex: invalid regular expression"));
  CHECK(
      p[2] ==
      "ServiceMonitor app/sm: spec.endpoints[0].relabelings[1].modulus: must be a positive integer for action hashmod");
  CHECK(p[3] == "ServiceMonitor app/sm: spec.endpoints[0].relabelings[2].action: unknown relabel action \"explode\"");
}

TEST_CASE("unknown fields are tolerated and pass-through fields stay raw", "[decode]") {
  auto inv = testutil::inventory_from_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: ga}
spec:
  someFutureField: {x: 1}
  resources: {limits: {cpu: 500m}}
  tolerations: [{key: k, operator: Exists}]
)");
  CHECK(inv.problems().empty());
  const auto& ga = inv.agents.at({"default", "ga"}).obj;  // missing namespace defaults to "default"
  REQUIRE(ga.resources);
  CHECK(ga.resources->find("limits")->find("cpu")->as_string() == "500m");
  REQUIRE(ga.tolerations);
  CHECK(ga.tolerations->size() == 1);
  CHECK(ga.port_name == "http-metrics");
}

TEST_CASE("Secrets decode base64 and stringData - ConfigMaps merge binaryData", "[decode]") {
  auto inv = testutil::inventory_from_yaml(R"(
apiVersion: v1
kind: Secret
metadata: {name: s, namespace: a}
data: {user: dXNlcg==, bad: '!!!'}
stringData: {token: plain}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: a}
data: {k: v}
binaryData: {k: eA==, b: eQ==}
)");
  const auto& s = inv.secrets.at({"a", "s"});
  CHECK(s.data.at("user") == "user");
  CHECK(s.data.at("token") == "plain");
  CHECK(s.data.count("bad") == 0);
  REQUIRE(inv.problems().size() == 1);
  CHECK(inv.problems()[0].str() == "Secret a/s: data.bad: is not valid base64");
  const auto& c = inv.config_maps.at({"a", "c"});
  CHECK(c.data.at("k") == "v");
  CHECK(c.data.at("b") == "y");
}

TEST_CASE("Lists are expanded and foreign kinds ignored", "[decode]") {
  auto inv = testutil::inventory_from_yaml(R"(
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: x, labels: {a: b}}}
- {apiVersion: v1, kind: ServiceAccount, metadata: {name: sa}}
- {apiVersion: other.example/v1, kind: Probe, metadata: {name: p}}
)");
  CHECK(inv.namespaces.size() == 1);
  CHECK(inv.probes.empty());
  CHECK(inv.ignored() == 2);
}
