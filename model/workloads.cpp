// The objects of a GrafanaAgent's reconcile: config and assets Secrets, the
// governing Service, the metrics StatefulSets, the logs DaemonSet and the
// integrations DaemonSet/Deployment. Pod templates come from
// pod_template.cpp, the per-type extras from workload_options.cpp.
#include "model/workloads.hpp"

#include "model/codec.hpp"
#include "model/config.hpp"
#include "model/labels.hpp"
#include "model/pod_template.hpp"
#include "model/workload_options.hpp"

namespace model {
namespace {

Value object_meta(const GrafanaAgent& agent, const std::string& name, const Labels& labels, bool controller) {
  return Value::obj({{"name", name},
                     {"namespace", agent.meta.ns},
                     {"labels", labels_value(labels)},
                     {"ownerReferences", Value::arr({owner_reference(agent, controller)})}});
}

// A workload's metadata: the pod labels minus the version label, and the
// GrafanaAgent's annotations minus kubectl's.
Value workload_meta(const GrafanaAgent& agent, const std::string& name, const PodTemplate& t) {
  Value meta = object_meta(agent, name, workload_labels(t.labels), true);
  meta.set_nonempty("annotations", labels_value(workload_annotations(agent)));
  return meta;
}

Value workload(const char* kind, Value meta, Value spec) {
  return Value::obj(
      {{"apiVersion", "apps/v1"}, {"kind", kind}, {"metadata", std::move(meta)}, {"spec", std::move(spec)}});
}

Value selector_value(const Labels& labels) {
  return Value::obj({{"matchLabels", labels_value(labels)}});
}

Value rolling_update() {
  return Value::obj({{"type", "RollingUpdate"}});
}

// storage.volumeClaimTemplate as a StatefulSet claim template: its metadata
// name, labels and annotations, its spec with accessModes defaulting to
// [ReadWriteOnce], and the claim named "<ss>-wal" unless it names itself.
Value volume_claim_template(const GrafanaAgent& agent, const std::string& ss_name) {
  const Value* vct = agent.storage->find("volumeClaimTemplate");
  const Value* src_meta = vct ? vct->find("metadata") : nullptr;
  const Value* src_spec = vct ? vct->find("spec") : nullptr;
  Value meta = Value::obj({{"name", wal_volume_name(agent, ss_name, false)}});
  for (const char* key : {"labels", "annotations"})
    if (const Value* v = src_meta ? src_meta->find(key) : nullptr) meta.set(key, *v);
  Value spec = src_spec && src_spec->is_object() ? *src_spec : Value::object();
  const Value* modes = spec.find("accessModes");
  if (!modes || !modes->is_array() || modes->size() == 0) spec.set("accessModes", Value::arr({"ReadWriteOnce"}));
  Value out = Value::obj({{"metadata", std::move(meta)}, {"spec", std::move(spec)}});
  if (const Value* status = vct ? vct->find("status") : nullptr) out.set("status", *status);
  return out;
}

Value metrics_statefulset(const GrafanaAgent& agent, std::int64_t shard, const RenderOptions& opts) {
  std::string name = metrics_shard_name(agent, shard);
  // Every shard mounts "<ga>-config" (upstream issue #1817).
  PodTemplateOptions options = metrics_pod_options(agent, name, shard, false);
  if (uses_operator_sd(agent, opts)) add_operator_token(options);
  PodTemplate t = make_pod_template(agent, agent.meta.name, std::move(options), opts);
  Value spec = Value::obj({{"serviceName", agent.meta.name + "-operated"},
                           {"replicas", metrics_replicas(agent)},
                           {"podManagementPolicy", "Parallel"},
                           {"updateStrategy", rolling_update()},
                           {"selector", selector_value(t.selector)},
                           {"template", t.spec}});
  if (uses_volume_claim_template(agent))
    spec.set("volumeClaimTemplates", Value::arr({volume_claim_template(agent, name)}));
  return workload("StatefulSet", workload_meta(agent, name, t), std::move(spec));
}

}  // namespace

namespace {

// agent.yml repeats itself job after job, so zlib level 3 compresses it
// about 2.3 times faster than the default level (the largest cost of
// re-rendering a root after an edit) at about 1.6 times the size. A result
// above kFastGzipMax is compressed again at the default level, so the
// largest configs stay as far from the 1 MiB Secret limit as before.
constexpr int kFastGzipLevel = 3;
constexpr std::size_t kFastGzipMax = 256 * 1024;

std::string compress_config(std::string_view agent_yml) {
  if (auto fast = gzip_compress_within(agent_yml, kFastGzipLevel, kFastGzipMax)) return std::move(*fast);
  return gzip_compress(agent_yml);
}

}  // namespace

Value make_config_secret(const GrafanaAgent& agent, const std::string& name, const std::string& agent_yml,
                         const RenderOptions& opts) {
  // Above the threshold the bytes are gzipped under the same key; the
  // config-reloader decompresses transparently.
  std::string bytes = agent_yml.size() > opts.gzip_threshold ? compress_config(agent_yml) : agent_yml;
  Labels labels = with_operator_labels({{kManagedByLabel, kManagedByValue}}, opts);
  return Value::obj({{"apiVersion", "v1"},
                     {"kind", "Secret"},
                     {"metadata", object_meta(agent, name, labels, false)},
                     {"data", Value::obj({{"agent.yml", base64_encode(bytes)}})}});
}

Value make_assets_secret(const GrafanaAgent& agent, const std::map<std::string, std::string>& assets,
                         const RenderOptions&) {
  // Two store keys can sanitise to the same data key; the first in store
  // key order is kept, so the output stays deterministic.
  std::map<std::string, std::string> data;
  for (const auto& [key, value] : assets) data.emplace(sanitize_label_name(key), base64_encode(value));
  // The -labels flag is deliberately not applied here (upstream).
  Value secret = Value::obj(
      {{"apiVersion", "v1"},
       {"kind", "Secret"},
       {"metadata", object_meta(agent, agent.meta.name + "-secrets", {{kManagedByLabel, kManagedByValue}}, false)}});
  secret.set_nonempty("data", labels_value(data));
  return secret;
}

Value make_governing_service(const GrafanaAgent& agent, const RenderOptions& opts) {
  const std::string& ga = agent.meta.name;
  Labels labels = with_operator_labels(
      {{kManagedByLabel, kManagedByValue}, {kAgentNameLabel, ga}, {"operated-agent", "true"}}, opts);
  Value port = Value::obj({{"name", agent.port_name}, {"port", 8080}, {"targetPort", agent.port_name}});
  // Selects every pod of the agent, not only the metrics pods (upstream).
  Value selector = labels_value({{"app.kubernetes.io/name", "grafana-agent"}, {kAgentNameLabel, ga}});
  Value spec = Value::obj({{"clusterIP", "None"}, {"ports", Value::arr({port})}, {"selector", selector}});
  return Value::obj({{"apiVersion", "v1"},
                     {"kind", "Service"},
                     {"metadata", object_meta(agent, ga + "-operated", labels, true)},
                     {"spec", std::move(spec)}});
}

Value make_integrations_service(const GrafanaAgent& agent, const RenderOptions& opts) {
  const std::string& ga = agent.meta.name;
  Labels labels = with_operator_labels(
      {{kManagedByLabel, kManagedByValue}, {kAgentNameLabel, ga}, {kTypeLabel, "integrations"}}, opts);
  Value port = Value::obj({{"name", agent.port_name}, {"port", 8080}, {"targetPort", agent.port_name}});
  // Both integrations workloads' pods carry these (pod_selector_labels plus
  // the integrations type label), whatever their integrations-mode label.
  Value selector =
      labels_value({{"app.kubernetes.io/name", "grafana-agent"}, {kAgentNameLabel, ga}, {kTypeLabel, "integrations"}});
  Value spec = Value::obj({{"type", "ClusterIP"}, {"ports", Value::arr({port})}, {"selector", selector}});
  return Value::obj({{"apiVersion", "v1"},
                     {"kind", "Service"},
                     {"metadata", object_meta(agent, ga + "-integrations", labels, true)},
                     {"spec", std::move(spec)}});
}

std::vector<Value> make_metrics_statefulsets(const GrafanaAgent& agent, const RenderOptions& opts) {
  std::vector<Value> out;
  std::int64_t shards = metrics_shard_count(agent);
  for (std::int64_t shard = 0; shard < shards; ++shard) out.push_back(metrics_statefulset(agent, shard, opts));
  return out;
}

Value make_metrics_daemonset(const GrafanaAgent& agent, const RenderOptions& opts) {
  std::string name = agent.meta.name + "-metrics";
  PodTemplateOptions options = metrics_node_pod_options(agent, name);
  add_operator_token(options);
  // The pods mount "<ga>-config", as the StatefulSets' do.
  PodTemplate t = make_pod_template(agent, agent.meta.name, std::move(options), opts);
  Value spec = Value::obj(
      {{"updateStrategy", rolling_update()}, {"selector", selector_value(t.selector)}, {"template", t.spec}});
  return workload("DaemonSet", workload_meta(agent, name, t), std::move(spec));
}

Value make_logs_daemonset(const GrafanaAgent& agent, const RenderOptions& opts) {
  std::string name = agent.meta.name + "-logs";
  PodTemplate t = make_pod_template(agent, name, logs_pod_options(), opts);
  Value spec = Value::obj(
      {{"updateStrategy", rolling_update()}, {"selector", selector_value(t.selector)}, {"template", t.spec}});
  return workload("DaemonSet", workload_meta(agent, name, t), std::move(spec));
}

Value make_integrations_workload(const GrafanaAgent& agent, const std::vector<IntegrationView>& integrations,
                                 bool all_nodes, const RenderOptions& opts) {
  std::string name = agent.meta.name + (all_nodes ? "-integrations-ds" : "-integrations-deploy");
  PodTemplate t =
      make_pod_template(agent, name, integrations_pod_options(agent, name, integrations, all_nodes, opts), opts);
  // A DaemonSet's strategy field is updateStrategy, a Deployment's strategy;
  // the Deployment leaves replicas to the API server's default of 1.
  Value spec = Value::obj({{all_nodes ? "updateStrategy" : "strategy", rolling_update()},
                           {"selector", selector_value(t.selector)},
                           {"template", t.spec}});
  return workload(all_nodes ? "DaemonSet" : "Deployment", workload_meta(agent, name, t), std::move(spec));
}

}  // namespace model
