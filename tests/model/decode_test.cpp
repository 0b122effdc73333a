#include <catch2/catch.hpp>

#include <algorithm>

#include "golden_util.hpp"

namespace {

std::vector<std::string> problems(const std::string& yaml) {
  return testutil::inventory_problems(yaml);
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
  const model::Secret& s = *inv.secrets.at({"a", "s"}).decoded;
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

TEST_CASE("metrics shards and replicas are capped at decode time", "[decode]") {
  auto agent = [](const std::string& metrics) {
    return "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: ga, namespace: mon}\n"
           "spec:\n  metrics: " +
           metrics + "\n";
  };
  CHECK(problems(agent("{shards: 1000, replicas: 10000}")).empty());
  CHECK(problems(agent("{shards: -5, replicas: -1}")).empty());  // <=1 shard means 1, negative replicas 0
  auto p = problems(agent("{shards: 1001, replicas: 10001}"));
  REQUIRE(p.size() == 2);
  CHECK(p[0] == "GrafanaAgent mon/ga: spec.metrics.replicas: must be at most 10000, got 10001");
  CHECK(p[1] == "GrafanaAgent mon/ga: spec.metrics.shards: must be at most 1000, got 1001");
  p = problems(agent("{shards: 2000000000}"));
  REQUIRE(p.size() == 1);
  CHECK(p[0] == "GrafanaAgent mon/ga: spec.metrics.shards: must be at most 1000, got 2000000000");
}

TEST_CASE("out-of-range integers are not called fractions", "[decode]") {
  auto p = problems(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: ga, namespace: mon}
spec:
  metrics: {shards: 1.0e30, replicas: 1.5}
)");
  REQUIRE(p.size() == 2);
  CHECK(p[0] == "GrafanaAgent mon/ga: spec.metrics.replicas: expected integer, got a fraction");
  CHECK(p[1] == "GrafanaAgent mon/ga: spec.metrics.shards: integer out of range");
}

TEST_CASE("regex errors quote the pattern as written", "[decode]") {
  auto p = problems(R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: sm, namespace: app}
spec:
  selector: {}
  endpoints:
  - port: web
    relabelings: [{sourceLabels: [a], regex: '(unclosed', targetLabel: b}]
)");
  REQUIRE(p.size() == 1);
  CHECK(
      p[0].starts_with("ServiceMonitor app/sm: spec.endpoints[0].relabelings[0].regex: invalid regular expression "
                       "\"(unclosed\": "));
  CHECK(p[0].find("^(?:") == std::string::npos);
  CHECK(p[0].find("(unclosed", p[0].find("\": ")) != std::string::npos);
}

TEST_CASE("mutually exclusive auth fields reject the member", "[decode]") {
  auto sm = problems(R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: sm, namespace: app}
spec:
  selector: {}
  endpoints:
  - port: web
    basicAuth: {username: {name: s, key: u}, password: {name: s, key: p}}
    bearerTokenFile: /var/run/token
  - port: web
    bearerTokenSecret: {name: s, key: t}
    bearerTokenFile: /var/run/token
  - port: web
    bearerTokenFile: /var/run/token
)");
  REQUIRE(sm.size() == 2);
  CHECK(sm[0] ==
        "ServiceMonitor app/sm: spec.endpoints[0].bearerTokenFile: basicAuth and bearerTokenFile are mutually "
        "exclusive: at most one of basicAuth, oauth2, authorization, bearerTokenSecret and bearerTokenFile may be set");
  CHECK(sm[1].starts_with(
      "ServiceMonitor app/sm: spec.endpoints[1].bearerTokenFile: bearerTokenSecret and bearerTokenFile are mutually "
      "exclusive"));

  auto mi = problems(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: mi, namespace: mon}
