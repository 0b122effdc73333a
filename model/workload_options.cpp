#include "model/workload_options.hpp"

#include <algorithm>
#include <set>

#include "model/assets.hpp"
#include "model/integrations.hpp"
#include "model/scrape/operator_sd.hpp"

namespace model {
namespace {

std::string str_member(const Value& obj, const char* key) {
  const Value* v = obj.find(key);
  return v && v->is_string() ? v->as_string() : std::string();
}

const Value* storage_of(const GrafanaAgent& agent, bool ignore_storage) {
  if (ignore_storage || !agent.storage || !agent.storage->is_object()) return nullptr;
  return &*agent.storage;
}

// Integration volumes and mounts, renamed "<ns>-<name>-<volume>" so two
// integrations never collide.
void add_integration_volumes(PodTemplateOptions& o, const std::vector<IntegrationView>& integrations) {
  for (const IntegrationView& i : integrations) {
    std::string prefix = i.meta->ns + "-" + i.meta->name + "-";
    auto add = [&](const std::optional<Value>& list, std::vector<Value>& out) {
      if (!list || !list->is_array()) return;
      for (Value v : list->as_array()) {
        if (v.is_object()) v.set("name", prefix + str_member(v, "name"));
        out.push_back(std::move(v));
      }
    };
    add(*i.volumes, o.extra_volumes);
    add(*i.volume_mounts, o.extra_volume_mounts);
  }
}

struct ProjectedItems {
  Value items = Value::array();
  std::set<std::string> seen;  // store keys already projected
  bool any_optional = false;

