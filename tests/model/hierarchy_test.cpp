#include <catch2/catch.hpp>

#include <algorithm>

#include "golden_util.hpp"
#include "model/hierarchy.hpp"

namespace {

const char* kTwoAgents = R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: b-agent, namespace: mon}
spec:
  metrics: {instanceSelector: {matchLabels: {agent: shared}}}
  logs: {instanceSelector: {matchLabels: {agent: shared}}}
  integrations: {selector: {matchLabels: {agent: shared}}, namespaceSelector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: a-agent, namespace: mon}
spec:
  metrics: {instanceSelector: {matchLabels: {agent: shared}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: mon, labels: {agent: shared}}
spec:
  serviceMonitorSelector: {matchLabels: {team: x}}
  serviceMonitorNamespaceSelector: {}
  podMonitorSelector: {}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: elsewhere, namespace: other, labels: {agent: shared}}
spec: {}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: zz, namespace: app, labels: {team: x}}
spec: {selector: {}, endpoints: [{port: m}]}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: aa, namespace: app, labels: {team: x}}
spec: {selector: {}, endpoints: [{port: m}]}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: bad, namespace: app, labels: {team: x}}
spec: {selector: {}, endpoints: [{port: 9}]}
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: in-own-ns, namespace: mon}
spec: {selector: {}}
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: other-ns, namespace: app}
spec: {selector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: logs, namespace: mon, labels: {agent: shared}}
spec: {podLogsSelector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: PodLogs
metadata: {name: web, namespace: mon}
spec: {selector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: node, namespace: infra, labels: {agent: shared}}
spec: {name: node_exporter, config: {}}
)";

std::vector<std::string> names(const auto& list) {
  std::vector<std::string> out;
  for (const auto& o : list) out.push_back(model::ns_of(o) + "/" + model::name_of(o));
  return out;
}

}  // namespace

TEST_CASE("hierarchy follows selectors and is sorted", "[hierarchy]") {
  auto inv = testutil::inventory_from_yaml(kTwoAgents);
  const auto& agent = inv.agents.at({"mon", "b-agent"}).obj;
  auto h = model::build_hierarchy(inv, agent);
  REQUIRE(h.metrics.size() == 1);  // nil instanceNamespaceSelector: own namespace only
  CHECK(h.metrics[0].instance->meta.name == "primary");
  CHECK(names(h.metrics[0].service_monitors) == std::vector<std::string>{"app/aa", "app/zz"});
  CHECK(names(h.metrics[0].pod_monitors) == std::vector<std::string>{"mon/in-own-ns"});
  CHECK(h.metrics[0].probes.empty());  // nil probeSelector selects nothing
  REQUIRE(h.logs.size() == 1);
  CHECK(names(h.logs[0].pod_logs) == std::vector<std::string>{"mon/web"});
  CHECK(names(h.integrations) == std::vector<std::string>{"infra/node"});
}

TEST_CASE("one resource sits in several hierarchies", "[hierarchy]") {
  auto inv = testutil::inventory_from_yaml(kTwoAgents);
  auto a = model::build_hierarchy(inv, inv.agents.at({"mon", "a-agent"}).obj);
  auto b = model::build_hierarchy(inv, inv.agents.at({"mon", "b-agent"}).obj);
  REQUIRE(a.metrics.size() == 1);
  REQUIRE(b.metrics.size() == 1);
  CHECK(a.metrics[0].instance == b.metrics[0].instance);
  CHECK(a.logs.empty());  // a-agent has no logs selector
}

TEST_CASE("an invalid member is skipped and its problem names the field", "[hierarchy]") {
  auto inv = testutil::inventory_from_yaml(kTwoAgents);
  REQUIRE(inv.problems().size() == 1);
  CHECK(inv.problems()[0].str() == "ServiceMonitor app/bad: spec.endpoints[0].port: expected string, got integer");
  auto explained = model::explain_hierarchy(inv, inv.agents.at({"mon", "b-agent"}).obj);
  CHECK(std::find(explained.begin(), explained.end(),
                  "ServiceMonitor app/bad: out: selected by MetricsInstance mon/primary but invalid") !=
        explained.end());
  CHECK(std::find(explained.begin(), explained.end(),
                  "MetricsInstance other/elsewhere: out: namespace not selected by GrafanaAgent mon/b-agent") !=
        explained.end());
}

TEST_CASE("upstream's resource hierarchy test data", "[hierarchy][golden]") {
  auto inv = testutil::inventory_from_yaml(
      testutil::read_text(testutil::reference_path("golden/agent-operator/test-resource-hierarchy.yaml")));
  CHECK(inv.problems().empty());
  const auto& agent = inv.agents.at({"default", "grafana-agent-example"}).obj;
  auto h = model::build_hierarchy(inv, agent);
  REQUIRE(h.metrics.size() == 1);
  CHECK(h.metrics[0].instance->meta.name == "primary");
  CHECK(names(h.metrics[0].pod_monitors) == std::vector<std::string>{"default/grafana-agents"});
  CHECK(h.metrics[0].service_monitors.empty());
  CHECK(h.metrics[0].probes.empty());  // nil probeSelector: labels.Nothing()
  REQUIRE(h.logs.size() == 1);
  CHECK(names(h.logs[0].pod_logs) == std::vector<std::string>{"default/grafana-agents"});
  CHECK(names(h.integrations) == std::vector<std::string>{"default/node-exporter"});
}

TEST_CASE("MetricsIntegrations and IntegrationMonitors follow the nil and empty selector rules",
          "[hierarchy][integrations]") {
  auto inv = testutil::inventory_from_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: ga, namespace: mon}
spec:
  metrics: {instanceSelector: {}}
  metricsIntegrations: {selector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: none, namespace: mon}
spec: {metrics: {instanceSelector: {}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: mi, namespace: mon}
spec: {integrationMonitorSelector: {}, integrationMonitorNamespaceSelector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: here, namespace: mon}
spec: {name: a}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: elsewhere, namespace: other}
spec: {name: a}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: IntegrationMonitor
metadata: {name: im, namespace: other}
spec: {selector: {}}
)");
  model::Hierarchy h = model::build_hierarchy(inv, inv.agents.at({"mon", "ga"}).obj);
  // nil namespaceSelector: the agent's namespace only.
  REQUIRE(h.metrics_integrations.size() == 1);
  CHECK(h.metrics_integrations[0]->meta.name == "here");
  REQUIRE(h.metrics.size() == 1);
  REQUIRE(h.metrics[0].integration_monitors.size() == 1);  // {} namespace selector: every namespace
  // nil selector: none.
  CHECK(model::build_hierarchy(inv, inv.agents.at({"mon", "none"}).obj).metrics_integrations.empty());
  auto why = model::explain_hierarchy(inv, inv.agents.at({"mon", "ga"}).obj);
  CHECK(std::find(why.begin(), why.end(),
                  "MetricsIntegration other/elsewhere: out: namespace not selected by "
                  "GrafanaAgent mon/ga") != why.end());
}