spec:
  remoteWrite:
  - url: http://a
    basicAuth: {username: {name: s, key: u}}
    bearerToken: tok
  - url: http://b
    oauth2: {clientId: {secret: {name: s, key: id}}, clientSecret: {name: s, key: cs}, tokenUrl: http://t}
    sigv4: {region: eu}
  - url: http://c
    bearerTokenFile: /f
    sigv4: {region: eu}
  - url: http://d
    bearerToken: tok
    bearerTokenFile: /f
)");
  REQUIRE(mi.size() == 3);
  CHECK(mi[0] ==
        "MetricsInstance mon/mi: spec.remoteWrite[0].bearerToken: basicAuth and bearerToken are mutually "
        "exclusive: at most one of basicAuth, oauth2, bearerToken and sigv4 may be set");
  CHECK(
      mi[1].starts_with("MetricsInstance mon/mi: spec.remoteWrite[1].sigv4: oauth2 and sigv4 are mutually exclusive"));
  CHECK(mi[2].starts_with(
      "MetricsInstance mon/mi: spec.remoteWrite[2].sigv4: bearerTokenFile and sigv4 are mutually exclusive"));

  auto li = problems(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: li, namespace: mon}
spec:
  clients:
  - url: http://a
    basicAuth: {username: {name: s, key: u}}
    bearerTokenFile: /f
  - url: http://b
    bearerToken: tok
    bearerTokenFile: /f
  - url: http://c
    oauth2: {clientId: {secret: {name: s, key: id}}, clientSecret: {name: s, key: cs}, tokenUrl: http://t}
    bearerToken: tok
)");
  REQUIRE(li.size() == 3);
  CHECK(li[0] ==
        "LogsInstance mon/li: spec.clients[0].bearerTokenFile: basicAuth and bearerTokenFile are mutually "
        "exclusive: at most one of basicAuth, oauth2, bearerToken and bearerTokenFile may be set");
  CHECK(li[1].starts_with(
      "LogsInstance mon/li: spec.clients[1].bearerTokenFile: bearerToken and bearerTokenFile are mutually exclusive"));
  CHECK(li[2].starts_with(
      "LogsInstance mon/li: spec.clients[2].bearerToken: oauth2 and bearerToken are mutually exclusive"));

  auto probe = problems(R"(
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: p, namespace: app}
spec:
  prober: {url: blackbox:9115}
  targets: {staticConfig: {static: [a]}}
  basicAuth: {username: {name: s, key: u}}
  bearerTokenSecret: {name: s, key: t}
)");
  REQUIRE(probe.size() == 1);
  CHECK(probe[0].starts_with(
      "Probe app/p: spec.bearerTokenSecret: basicAuth and bearerTokenSecret are mutually exclusive"));
}

TEST_CASE("a SecretKeySelector without a name is no selector, as Go clients write them", "[decode]") {
  // prometheus-operator's Go types serialise an unset selector as {key: ""}.
  auto p = problems(R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: sm, namespace: app}
spec:
  selector: {}
  endpoints:
  - port: web
    bearerTokenSecret: {key: ""}
    authorization: {credentials: {name: s, key: t}}
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: pm, namespace: app}
spec:
  selector: {}
  podMetricsEndpoints:
  - port: web
    bearerTokenSecret: {key: ""}
    basicAuth: {username: {name: s, key: u}, password: {name: s, key: p}}
---
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: p, namespace: app}
spec:
  prober: {url: blackbox:9115}
  targets: {staticConfig: {static: [a]}}
  bearerTokenSecret: {key: ""}
  tlsConfig: {ca: {secret: {key: ""}, configMap: {name: ca, key: ca.crt}}}
)");
  CHECK(p.empty());
  // A named selector still needs its key.
  auto keyless = problems(R"(
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: p, namespace: app}
spec:
  prober: {url: blackbox:9115}
  targets: {staticConfig: {static: [a]}}
  bearerTokenSecret: {name: s, key: ""}
)");
  REQUIRE(keyless.size() == 1);
  CHECK(keyless[0] == "Probe app/p: spec.bearerTokenSecret.key: must not be empty");
}

