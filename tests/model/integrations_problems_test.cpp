// Problems of the integrations of one GrafanaAgent: a second daemonset or
// singleton of one name (the first in namespace/name order is kept), an
// unparsable spec.config, a missing Secret or ConfigMap. Each leaves only
// that integration out; the rest of the hierarchy renders. The problem
// texts are a golden file (tests/golden/integrations/problems.txt).
#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "test_render.hpp"

namespace {

using model::Value;
using testutil::at;

const std::string kInput = R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: ga, namespace: mon}
spec:
  metrics: {instanceSelector: {}}
  integrations: {selector: {}}
  metricsIntegrations: {selector: {}, namespaceSelector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: mon}
spec: {}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: node-a, namespace: mon}
spec: {name: node_exporter, type: daemonset}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: node-b, namespace: mon}
spec: {name: node_exporter, type: daemonset}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: bb-1, namespace: other}
spec: {name: blackbox, type: singleton}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: bb-2, namespace: other}
spec: {name: blackbox, type: singleton}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: broken, namespace: mon}
spec: {name: mysqld_exporter, config: "data_source_name: [unclosed"}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: no-secret, namespace: mon}
spec: {name: mysqld_exporter, secrets: [{name: gone, key: dsn}], config: "data_source_name_file: /x"}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: no-cm, namespace: mon}
spec: {name: redis_exporter, configMaps: [{name: gone, key: conf}]}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: fine, namespace: mon}
spec: {name: mysqld_exporter, config: "data_source_name: 'u@(db:3306)/'"}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: node-exporter, namespace: mon}
spec: {name: node_exporter, type: {allNodes: true, unique: true}, config: {}}
)";

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

}  // namespace

TEST_CASE("integration problems leave out one integration each and the rest renders", "[integrations]") {
  model::AgentRender r = testutil::render_only_agent(testutil::valid_inventory(kInput));
  testutil::check_golden("integrations", "problems.txt", joined(testutil::problem_texts(r.problems)));
  CHECK(r.problems.size() == 6);
  // The survivors: one node_exporter (mon/node-a sorts before the
  // Integration mon/node-exporter, which is rejected across kinds), one
  // blackbox, one mysqld_exporter.
  const Value& ds = at(r.configs.at("ga-integrations-ds-config"), "integrations");
  REQUIRE(at(ds, "node_exporter_configs").size() == 1);
  CHECK(at(ds, "node_exporter_configs[0].extra_labels.__meta_agentoperator_integration_cr_name") == Value("node-a"));
  const Value& deploy = at(r.configs.at("ga-integrations-deploy-config"), "integrations");
  CHECK(at(deploy, "blackbox_configs").size() == 1);
  CHECK(at(deploy, "blackbox_configs[0].extra_labels.__meta_agentoperator_integration_cr_name") == Value("bb-1"));
  REQUIRE(at(deploy, "mysqld_exporter_configs").size() == 1);
  CHECK(at(deploy, "mysqld_exporter_configs[0].data_source_name") == Value("u@(db:3306)/"));
  CHECK_FALSE(deploy.find("redis_exporter_configs"));
  CHECK(r.configs.count("ga-config") == 1);  // the metrics side is untouched
}

TEST_CASE("upstream_compat keeps duplicate daemonsets and singletons as upstream would", "[integrations]") {
  model::AgentRender r = testutil::render_only_agent(testutil::valid_inventory(kInput), true);
  // Only the config and reference problems remain.
  CHECK(r.problems.size() == 3);
  CHECK(at(r.configs.at("ga-integrations-ds-config"), "integrations.node_exporter_configs").size() == 3);
}
