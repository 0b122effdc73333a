#include "model/pod_template.hpp"

#include "model/strategic_merge.hpp"

namespace model {
namespace {

constexpr const char* kAgentBaseImage = "grafana/agent";
constexpr std::int64_t kAgentPort = 8080;
constexpr std::int64_t kTerminationGracePeriodSeconds = 4800;
constexpr const char* kConfigInPath = "/var/lib/grafana-agent/config-in";
constexpr const char* kConfigOutPath = "/var/lib/grafana-agent/config";
constexpr const char* kExtraSecretsPath = "/var/lib/grafana-agent/extra-secrets/";
constexpr const char* kExtraConfigMapsPath = "/var/lib/grafana-agent/extra-configmaps/";

// "repo/name:tag" or "repo/name@sha256:..." -> "repo/name".
std::string image_repository(const std::string& image) {
  std::string out = image.substr(0, image.find('@'));
  std::size_t colon = out.rfind(':');
  std::size_t slash = out.rfind('/');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) out.resize(colon);
  return out;
}

void append_all(Value& array, const std::vector<Value>& items) {
  for (const Value& v : items) array.push(v);
}

void append_raw(Value& array, const std::optional<Value>& raw) {
  if (raw && raw->is_array())
    for (const Value& v : raw->as_array()) array.push(v);
}

struct VolumeSet {
  Value volumes = Value::array();
  Value mounts = Value::array();
};

// config, config-out and secrets; then the type's extras; then the agent's
// volumes; then one volume per spec.secrets and spec.configMaps entry.
VolumeSet pod_volumes(const GrafanaAgent& agent, const std::string& config_name, const PodTemplateOptions& pod_opts) {
  VolumeSet s;
  s.volumes.push(secret_volume("config", config_name + "-config"));
  s.volumes.push(empty_dir_volume("config-out"));
  s.volumes.push(secret_volume("secrets", agent.meta.name + "-secrets"));
  s.mounts.push(volume_mount("config", kConfigInPath, true));
  s.mounts.push(volume_mount("config-out", kConfigOutPath, false));
  s.mounts.push(volume_mount("secrets", kSecretsMountPath, true));
  append_all(s.volumes, pod_opts.extra_volumes);
  append_all(s.mounts, pod_opts.extra_volume_mounts);
  append_raw(s.volumes, agent.volumes);
  append_raw(s.mounts, agent.volume_mounts);
  for (const std::string& secret : agent.secrets) {
    std::string name = sanitize_volume_name("secret-" + secret);
    s.volumes.push(secret_volume(name, secret));
    s.mounts.push(volume_mount(name, kExtraSecretsPath + secret, true));
  }
  for (const std::string& cm : agent.config_maps) {
    std::string name = sanitize_volume_name("configmap-" + cm);
    s.volumes.push(Value::obj({{"name", name}, {"configMap", Value::obj({{"name", cm}})}}));
    s.mounts.push(volume_mount(name, kExtraConfigMapsPath + cm, true));
  }
  return s;
}

Value pod_env(const PodTemplateOptions& pod_opts) {
  Value env = Value::arr({env_from_field("POD_NAME", "metadata.name"), env_var("AGENT_DEPLOY_MODE", "operator")});
  append_all(env, pod_opts.extra_env);
  return env;
}

Value reloader_container(const GrafanaAgent& agent, const RenderOptions& opts, const Value& mounts, const Value& env) {
  return Value::obj({{"name", kReloaderContainerName},
                     {"image", reloader_image(agent, opts)},
                     {"volumeMounts", mounts},
                     {"env", env},
                     {"securityContext", Value::obj({{"allowPrivilegeEscalation", false},
                                                     {"readOnlyRootFilesystem", true},
                                                     {"capabilities", Value::obj({{"drop", Value::arr({"ALL"})}})}})},
                     {"args", Value::arr({"--config-file=/var/lib/grafana-agent/config-in/agent.yml",
                                          "--config-envsubst-file=/var/lib/grafana-agent/config/agent.yml",
                                          "--watch-interval=1m", "--statefulset-ordinal-from-envvar=POD_NAME",
                                          "--reload-url=http://127.0.0.1:8080/-/reload"})}});
}

Value agent_args(const GrafanaAgent& agent) {
  Value args = Value::arr({"-config.file=/var/lib/grafana-agent/config/agent.yml", "-config.expand-env=true",
                           "-server.http.address=0.0.0.0:8080", "-enable-features=integrations-next"});
  if (agent.enable_config_read_api) args.push("-config.enable-read-api");
  if (agent.disable_reporting) args.push("-disable-reporting");
  if (agent.disable_support_bundle) args.push("-disable-support-bundle");
  return args;
}

Value agent_container(const GrafanaAgent& agent, const PodTemplateOptions& pod_opts, const RenderOptions& opts,
                      const Value& mounts, const Value& env) {
  Value probe = Value::obj({{"httpGet", Value::obj({{"path", "/-/ready"}, {"port", agent.port_name}})},
                            {"timeoutSeconds", 3},
                            {"periodSeconds", 5},
                            {"failureThreshold", 120}});
  Value c = Value::obj(
      {{"name", kAgentContainerName},
       {"image", agent_image(agent, opts)},
       {"ports",
        Value::arr({Value::obj({{"name", agent.port_name}, {"containerPort", kAgentPort}, {"protocol", "TCP"}})})},
       {"args", agent_args(agent)},
       {"volumeMounts", mounts},
       {"env", env},
       {"readinessProbe", probe},
       {"securityContext", Value::obj({{"privileged", pod_opts.privileged}})},
       {"terminationMessagePolicy", "FallbackToLogsOnError"}});
  if (agent.resources) c.set("resources", *agent.resources);
  return c;
}

void set_present(Value& obj, const char* key, const std::optional<Value>& raw) {
  if (raw) obj.set(key, *raw);
}

Value pod_spec(const GrafanaAgent& agent, Value containers, Value volumes) {
  Value spec = Value::obj({{"containers", std::move(containers)}});
  if (agent.image_pull_secrets) spec.set_nonempty("imagePullSecrets", *agent.image_pull_secrets);
  if (agent.init_containers) spec.set_nonempty("initContainers", *agent.init_containers);
  set_present(spec, "securityContext", agent.security_context);
  spec.set_nonempty("serviceAccountName", agent.service_account_name);
  if (agent.node_selector) spec.set_nonempty("nodeSelector", *agent.node_selector);
  spec.set_nonempty("priorityClassName", agent.priority_class_name);
  spec.set_nonempty("runtimeClassName", agent.runtime_class_name);
  spec.set("terminationGracePeriodSeconds", kTerminationGracePeriodSeconds);
  spec.set("volumes", std::move(volumes));
  if (agent.tolerations) spec.set_nonempty("tolerations", *agent.tolerations);
  set_present(spec, "affinity", agent.affinity);
  if (agent.topology_spread_constraints)
    spec.set_nonempty("topologySpreadConstraints", *agent.topology_spread_constraints);
  return spec;
}

}  // namespace

