// Rendering of both integration kinds for one GrafanaAgent: the DaemonSet,
// the Deployment, their config Secrets and the integrations Service, with
// Integrations and MetricsIntegrations side by side (golden files under
// tests/golden/integrations/, regenerate with UPDATE_GOLDEN=1), the
// Service's contract, the target labels in each config block, and every
// Problem that leaves one integration out while the rest still renders.
#include <catch2/catch.hpp>

#include <algorithm>

#include "golden_util.hpp"
#include "model/integrations.hpp"
#include "model/yaml_emit.hpp"
#include "test_render.hpp"

namespace {

using model::Value;
using testutil::at;

const std::string kIntegrationsAgent = R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: ga, namespace: mon, uid: ga-uid}
spec:
  integrations: {selector: {}}
  metricsIntegrations: {selector: {matchLabels: {run: 'yes'}}, namespaceSelector: {}}
)";

const std::string kBoth = kIntegrationsAgent + R"(
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: redis, namespace: mon, labels: {app.kubernetes.io/name: redis}}
spec: {name: redis_exporter, config: {redis_addr: 'redis:6379'}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: process, namespace: mon}
spec: {name: process_exporter, type: {allNodes: true}, config: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: node, namespace: infra, labels: {run: 'yes', team.io/owner: platform}}
spec:
  name: node_exporter
  type: daemonset
  labels: {tier: host}
  config: |
    rootfs_path: /host/root
    autoscrape: {enable: true}
  volumes: [{name: root, hostPath: {path: /}}]
  volumeMounts: [{name: root, mountPath: /host/root, readOnly: true}]
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: mysql, namespace: shop, labels: {run: 'yes'}}
spec:
  name: mysqld_exporter
  secrets: [{name: dsn, key: dsn}]
  config: |
    data_source_name_file: /etc/grafana-agent/integrations/secrets/shop/dsn/dsn
    extra_labels: {db: cart, tier: user}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: blackbox, namespace: mon, labels: {run: 'yes'}}
spec: {name: blackbox, type: singleton}
---
apiVersion: v1
kind: Secret
metadata: {name: dsn, namespace: shop}
stringData: {dsn: 'u:p@(db:3306)/'}
)";

// The integrations objects of a render (and the assets Secret), then each
// integrations agent.yml as a document of its own.
std::string integrations_stream(const model::AgentRender& r) {
  std::vector<Value> objects;
  for (const Value& o : r.objects) {
    std::string name = at(o, "metadata.name").as_string();
    if (name.find("integrations") != std::string::npos || name == "ga-secrets") objects.push_back(o);
  }
  std::string out = model::to_yaml_stream(objects);
  for (const auto& [name, cfg] : r.configs)
    if (name.find("integrations") != std::string::npos) out += "--- # " + name + "\n" + model::to_yaml(cfg);
  return out;
}

const Value* find_object(const model::AgentRender& r, const std::string& kind, const std::string& name) {
  for (const Value& o : r.objects)
    if (at(o, "kind").as_string() == kind && at(o, "metadata.name").as_string() == name) return &o;
  return nullptr;
}

const Value& config_item(const model::AgentRender& r, const std::string& config, const std::string& list,
                         std::size_t i) {
  REQUIRE(r.configs.count(config) == 1);
  return at(r.configs.at(config), "integrations." + list + "[" + std::to_string(i) + "]");
}

}  // namespace

TEST_CASE("golden: Integrations and MetricsIntegrations in one hierarchy", "[integrations]") {
  auto inv = testutil::valid_inventory(kBoth);
  model::AgentRender r = testutil::render_only_agent(inv);
  CHECK(testutil::problem_texts(r.problems).empty());
  testutil::check_golden("integrations", "both_kinds.yaml", integrations_stream(r));
  model::AgentRender compat = testutil::render_only_agent(inv, true);
  CHECK(compat.problems.empty());
  testutil::check_golden("integrations", "both_kinds.compat.yaml", integrations_stream(compat));
}

