// The shared pod template: containers, images, flags, pod-level fields,
// labels and annotations, extra mounts, container patches and the logs
// DaemonSet's extras.
#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "model/labels.hpp"
#include "model/strategic_merge.hpp"
#include "model/workloads.hpp"
#include "test_render.hpp"

namespace {

using model::Value;
using testutil::agent_from_spec;
using testutil::at;
using testutil::names;

Value shard0(const model::GrafanaAgent& agent, const model::RenderOptions& opts = {}) {
  return model::make_metrics_statefulsets(agent, opts).at(0);
}

}  // namespace

TEST_CASE("containers: reloader first agent second with upstream's args", "[workloads]") {
  model::RenderOptions opts;
  Value ss = shard0(agent_from_spec("  metrics: {}\n"), opts);
  const Value& reloader = at(ss, "spec.template.spec.containers[0]");
  const Value& agent = at(ss, "spec.template.spec.containers[1]");
  CHECK(at(reloader, "name").as_string() == "config-reloader");
  CHECK(at(reloader, "image").as_string() == opts.default_reloader_image);
  CHECK(at(reloader, "args") ==
        Value::arr({"--config-file=/var/lib/grafana-agent/config-in/agent.yml",
                    "--config-envsubst-file=/var/lib/grafana-agent/config/agent.yml", "--watch-interval=1m",
                    "--statefulset-ordinal-from-envvar=POD_NAME", "--reload-url=http://127.0.0.1:8080/-/reload"}));
  CHECK(at(reloader, "securityContext") == Value::obj({{"allowPrivilegeEscalation", false},
                                                       {"readOnlyRootFilesystem", true},
                                                       {"capabilities", Value::obj({{"drop", Value::arr({"ALL"})}})}}));
  CHECK(!reloader.find("resources"));
  CHECK(at(agent, "name").as_string() == "grafana-agent");
  CHECK(at(agent, "image").as_string() == "grafana/agent:" + opts.default_agent_version);
  CHECK(at(agent, "args") ==
        Value::arr({"-config.file=/var/lib/grafana-agent/config/agent.yml", "-config.expand-env=true",
                    "-server.http.address=0.0.0.0:8080", "-enable-features=integrations-next"}));
  CHECK(at(agent, "ports") ==
        Value::arr({Value::obj({{"name", "http-metrics"}, {"containerPort", 8080}, {"protocol", "TCP"}})}));
  CHECK(at(agent, "readinessProbe") ==
        Value::obj({{"httpGet", Value::obj({{"path", "/-/ready"}, {"port", "http-metrics"}})},
                    {"timeoutSeconds", 3},
                    {"periodSeconds", 5},
                    {"failureThreshold", 120}}));
  CHECK(at(agent, "securityContext") == Value::obj({{"privileged", false}}));
  CHECK(at(agent, "terminationMessagePolicy").as_string() == "FallbackToLogsOnError");
  CHECK(at(agent, "env") == at(reloader, "env"));
  CHECK(at(agent, "volumeMounts") == at(reloader, "volumeMounts"));
  CHECK(at(ss, "spec.template.spec.terminationGracePeriodSeconds") == Value(4800));
}

TEST_CASE("images and flags follow the spec", "[workloads]") {
  Value versioned = shard0(agent_from_spec("  version: v0.40.1\n  configReloaderVersion: v0.70.0\n  metrics: {}\n"));
  CHECK(at(versioned, "spec.template.spec.containers[1].image").as_string() == "grafana/agent:v0.40.1");
  CHECK(at(versioned, "spec.template.spec.containers[0].image").as_string() ==
        "quay.io/prometheus-operator/prometheus-config-reloader:v0.70.0");
  Value explicit_images =
      shard0(agent_from_spec("  image: reg/agent:x\n  version: v0.40.1\n  configReloaderImage: reg/reloader:y\n"
                             "  configReloaderVersion: v0.70.0\n  enableConfigReadAPI: true\n  disableReporting: true\n"
                             "  disableSupportBundle: true\n  resources: {limits: {memory: 1Gi}}\n  metrics: {}\n"));
  const Value& agent = at(explicit_images, "spec.template.spec.containers[1]");
  CHECK(at(agent, "image").as_string() == "reg/agent:x");
  CHECK(at(explicit_images, "spec.template.spec.containers[0].image").as_string() == "reg/reloader:y");
  const auto& args = at(agent, "args").as_array();
  REQUIRE(args.size() == 7);
  CHECK(args[4] == Value("-config.enable-read-api"));
  CHECK(args[5] == Value("-disable-reporting"));
  CHECK(args[6] == Value("-disable-support-bundle"));
  CHECK(at(agent, "resources") == Value::obj({{"limits", Value::obj({{"memory", "1Gi"}})}}));
}