PodTemplate make_pod_template(const GrafanaAgent& agent, const std::string& config_name,
                              const PodTemplateOptions& pod_opts, const RenderOptions& opts) {
  VolumeSet vs = pod_volumes(agent, config_name, pod_opts);
  Value env = pod_env(pod_opts);
  Value containers = Value::arr(
      {reloader_container(agent, opts, vs.mounts, env), agent_container(agent, pod_opts, opts, vs.mounts, env)});
  containers = merge_patch_containers(containers, agent.containers ? &*agent.containers : nullptr);

  Labels selector = pod_selector_labels(agent, pod_opts.extra_selector_labels);
  PodTemplate t;
  t.labels = with_operator_labels(pod_labels(agent, selector, opts), opts);
  t.selector = with_operator_labels(selector, opts);
  Value meta = Value::obj({{"labels", labels_value(t.labels)}, {"annotations", labels_value(pod_annotations(agent))}});
  t.spec = Value::obj({{"metadata", std::move(meta)}, {"spec", pod_spec(agent, std::move(containers), vs.volumes)}});
  return t;
}

std::string agent_image(const GrafanaAgent& agent, const RenderOptions& opts) {
  if (!agent.image.empty()) return agent.image;
  return std::string(kAgentBaseImage) + ":" + (agent.version.empty() ? opts.default_agent_version : agent.version);
}

std::string reloader_image(const GrafanaAgent& agent, const RenderOptions& opts) {
  if (!agent.config_reloader_image.empty()) return agent.config_reloader_image;
  if (agent.config_reloader_version.empty()) return opts.default_reloader_image;
  return image_repository(opts.default_reloader_image) + ":" + agent.config_reloader_version;
}

Value env_var(const std::string& name, const std::string& value) {
  return Value::obj({{"name", name}, {"value", value}});
}

Value env_from_field(const std::string& name, const std::string& field_path) {
  return Value::obj(
      {{"name", name}, {"valueFrom", Value::obj({{"fieldRef", Value::obj({{"fieldPath", field_path}})}})}});
}

Value volume_mount(const std::string& name, const std::string& path, bool read_only) {
  Value m = Value::obj({{"name", name}, {"mountPath", path}});
  if (read_only) m.set("readOnly", true);
  return m;
}

Value host_path_volume(const std::string& name, const std::string& path) {
  return Value::obj({{"name", name}, {"hostPath", Value::obj({{"path", path}})}});
}

Value empty_dir_volume(const std::string& name, Value empty_dir) {
  return Value::obj({{"name", name}, {"emptyDir", std::move(empty_dir)}});
}

Value secret_volume(const std::string& name, const std::string& secret_name) {
  return Value::obj({{"name", name}, {"secret", Value::obj({{"secretName", secret_name}})}});
}

}  // namespace model
