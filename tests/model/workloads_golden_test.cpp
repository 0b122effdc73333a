// Whole objects, compared with tests/golden/workloads/<case>.yaml
// (regenerate with UPDATE_GOLDEN=1 and review the diff). Objects are built
// with the workload functions directly, so config rendering changes made
// elsewhere never touch these files.
#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "model/render.hpp"
#include "model/workloads.hpp"
#include "test_render.hpp"

namespace {

using model::Value;
using testutil::only_agent;

void check(const std::string& name, const std::vector<Value>& objects) {
  testutil::check_golden("workloads", name + ".yaml", model::to_yaml_stream(objects));
}

}  // namespace

TEST_CASE("golden: minimal agent", "[workloads]") {
  auto inv = testutil::inventory_from_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: minimal, namespace: mon, uid: 0000-1111}
spec: {metrics: {}}
)");
  const auto& agent = only_agent(inv);
  model::RenderOptions opts;
  std::vector<Value> objects{model::make_config_secret(agent, "minimal-config", "server:\n  log_level: info\n", opts),
                             model::make_assets_secret(agent, {}, opts), model::make_governing_service(agent, opts)};
  for (auto& ss : model::make_metrics_statefulsets(agent, opts)) objects.push_back(std::move(ss));
  check("minimal", objects);
}

TEST_CASE("golden: volumeClaimTemplate storage with two shards", "[workloads]") {
  auto inv = testutil::inventory_from_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: sharded, namespace: mon, annotations: {owner: team-a, kubectl.kubernetes.io/last-applied-configuration: '{}'}}
spec:
  version: v0.40.3
  serviceAccountName: agent
  resources: {requests: {memory: 2Gi}}
  podMetadata: {labels: {team: a}, annotations: {scrape: 'false'}}
  storage:
    volumeClaimTemplate:
      spec:
        storageClassName: fast
        resources: {requests: {storage: 10Gi}}
  metrics: {shards: 2, replicas: 2}
)");
  model::RenderOptions opts;
  opts.operator_labels = {{"env", "prod"}};
  check("storage-shards", model::make_metrics_statefulsets(only_agent(inv), opts));
}

TEST_CASE("golden: logs DaemonSet", "[workloads]") {
  auto inv = testutil::inventory_from_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: logs, namespace: mon}
spec:
  secrets: [tls-certs]
  tolerations: [{operator: Exists}]
  containers: [{name: grafana-agent, env: [{name: GOMAXPROCS, value: '2'}]}]
  logs: {}
)");
  const auto& agent = only_agent(inv);
  model::RenderOptions opts;
  check("logs", {model::make_config_secret(agent, "logs-logs-config", "logs:\n  configs: []\n", opts),
                 model::make_logs_daemonset(agent, opts)});
}

TEST_CASE("golden: integrations DaemonSet and Deployment with secrets", "[workloads]") {
  auto inv = testutil::inventory_from_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: ga, namespace: mon}
spec: {integrations: {selector: {}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: node-exporter, namespace: mon}
spec:
  name: node_exporter
  type: {allNodes: true, unique: true}
  config: {rootfs_path: /host/root}
  volumes: [{name: root, hostPath: {path: /}}]
  volumeMounts: [{name: root, mountPath: /host/root, readOnly: true, mountPropagation: HostToContainer}]
  secrets: [{name: node-tls, key: ca.crt}]
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: redis, namespace: mon}
spec:
  name: redis_exporter
  config: {redis_addr: 'redis:6379'}
  configMaps: [{name: redis-conf, key: password-file}]
)");
  const auto& agent = only_agent(inv);
  std::vector<model::IntegrationView> ds{model::view_of(inv.integrations.at({"mon", "node-exporter"}).obj)};
  std::vector<model::IntegrationView> deploy{model::view_of(inv.integrations.at({"mon", "redis"}).obj)};
  std::map<std::string, std::string> assets{{"/secrets/mon/node-tls/ca.crt", "CA"},
                                            {"/configMaps/mon/redis-conf/password-file", "/run/pw"}};
  model::RenderOptions opts;
  check("integrations", {model::make_assets_secret(agent, assets, opts),
                         model::make_config_secret(agent, "ga-integrations-ds-config", "integrations: {}\n", opts),
                         model::make_integrations_workload(agent, ds, true, opts),
                         model::make_config_secret(agent, "ga-integrations-deploy-config", "integrations: {}\n", opts),
                         model::make_integrations_workload(agent, deploy, false, opts)});
}