TEST_CASE("pod-level fields are taken from the spec", "[workloads]") {
  Value ss = shard0(agent_from_spec(R"(  serviceAccountName: sa
  nodeSelector: {disk: ssd}
  affinity: {podAntiAffinity: {}}
  tolerations: [{key: k, operator: Exists}]
  topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]
  priorityClassName: high
  runtimeClassName: gvisor
  securityContext: {runAsUser: 1000}
  imagePullSecrets: [{name: pull}]
  initContainers: [{name: init, image: busybox}]
  metrics: {}
)"));
  const Value& pod = at(ss, "spec.template.spec");
  CHECK(at(pod, "serviceAccountName").as_string() == "sa");
  CHECK(at(pod, "nodeSelector") == Value::obj({{"disk", "ssd"}}));
  CHECK(at(pod, "affinity") == Value::obj({{"podAntiAffinity", Value::object()}}));
  CHECK(at(pod, "tolerations[0].key").as_string() == "k");
  CHECK(at(pod, "topologySpreadConstraints[0].topologyKey").as_string() == "zone");
  CHECK(at(pod, "priorityClassName").as_string() == "high");
  CHECK(at(pod, "runtimeClassName").as_string() == "gvisor");
  CHECK(at(pod, "securityContext") == Value::obj({{"runAsUser", 1000}}));
  CHECK(at(pod, "imagePullSecrets") == Value::arr({Value::obj({{"name", "pull"}})}));
  CHECK(names(at(pod, "initContainers")) == std::vector<std::string>{"init"});
  Value bare = shard0(agent_from_spec("  metrics: {}\n"));
  for (const char* absent : {"serviceAccountName", "nodeSelector", "affinity", "tolerations", "imagePullSecrets",
                             "initContainers", "securityContext", "priorityClassName", "runtimeClassName"})
    CHECK(!at(bare, "spec.template.spec").find(absent));
}

TEST_CASE("labels and annotations of pods and workloads", "[workloads]") {
  model::RenderOptions opts;
  opts.operator_version = "v0.41.0-rc.1";
  auto agent = agent_from_spec(
      "  podMetadata: {labels: {team: obs, grafana-agent: spoofed}, annotations: {note: n}}\n"
      "  metrics: {}\n",
      ", annotations: {owner: me, kubectl.kubernetes.io/last-applied-configuration: '{}'}");
  Value ss = shard0(agent, opts);
  const Value& pod_labels = at(ss, "spec.template.metadata.labels");
  CHECK(at(pod_labels, "team").as_string() == "obs");
  CHECK(pod_labels.find("grafana-agent")->as_string() == "a");  // selector labels win
  CHECK(pod_labels.find("app.kubernetes.io/version")->as_string() == "v0-41-0-rc-1");
  CHECK(at(ss, "spec.template.metadata.annotations") ==
        Value::obj({{"note", "n"}, {"kubectl.kubernetes.io/default-container", "grafana-agent"}}));
  Value expected_workload = pod_labels;
  expected_workload.erase("app.kubernetes.io/version");
  CHECK(at(ss, "metadata.labels") == expected_workload);
  CHECK(at(ss, "metadata.annotations") == Value::obj({{"owner", "me"}}));
  Value selector = at(ss, "spec.selector.matchLabels");
  CHECK(selector.size() == 7);
  CHECK(!selector.find("team"));
  CHECK(!selector.find("app.kubernetes.io/version"));
}