TEST_CASE("ServiceMonitors and PodMonitors need a selector, as their CRDs require", "[decode]") {
  auto p = problems(R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: sm, namespace: app}
spec:
  endpoints: [{port: web}]
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: pm, namespace: app}
spec:
  podMetricsEndpoints: [{port: web}]
)");
  REQUIRE(p.size() == 2);
  CHECK(p[0] == "PodMonitor app/pm: spec.selector: is required");
  CHECK(p[1] == "ServiceMonitor app/sm: spec.selector: is required");
}

TEST_CASE("problems about unnamed objects still name the namespace", "[decode]") {
  auto p = problems(R"(
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {namespace: app}
spec: {selector: {}}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: Not_Valid}
spec: {selector: {}}
---
apiVersion: v1
kind: Namespace
metadata: {}
)");
  REQUIRE(p.size() == 3);
  CHECK(p[0] == "Namespace <unnamed>: metadata.name: is required");
  CHECK(p[1] == "PodMonitor app/<unnamed>: metadata.name: is required");
  CHECK(p[2] ==
        "ServiceMonitor default/<invalid>: metadata.name: \"Not_Valid\" is not a valid name (lowercase RFC 1123 "
        "subdomain)");
}

TEST_CASE("relabel target labels must be label names", "[decode]") {
  auto p = problems(R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: sm, namespace: app}
spec:
  selector: {}
  endpoints:
  - port: web
    relabelings:
    - {sourceLabels: [a], targetLabel: ok_label}
    - {sourceLabels: [a], targetLabel: $1}
    - {sourceLabels: [a], targetLabel: 'x_${1}_y', regex: '(.*)'}
    - {sourceLabels: [a], targetLabel: '${name}suffix'}
    - {sourceLabels: [a], targetLabel: bad-label}
    - {sourceLabels: [a], targetLabel: 1abc}
    - {sourceLabels: [a], targetLabel: '$', action: replace}
    - {sourceLabels: [a], targetLabel: 'bad.$1', action: replace}
    - {sourceLabels: [a], targetLabel: $1, action: lowercase}
    - {sourceLabels: [a], targetLabel: 'x-y', action: hashmod, modulus: 2}
    - {sourceLabels: [a], targetLabel: 'x y', action: uppercase}
    - {sourceLabels: [a], targetLabel: 'a:b', action: keepequal}
    - {sourceLabels: [a], targetLabel: 'a:b', action: dropequal}
    - {sourceLabels: [a], targetLabel: 'any-thing', action: drop}
)");
  std::vector<std::string> expected = {
      "ServiceMonitor app/sm: spec.endpoints[0].relabelings[10].targetLabel: \"x y\" is not a valid label name for "
      "action uppercase",
      "ServiceMonitor app/sm: spec.endpoints[0].relabelings[11].targetLabel: \"a:b\" is not a valid label name for "
      "action keepequal",
      "ServiceMonitor app/sm: spec.endpoints[0].relabelings[12].targetLabel: \"a:b\" is not a valid label name for "
      "action dropequal",
      "ServiceMonitor app/sm: spec.endpoints[0].relabelings[4].targetLabel: \"bad-label\" is not a valid label name "
      "(or $1 / ${name} template) for action replace",
      "ServiceMonitor app/sm: spec.endpoints[0].relabelings[5].targetLabel: \"1abc\" is not a valid label name (or "
      "$1 / ${name} template) for action replace",
      "ServiceMonitor app/sm: spec.endpoints[0].relabelings[6].targetLabel: \"$\" is not a valid label name (or $1 / "
      "${name} template) for action replace",
      "ServiceMonitor app/sm: spec.endpoints[0].relabelings[7].targetLabel: \"bad.$1\" is not a valid label name (or "
      "$1 / ${name} template) for action replace",
      "ServiceMonitor app/sm: spec.endpoints[0].relabelings[8].targetLabel: \"$1\" is not a valid label name for "
      "action lowercase",
      "ServiceMonitor app/sm: spec.endpoints[0].relabelings[9].targetLabel: \"x-y\" is not a valid label name for "
      "action hashmod",
  };
  CHECK(p == expected);
}