  void add(const std::string& store_key, const std::string& path, bool optional) {
    if (!seen.insert(store_key).second) return;
    items.push(Value::obj({{"key", sanitize_label_name(store_key)}, {"path", path}}));
    any_optional = any_optional || optional;
  }
};

// Every Secret/ConfigMap key the integrations reference, projected from
// "<ga>-secrets" (which holds them under their sanitised store keys).
void add_integration_secrets(PodTemplateOptions& o, const GrafanaAgent& agent,
                             const std::vector<IntegrationView>& integrations) {
  ProjectedItems p;
  for (const IntegrationView& i : integrations) {
    const std::string& ns = i.meta->ns;
    for (const auto& s : *i.secrets)
      p.add(secret_store_key(ns, s.name, s.key), "secrets/" + ns + "/" + s.name + "/" + s.key, s.optional);
    for (const auto& c : *i.config_maps)
      p.add(configmap_store_key(ns, c.name, c.key), "configMaps/" + ns + "/" + c.name + "/" + c.key, c.optional);
  }
  if (p.items.size() == 0) return;
  std::string name = agent.meta.name + "-integrations-secrets";
  Value source = Value::obj({{"secretName", agent.meta.name + "-secrets"}, {"items", std::move(p.items)}});
  // An optional reference that is missing has no key in "<ga>-secrets";
  // without this the kubelet would refuse to mount the volume. (Upstream
  // fails the whole reconcile on a missing key, so never gets here.)
  if (p.any_optional) source.set("optional", true);
  o.extra_volumes.push_back(Value::obj({{"name", name}, {"secret", std::move(source)}}));
  o.extra_volume_mounts.push_back(volume_mount(name, kIntegrationsSecretsPath, true));
}

}  // namespace

std::int64_t metrics_shard_count(const GrafanaAgent& agent) {
  // Decoding rejects more than kMaxShards; the clamp guards agents built in code.
  return agent.metrics.shards && *agent.metrics.shards > 1 ? std::min(*agent.metrics.shards, kMaxShards) : 1;
}

std::int64_t metrics_replicas(const GrafanaAgent& agent) {
  if (!agent.metrics.replicas) return 1;
  return std::clamp<std::int64_t>(*agent.metrics.replicas, 0, kMaxReplicas);
}

std::string metrics_shard_name(const GrafanaAgent& agent, std::int64_t shard) {
  return shard == 0 ? agent.meta.name : agent.meta.name + "-shard-" + std::to_string(shard);
}

bool uses_volume_claim_template(const GrafanaAgent& agent) {
  const Value* storage = storage_of(agent, false);
  if (!storage) return false;
  const Value* empty_dir = storage->find("emptyDir");
  return !(empty_dir && empty_dir->is_object());
}

std::string wal_volume_name(const GrafanaAgent& agent, const std::string& workload, bool ignore_storage) {
  if (const Value* storage = storage_of(agent, ignore_storage)) {
    const Value* vct = storage->find("volumeClaimTemplate");
    const Value* meta = vct ? vct->find("metadata") : nullptr;
    std::string name = meta ? str_member(*meta, "name") : std::string();
    if (!name.empty()) return name;
  }
  return workload + "-wal";
}

PodTemplateOptions metrics_pod_options(const GrafanaAgent& agent, const std::string& workload, std::int64_t shard,
                                       bool ignore_storage) {
  std::string wal = wal_volume_name(agent, workload, ignore_storage);
  PodTemplateOptions o;
  o.extra_selector_labels = {{kShardLabel, std::to_string(shard)}, {kTypeLabel, "metrics"}};
  o.extra_volume_mounts.push_back(volume_mount(wal, kAgentDataPath, false));
  o.extra_env.push_back(env_var("SHARD", std::to_string(shard)));
  o.extra_env.push_back(env_var("SHARDS", std::to_string(metrics_shard_count(agent))));
  const Value* storage = storage_of(agent, ignore_storage);
  const Value* empty_dir = storage ? storage->find("emptyDir") : nullptr;
  if (!storage) {
    o.extra_volumes.push_back(empty_dir_volume(wal));
  } else if (empty_dir && empty_dir->is_object()) {
    o.extra_volumes.push_back(empty_dir_volume(wal, *empty_dir));
  }
  return o;
}

Labels metrics_node_selector_extras() {
  return {{kShardLabel, "node"}, {kTypeLabel, "metrics"}};
}

PodTemplateOptions metrics_node_pod_options(const GrafanaAgent& agent, const std::string& workload) {
  PodTemplateOptions o = metrics_pod_options(agent, workload, 0, uses_volume_claim_template(agent));
  o.extra_selector_labels = metrics_node_selector_extras();
  for (Value& env : o.extra_env) {
    // A copy: replacing `env` frees the name it came from.
    const std::string name = str_member(env, "name");
    if (name == "SHARD") env = env_from_field("SHARD", "metadata.name");
    if (name == "SHARDS") env = env_var("SHARDS", "1");
  }
  return o;
}

void add_operator_token(PodTemplateOptions& o) {
  const std::string path = scrape::kOperatorTokenPath;
  const std::string dir = path.substr(0, path.rfind('/'));
  const std::string file = path.substr(path.rfind('/') + 1);
  Value token = Value::obj(
      {{"audience", scrape::kOperatorTokenAudience}, {"expirationSeconds", kOperatorTokenSeconds}, {"path", file}});
  Value projected = Value::obj({{"sources", Value::arr({Value::obj({{"serviceAccountToken", std::move(token)}})})}});
  o.extra_volumes.push_back(Value::obj({{"name", "operator-token"}, {"projected", std::move(projected)}}));
  o.extra_volume_mounts.push_back(volume_mount("operator-token", dir, true));
}

PodTemplateOptions logs_pod_options() {
  PodTemplateOptions o;
  o.privileged = true;
  o.extra_selector_labels = {{kTypeLabel, "logs"}};
  o.extra_volumes = {host_path_volume("varlog", "/var/log"),
                     host_path_volume("dockerlogs", "/var/lib/docker/containers"),
                     host_path_volume("data", kAgentDataPath)};
  o.extra_volume_mounts = {volume_mount("varlog", "/var/log", true),
                           volume_mount("dockerlogs", "/var/lib/docker/containers", true),
                           volume_mount("data", kAgentDataPath, false)};
  // SHARD is unused by logs, but the config-reloader requires it.
  o.extra_env = {env_from_field("HOSTNAME", "spec.nodeName"), env_var("SHARD", "0")};
  return o;
}

PodTemplateOptions integrations_pod_options(const GrafanaAgent& agent, const std::string& workload,
                                            const std::vector<IntegrationView>& integrations, bool all_nodes,
                                            const RenderOptions& opts) {
  PodTemplateOptions own;
  own.extra_selector_labels[kTypeLabel] = "integrations";
  if (!opts.upstream_compat) own.extra_selector_labels[kIntegrationsModeLabel] = all_nodes ? "daemonset" : "deployment";
  add_integration_volumes(own, integrations);
  add_integration_secrets(own, agent, integrations);
  // Integrations reference the metrics and logs instances, so their pods
  // carry both subsystems' extras. The WAL is always an emptyDir: a
  // DaemonSet cannot use a volumeClaimTemplate. The logs "data" mount loses
  // to the WAL mount at the same path.
  PodTemplateOptions metrics = metrics_pod_options(agent, workload, 0, true);
  PodTemplateOptions logs = logs_pod_options();
  PodTemplateOptions merged = merge_pod_options({&own, &metrics, &logs});
  merged.privileged = all_nodes && kIntegrationsDaemonSetPrivileged;
  return merged;
}

PodTemplateOptions merge_pod_options(const std::vector<const PodTemplateOptions*>& inputs) {
  PodTemplateOptions out;
  std::set<std::string> mount_names, mount_paths, volume_names, env_names;
  for (const PodTemplateOptions* in : inputs) {
    for (const auto& [k, v] : in->extra_selector_labels) out.extra_selector_labels.emplace(k, v);
    std::set<std::string> ignored_volumes;
    for (const Value& m : in->extra_volume_mounts) {
      std::string name = str_member(m, "name"), path = str_member(m, "mountPath");
      if (mount_names.count(name) || mount_paths.count(path)) {
        ignored_volumes.insert(name);
        continue;
      }
      out.extra_volume_mounts.push_back(m);
      mount_names.insert(name);
      mount_paths.insert(path);
    }
    for (const Value& v : in->extra_volumes) {
      std::string name = str_member(v, "name");
      if (ignored_volumes.count(name) || !volume_names.insert(name).second) continue;
      out.extra_volumes.push_back(v);
    }
    for (const Value& e : in->extra_env)
      if (env_names.insert(str_member(e, "name")).second) out.extra_env.push_back(e);
  }
  return out;
}

}  // namespace model