TEST_CASE("the integrations Service keeps its contract", "[integrations]") {
  auto inv = testutil::valid_inventory(kBoth);
  model::RenderOptions opts;
  opts.operator_labels = {{"env", "prod"}};
  model::AgentRender r = model::render_agent(inv, testutil::only_agent(inv), opts);
  const Value* svc = find_object(r, "Service", "ga-integrations");
  REQUIRE(svc);
  CHECK(at(*svc, "metadata.namespace") == Value("mon"));
  CHECK(at(*svc, "metadata.labels") == testutil::yaml(R"({app.kubernetes.io/managed-by: grafana-agent-operator,
      operator.agent.grafana.com/name: ga, operator.agent.grafana.com/type: integrations, env: prod})"));
  Value selector = at(*svc, "spec.selector");
  CHECK(selector == testutil::yaml(R"({app.kubernetes.io/name: grafana-agent, operator.agent.grafana.com/name: ga,
      operator.agent.grafana.com/type: integrations})"));
  CHECK(at(*svc, "spec.ports") == testutil::yaml("[{name: http-metrics, port: 8080, targetPort: http-metrics}]"));
  CHECK(at(*svc, "metadata.ownerReferences[0]") ==
        testutil::yaml("{apiVersion: monitoring.grafana.com/v1alpha1, kind: GrafanaAgent, name: ga, uid: ga-uid, "
                       "blockOwnerDeletion: true, controller: true}"));
  // It selects the pods of both workloads.
  for (auto [kind, name] : {std::pair{"DaemonSet", "ga-integrations-ds"}, {"Deployment", "ga-integrations-deploy"}}) {
    const Value* w = find_object(r, kind, name);
    REQUIRE(w);
    const Value& labels = at(*w, "spec.template.metadata.labels");
    for (const auto& [k, v] : selector.as_object()) CHECK(*labels.find(k) == v);
  }
}

TEST_CASE("no integrations means no Service and upstream_compat never renders it", "[integrations]") {
  model::AgentRender none = testutil::render_only_agent(testutil::valid_inventory(kIntegrationsAgent));
  CHECK_FALSE(find_object(none, "Service", "ga-integrations"));
  model::AgentRender compat = testutil::render_only_agent(testutil::valid_inventory(kBoth), true);
  CHECK_FALSE(find_object(compat, "Service", "ga-integrations"));
  CHECK(find_object(compat, "DaemonSet", "ga-integrations-ds"));
}

TEST_CASE("every integration block carries the operator's target labels", "[integrations]") {
  model::AgentRender r = testutil::render_only_agent(testutil::valid_inventory(kBoth));
  const Value& node = config_item(r, "ga-integrations-ds-config", "node_exporter_configs", 0);
  CHECK(at(node, "extra_labels") == testutil::yaml(R"({
    __meta_agentoperator_integration_type: daemonset,
    __meta_agentoperator_integration_cr_namespace: infra,
    __meta_agentoperator_integration_cr_name: node,
    __meta_agentoperator_integration_cr_label_run: 'yes',
    __meta_agentoperator_integration_cr_labelpresent_run: 'true',
    __meta_agentoperator_integration_cr_label_team_io_owner: platform,
    __meta_agentoperator_integration_cr_labelpresent_team_io_owner: 'true',
    tier: host})"));
  CHECK(at(node, "autoscrape") == testutil::yaml("{enable: false}"));
  // The config's own extra_labels stay; spec.labels would win over them.
  const Value& mysql = config_item(r, "ga-integrations-deploy-config", "mysqld_exporter_configs", 0);
  CHECK(at(mysql, "extra_labels.db") == Value("cart"));
  CHECK(at(mysql, "extra_labels.__meta_agentoperator_integration_type") == Value("normal"));
  const Value& blackbox = config_item(r, "ga-integrations-deploy-config", "blackbox_configs", 0);
  CHECK(at(blackbox, "extra_labels.__meta_agentoperator_integration_type") == Value("singleton"));
  // Design 1: the type from allNodes/unique, the labels from the Integration.
  const Value& redis = config_item(r, "ga-integrations-deploy-config", "redis_exporter_configs", 0);
  CHECK(at(redis, "extra_labels.__meta_agentoperator_integration_type") == Value("normal"));
  CHECK(at(redis, "extra_labels.__meta_agentoperator_integration_cr_label_app_kubernetes_io_name") == Value("redis"));
  CHECK_FALSE(redis.find("autoscrape"));
  const Value& process = config_item(r, "ga-integrations-ds-config", "process_exporter_configs", 0);
  CHECK(at(process, "extra_labels.__meta_agentoperator_integration_type") == Value("daemonset"));
}
