// The integrations DaemonSet and Deployment: distinct selectors (the fix for
// upstream issue #6857) and upstream's identical ones in compat mode, the
// merged pod options, prefixed volumes and projected Secret keys.
#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "model/workload_options.hpp"
#include "model/workloads.hpp"

namespace {

using model::Value;
using testutil::at;
using testutil::names;

const char* kWorkloadsInput = R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: ga, namespace: mon}
spec:
  storage: {volumeClaimTemplate: {metadata: {name: persistent}, spec: {resources: {requests: {storage: 1Gi}}}}}
  integrations: {selector: {}, namespaceSelector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: node, namespace: mon}
spec:
  name: node_exporter
  type: {allNodes: true}
  config: {}
  volumes: [{name: proc, hostPath: {path: /proc}}]
  volumeMounts: [{name: proc, mountPath: /host/proc, readOnly: true}]
  secrets: [{name: s, key: token}]
  configMaps: [{name: cm, key: conf}]
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: node2, namespace: other}
spec:
  name: node_exporter
  type: {allNodes: true}
  config: {}
  secrets: [{name: s, key: token}, {name: s, key: token}, {name: maybe, key: k, optional: true}]
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: redis, namespace: mon}
spec: {name: redis_exporter, config: {}}
---
apiVersion: v1
kind: Secret
metadata: {name: s, namespace: mon}
stringData: {token: t}
---
apiVersion: v1
kind: Secret
metadata: {name: s, namespace: other}
stringData: {token: t2}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm, namespace: mon}
data: {conf: c}
)";

// The input's agent and its integrations split by allNodes, in
// namespace/name order. Not copyable: it points into its own inventory.
struct Loaded {
  Loaded() : inv(testutil::inventory_from_yaml(kWorkloadsInput)), agent(&inv.agents.at({"mon", "ga"}).obj) {
    for (const auto& [key, entry] : inv.integrations)
      (entry.obj.all_nodes ? ds : deploy).push_back(model::view_of(entry.obj));
    REQUIRE(ds.size() == 2);
    REQUIRE(deploy.size() == 1);
  }
  Loaded(const Loaded&) = delete;
  Loaded& operator=(const Loaded&) = delete;

  model::Inventory inv;
  const model::GrafanaAgent* agent;
  std::vector<model::IntegrationView> ds, deploy;
};

bool selects(const Value& selector, const Value& labels) {
  for (const auto& [k, v] : selector.as_object())
    if (!labels.find(k) || *labels.find(k) != v) return false;
  return true;
}

}  // namespace

TEST_CASE("integrations DaemonSet and Deployment select only their own pods", "[workloads]") {
  Loaded r;
  model::RenderOptions opts;
  Value ds = model::make_integrations_workload(*r.agent, r.ds, true, opts);
  Value deploy = model::make_integrations_workload(*r.agent, r.deploy, false, opts);
  const Value& ds_sel = at(ds, "spec.selector.matchLabels");
  const Value& deploy_sel = at(deploy, "spec.selector.matchLabels");
  CHECK(ds_sel.find(model::kIntegrationsModeLabel)->as_string() == "daemonset");
  CHECK(deploy_sel.find(model::kIntegrationsModeLabel)->as_string() == "deployment");
  CHECK(at(ds, "metadata.labels").find(model::kIntegrationsModeLabel)->as_string() == "daemonset");
  CHECK(selects(ds_sel, at(ds, "spec.template.metadata.labels")));
  CHECK(selects(deploy_sel, at(deploy, "spec.template.metadata.labels")));
  CHECK(!selects(ds_sel, at(deploy, "spec.template.metadata.labels")));
  CHECK(!selects(deploy_sel, at(ds, "spec.template.metadata.labels")));
}

TEST_CASE("upstream_compat reproduces the identical integrations selectors", "[workloads]") {
  Loaded r;
  model::RenderOptions opts;
  opts.upstream_compat = true;
  Value ds = model::make_integrations_workload(*r.agent, r.ds, true, opts);
  Value deploy = model::make_integrations_workload(*r.agent, r.deploy, false, opts);
  CHECK(at(ds, "spec.selector") == at(deploy, "spec.selector"));
  CHECK(!at(ds, "spec.selector.matchLabels").find(model::kIntegrationsModeLabel));
  CHECK(at(ds, "spec.selector.matchLabels").find("operator.agent.grafana.com/type")->as_string() == "integrations");
  CHECK(at(ds, "spec.selector.matchLabels").find("operator.agent.grafana.com/shard")->as_string() == "0");
}