TEST_CASE("modulus must be positive on any relabel rule", "[decode]") {
  auto p = problems(R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: sm, namespace: app}
spec:
  selector: {}
  endpoints:
  - port: web
    relabelings:
    - {sourceLabels: [a], targetLabel: b, modulus: -3}
    - {sourceLabels: [a], targetLabel: b, modulus: 0, action: replace}
    - {sourceLabels: [a], action: keep, modulus: 7}
    - {sourceLabels: [a], targetLabel: b, action: hashmod, modulus: -1}
)");
  REQUIRE(p.size() == 3);
  CHECK(p[0] ==
        "ServiceMonitor app/sm: spec.endpoints[0].relabelings[0].modulus: must be a positive integer, got -3 "
        "(and is only used by hashmod)");
  CHECK(p[1] ==
        "ServiceMonitor app/sm: spec.endpoints[0].relabelings[1].modulus: must be a positive integer, got 0 "
        "(and is only used by hashmod)");
  CHECK(
      p[2] ==
      "ServiceMonitor app/sm: spec.endpoints[0].relabelings[3].modulus: must be a positive integer for action hashmod");
}

TEST_CASE("GrafanaAgent label name fields must be label names", "[decode]") {
  auto p = problems(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: ga, namespace: mon}
spec:
  metrics:
    externalLabels: {ok: a, bad-key: b, 9lives: c}
    metricsExternalLabelName: 'cluster.name'
    replicaExternalLabelName: 'my replica'
    enforcedNamespaceLabel: 'ns-key'
  logs:
    logsExternalLabelName: 'k8s/cluster'
    enforcedNamespaceLabel: 'a-b'
    clients:
    - url: http://loki
      externalLabels: {good_one: x, 'env-name': y}
)");
  std::vector<std::string> expected = {
      "GrafanaAgent mon/ga: spec.logs.clients[0].externalLabels.env-name: \"env-name\" is not a valid label name",
      "GrafanaAgent mon/ga: spec.logs.enforcedNamespaceLabel: \"a-b\" is not a valid label name",
      "GrafanaAgent mon/ga: spec.logs.logsExternalLabelName: \"k8s/cluster\" is not a valid label name",
      "GrafanaAgent mon/ga: spec.metrics.enforcedNamespaceLabel: \"ns-key\" is not a valid label name",
      "GrafanaAgent mon/ga: spec.metrics.externalLabels.9lives: \"9lives\" is not a valid label name",
      "GrafanaAgent mon/ga: spec.metrics.externalLabels.bad-key: \"bad-key\" is not a valid label name",
      "GrafanaAgent mon/ga: spec.metrics.metricsExternalLabelName: \"cluster.name\" is not a valid label name",
      "GrafanaAgent mon/ga: spec.metrics.replicaExternalLabelName: \"my replica\" is not a valid label name",
  };
  CHECK(p == expected);
  // "" disables the external labels; valid names pass.
  CHECK(problems(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: ga, namespace: mon}
spec:
  metrics: {metricsExternalLabelName: '', replicaExternalLabelName: '', enforcedNamespaceLabel: _ns}
  logs: {logsExternalLabelName: ''}
)")
            .empty());
  // A LogsInstance's client labels reject the member.
  auto li = problems(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: li, namespace: mon}
spec:
  clients: [{url: http://loki, externalLabels: {'a.b': c}}]
)");
  REQUIRE(li.size() == 1);
  CHECK(li[0] == "LogsInstance mon/li: spec.clients[0].externalLabels.a.b: \"a.b\" is not a valid label name");
}