TEST_CASE("extra Secret and ConfigMap mounts follow the agent's own volumes", "[workloads]") {
  Value ss = shard0(agent_from_spec(R"(  secrets: [Extra.Secret_A]
  configMaps: [cm-b]
  volumes: [{name: own, emptyDir: {}}]
  volumeMounts: [{name: own, mountPath: /own}]
  metrics: {}
)"));
  const Value& pod = at(ss, "spec.template.spec");
  CHECK(names(at(pod, "volumes")) == std::vector<std::string>{"config", "config-out", "secrets", "a-wal", "own",
                                                              "secret-extra-secret-a", "configmap-cm-b"});
  CHECK(at(pod, "volumes[5].secret") == Value::obj({{"secretName", "Extra.Secret_A"}}));
  CHECK(at(pod, "volumes[6].configMap") == Value::obj({{"name", "cm-b"}}));
  const Value& mounts = at(pod, "containers[1].volumeMounts");
  CHECK(names(mounts) == std::vector<std::string>{"config", "config-out", "secrets", "a-wal", "own",
                                                  "secret-extra-secret-a", "configmap-cm-b"});
  CHECK(at(mounts, "[5]") == Value::obj({{"name", "secret-extra-secret-a"},
                                         {"mountPath", "/var/lib/grafana-agent/extra-secrets/Extra.Secret_A"},
                                         {"readOnly", true}}));
  CHECK(at(mounts, "[6].mountPath").as_string() == "/var/lib/grafana-agent/extra-configmaps/cm-b");
}

TEST_CASE("volume names are sanitised like upstream", "[workloads]") {
  CHECK(model::sanitize_volume_name("secret-My..Secret__x") == "secret-my-secret-x");
  CHECK(model::sanitize_volume_name("--a--") == "a");
  CHECK(model::sanitize_volume_name("v0.39.2") == "v0-39-2");
  std::string long_name = "secret-" + std::string(55, 'a') + ".b";
  CHECK(model::sanitize_volume_name(long_name) == "secret-" + std::string(55, 'a'));
}

TEST_CASE("container patches merge by name - other containers are appended", "[workloads]") {
  Value ss = shard0(agent_from_spec(R"(  containers:
  - name: grafana-agent
    args: [-custom]
    env: [{name: SHARD, value: '9'}, {name: EXTRA, value: x}]
    ports: [{containerPort: 8080, hostPort: 18080}, {containerPort: 9000, name: debug}]
    volumeMounts: [{mountPath: /var/lib/grafana-agent/secrets, readOnly: false}]
    securityContext: {runAsNonRoot: true}
    resources: {limits: {cpu: '1'}}
  - name: sidecar
    image: busybox
  - name: config-reloader
    resources: {requests: {cpu: 10m}}
  metrics: {}
)"));
  const Value& containers = at(ss, "spec.template.spec.containers");
  CHECK(names(containers) == std::vector<std::string>{"config-reloader", "grafana-agent", "sidecar"});
  CHECK(at(containers, "[0].resources") == Value::obj({{"requests", Value::obj({{"cpu", "10m"}})}}));
  const Value& agent = at(containers, "[1]");
  CHECK(at(agent, "args") == Value::arr({"-custom"}));
  CHECK(names(at(agent, "env")) ==
        std::vector<std::string>{"POD_NAME", "AGENT_DEPLOY_MODE", "SHARD", "SHARDS", "EXTRA"});
  CHECK(at(agent, "env[2].value").as_string() == "9");
  CHECK(at(agent, "ports") ==
        Value::arr(
            {Value::obj({{"name", "http-metrics"}, {"containerPort", 8080}, {"protocol", "TCP"}, {"hostPort", 18080}}),
             Value::obj({{"containerPort", 9000}, {"name", "debug"}})}));
  CHECK(at(agent, "volumeMounts[2]") ==
        Value::obj({{"name", "secrets"}, {"mountPath", "/var/lib/grafana-agent/secrets"}, {"readOnly", false}}));
  CHECK(at(agent, "volumeMounts").size() == 4);
  CHECK(at(agent, "securityContext") == Value::obj({{"privileged", false}, {"runAsNonRoot", true}}));
  CHECK(at(agent, "resources") == Value::obj({{"limits", Value::obj({{"cpu", "1"}})}}));
  CHECK(at(agent, "image").as_string().rfind("grafana/agent:", 0) == 0);
  CHECK(at(containers, "[2]") == Value::obj({{"name", "sidecar"}, {"image", "busybox"}}));
}

TEST_CASE("strategic merge: nulls change nothing unkeyed lists and type changes replace", "[workloads]") {
  Value base = Value::obj(
      {{"name", "c"},
       {"command", Value::arr({"a", "b"})},
       {"lifecycle", Value::obj({{"preStop", Value::obj({{"exec", Value::obj({{"command", Value::arr({"x"})}})}})}})},
       {"env", Value::arr({Value::obj({{"name", "A"}, {"value", "1"}})})}});
  Value patch = Value::obj(
      {{"command", Value::arr({"z"})},
       {"lifecycle", Value(nullptr)},
       {"env", Value::arr({Value::obj(
                   {{"name", "A"},
                    {"valueFrom", Value::obj({{"fieldRef", Value::obj({{"fieldPath", "spec.nodeName"}})}})}})})},
       {"stdin", true}});
  Value merged = model::strategic_merge_container(base, patch);
  CHECK(at(merged, "command") == Value::arr({"z"}));
  CHECK(at(merged, "lifecycle") == at(base, "lifecycle"));
  CHECK(at(merged, "env[0].value").as_string() == "1");
  CHECK(at(merged, "env[0].valueFrom.fieldRef.fieldPath").as_string() == "spec.nodeName");
  CHECK(at(merged, "stdin") == Value(true));
  Value replaced = model::strategic_merge_container(base, Value::obj({{"env", "not-a-list"}}));
  CHECK(at(replaced, "env") == Value("not-a-list"));
  Value duplicates = Value::arr({Value::obj({{"name", "grafana-agent"}, {"image", "one"}}),
                                 Value::obj({{"name", "grafana-agent"}, {"image", "two"}})});
  Value out = model::merge_patch_containers(Value::arr({Value::obj({{"name", "grafana-agent"}})}), &duplicates);
  CHECK(out == Value::arr({Value::obj({{"name", "grafana-agent"}, {"image", "two"}})}));
}

TEST_CASE("logs DaemonSet: privileged host log paths HOSTNAME", "[workloads]") {
  model::RenderOptions opts;
  Value ds = model::make_logs_daemonset(agent_from_spec("  logs: {}\n"), opts);
  CHECK(at(ds, "kind").as_string() == "DaemonSet");
  CHECK(at(ds, "metadata.name").as_string() == "a-logs");
  CHECK(at(ds, "spec.updateStrategy") == Value::obj({{"type", "RollingUpdate"}}));
  const Value& labels = at(ds, "spec.selector.matchLabels");
  CHECK(labels.find("operator.agent.grafana.com/type")->as_string() == "logs");
  CHECK(!labels.find("operator.agent.grafana.com/shard"));
  const Value& pod = at(ds, "spec.template.spec");
  CHECK(at(pod, "volumes[0].secret.secretName").as_string() == "a-logs-config");
  CHECK(names(at(pod, "volumes")) ==
        std::vector<std::string>{"config", "config-out", "secrets", "varlog", "dockerlogs", "data"});
  CHECK(at(pod, "volumes[5].hostPath.path").as_string() == "/var/lib/grafana-agent/data");
  const Value& agent = at(pod, "containers[1]");
  CHECK(at(agent, "securityContext") == Value::obj({{"privileged", true}}));
  CHECK(at(agent, "volumeMounts[3]") ==
        Value::obj({{"name", "varlog"}, {"mountPath", "/var/log"}, {"readOnly", true}}));
  CHECK(at(agent, "volumeMounts[5]") == Value::obj({{"name", "data"}, {"mountPath", "/var/lib/grafana-agent/data"}}));
  CHECK(names(at(agent, "env")) == std::vector<std::string>{"POD_NAME", "AGENT_DEPLOY_MODE", "HOSTNAME", "SHARD"});
  CHECK(at(agent, "env[2].valueFrom.fieldRef.fieldPath").as_string() == "spec.nodeName");
  CHECK(at(agent, "env[3].value").as_string() == "0");
  CHECK(at(pod, "containers[0].securityContext.allowPrivilegeEscalation") == Value(false));
}