TEST_CASE("integrations DaemonSet pod: merged extras prefixed volumes projected keys", "[workloads]") {
  Loaded r;
  Value ds = model::make_integrations_workload(*r.agent, r.ds, true, model::RenderOptions{});
  CHECK(at(ds, "kind").as_string() == "DaemonSet");
  CHECK(at(ds, "metadata.name").as_string() == "ga-integrations-ds");
  CHECK(at(ds, "spec.updateStrategy") == Value::obj({{"type", "RollingUpdate"}}));
  CHECK(!at(ds, "spec").find("volumeClaimTemplates"));
  const Value& pod = at(ds, "spec.template.spec");
  CHECK(names(at(pod, "volumes")) == std::vector<std::string>{"config", "config-out", "secrets", "mon-node-proc",
                                                              "ga-integrations-secrets", "ga-integrations-ds-wal",
                                                              "varlog", "dockerlogs"});
  CHECK(at(pod, "volumes[0].secret.secretName").as_string() == "ga-integrations-ds-config");
  CHECK(at(pod, "volumes[3].hostPath.path").as_string() == "/proc");
  CHECK(
      at(pod, "volumes[4].secret") ==
      Value::obj({{"secretName", "ga-secrets"},
                  {"optional", true},
                  {"items",
                   Value::arr({Value::obj({{"key", "_secrets_mon_s_token"}, {"path", "secrets/mon/s/token"}}),
                               Value::obj({{"key", "_configMaps_mon_cm_conf"}, {"path", "configMaps/mon/cm/conf"}}),
                               Value::obj({{"key", "_secrets_other_s_token"}, {"path", "secrets/other/s/token"}}),
                               Value::obj({{"key", "_secrets_other_maybe_k"}, {"path", "secrets/other/maybe/k"}})})}}));
  CHECK(at(pod, "volumes[5].emptyDir") == Value::object());
  const Value& agent = at(pod, "containers[1]");
  CHECK(at(agent, "volumeMounts[3]") ==
        Value::obj({{"name", "mon-node-proc"}, {"mountPath", "/host/proc"}, {"readOnly", true}}));
  CHECK(at(agent, "volumeMounts[4]") == Value::obj({{"name", "ga-integrations-secrets"},
                                                    {"mountPath", "/etc/grafana-agent/integrations"},
                                                    {"readOnly", true}}));
  CHECK(at(agent, "volumeMounts[5]") ==
        Value::obj({{"name", "ga-integrations-ds-wal"}, {"mountPath", "/var/lib/grafana-agent/data"}}));
  CHECK(at(agent, "volumeMounts").size() == 8);
  CHECK(names(at(agent, "env")) ==
        std::vector<std::string>{"POD_NAME", "AGENT_DEPLOY_MODE", "SHARD", "SHARDS", "HOSTNAME"});
  // Upstream never makes integration pods privileged (a named constant).
  CHECK(at(agent, "securityContext") == Value::obj({{"privileged", model::kIntegrationsDaemonSetPrivileged}}));
  CHECK_FALSE(model::kIntegrationsDaemonSetPrivileged);
}

TEST_CASE("integrations Deployment: no projected volume without references", "[workloads]") {
  Loaded r;
  Value deploy = model::make_integrations_workload(*r.agent, r.deploy, false, model::RenderOptions{});
  CHECK(at(deploy, "kind").as_string() == "Deployment");
  CHECK(at(deploy, "metadata.name").as_string() == "ga-integrations-deploy");
  CHECK(at(deploy, "spec.strategy") == Value::obj({{"type", "RollingUpdate"}}));
  CHECK(!at(deploy, "spec").find("replicas"));
  const Value& pod = at(deploy, "spec.template.spec");
  CHECK(names(at(pod, "volumes")) == std::vector<std::string>{"config", "config-out", "secrets",
                                                              "ga-integrations-deploy-wal", "varlog", "dockerlogs"});
  CHECK(at(pod, "volumes[0].secret.secretName").as_string() == "ga-integrations-deploy-config");
  CHECK(at(pod, "containers[1].securityContext") == Value::obj({{"privileged", false}}));
}

TEST_CASE("pod option merge: first mount path volume and env name win", "[workloads]") {
  model::PodTemplateOptions first, second;
  first.extra_selector_labels = {{"k", "first"}};
  first.extra_volume_mounts = {model::volume_mount("a", "/p", false)};
  first.extra_volumes = {model::empty_dir_volume("a")};
  first.extra_env = {model::env_var("E", "1")};
  second.extra_selector_labels = {{"k", "second"}, {"other", "x"}};
  second.extra_volume_mounts = {model::volume_mount("b", "/p", true), model::volume_mount("c", "/q", false)};
  second.extra_volumes = {model::host_path_volume("b", "/host"), model::host_path_volume("c", "/c"),
                          model::host_path_volume("a", "/dup")};
  second.extra_env = {model::env_var("E", "2"), model::env_var("F", "3")};
  second.privileged = true;
  auto merged = model::merge_pod_options({&first, &second});
  CHECK(merged.extra_selector_labels == model::Labels{{"k", "first"}, {"other", "x"}});
  CHECK(merged.extra_volume_mounts ==
        std::vector<Value>{model::volume_mount("a", "/p", false), model::volume_mount("c", "/q", false)});
  CHECK(merged.extra_volumes == std::vector<Value>{model::empty_dir_volume("a"), model::host_path_volume("c", "/c")});
  CHECK(merged.extra_env == std::vector<Value>{model::env_var("E", "1"), model::env_var("F", "3")});
  CHECK_FALSE(merged.privileged);
}
