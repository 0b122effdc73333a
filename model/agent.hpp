// The monitoring.grafana.com/v1alpha1 kinds: GrafanaAgent (the root),
// MetricsInstance, LogsInstance, PodLogs, Integration and MetricsIntegration
// (IntegrationMonitor is in monitors.hpp), plus the Secret, ConfigMap and
// Namespace objects the hierarchy reads.
// Contract: fields the operator only passes through to pod specs stay raw
// JSON (std::optional<Value>); everything it interprets is typed.
#pragma once

#include "model/logs/stages.hpp"
#include "model/meta.hpp"

namespace model {

struct SigV4 {
  std::string region;
  std::optional<SecretKeySelector> access_key, secret_key;
  std::string profile, role_arn;
};

struct QueueConfig {
  std::optional<std::int64_t> capacity, min_shards, max_shards, max_samples_per_send, max_retries;
  std::string batch_send_deadline, min_backoff, max_backoff;
  std::optional<bool> retry_on_rate_limit;
};

struct RemoteWriteSpec {
  std::string name;
  std::string url;
  std::string remote_timeout;
  std::map<std::string, std::string> headers;
  std::vector<RelabelConfig> write_relabel_configs;
  std::optional<BasicAuth> basic_auth;
  std::optional<OAuth2> oauth2;
  std::string bearer_token, bearer_token_file;
  std::optional<SigV4> sigv4;
  std::optional<TLSConfig> tls_config;
  std::string proxy_url;
  std::optional<QueueConfig> queue_config;
  std::optional<bool> metadata_send;
  std::string metadata_send_interval;
  bool has_metadata_config = false;
};

struct LogsClientSpec {
  std::string url, tenant_id, batch_wait;
  std::optional<std::int64_t> batch_size;
  std::optional<BasicAuth> basic_auth;
  std::optional<OAuth2> oauth2;
  std::string bearer_token, bearer_token_file, proxy_url;
  std::optional<TLSConfig> tls_config;
  bool has_backoff = false;
  std::string backoff_min_period, backoff_max_period;
  std::optional<std::int64_t> backoff_max_retries;
  std::map<std::string, std::string> external_labels;
  std::string timeout;
};

struct APIServerConfig {
  std::string host;
  std::optional<BasicAuth> basic_auth;
  std::string bearer_token, bearer_token_file;
  std::optional<TLSConfig> tls_config;
  std::optional<Authorization> authorization;
};

// Upper bounds on spec.metrics.shards and spec.metrics.replicas; larger
// values reject the GrafanaAgent (one StatefulSet is built per shard).
inline constexpr std::int64_t kMaxShards = 1000;
inline constexpr std::int64_t kMaxReplicas = 10000;

// spec.metrics.shardingStrategy: how targets are split over the shards.
// hashmod: every shard discovers everything and keeps the targets whose
// address hash lands on it. consistent: the operator discovers the
// monitors' targets once, places them with consistent hashing and serves
// each shard its share over http_sd. node: the same discovery, but the
// metrics agents run as a DaemonSet and each pod is served the targets on
// its own Node (targets without a Node spread over the pods).
enum class ShardingStrategy { hashmod, consistent, node };

struct MetricsSubsystemSpec {
  std::vector<RemoteWriteSpec> remote_write;
  std::optional<std::int64_t> replicas, shards;
  ShardingStrategy sharding_strategy = ShardingStrategy::hashmod;
  std::optional<std::string> replica_external_label_name, metrics_external_label_name;
  std::string scrape_interval, scrape_timeout;
  std::map<std::string, std::string> external_labels;
  bool deny_fs_access_through_sms = false;
  bool override_honor_labels = false, override_honor_timestamps = false;
  bool ignore_namespace_selectors = false;
  std::string enforced_namespace_label;
  std::optional<std::int64_t> enforced_sample_limit, enforced_target_limit;
  std::optional<LabelSelector> instance_selector, instance_namespace_selector;
};

struct LogsSubsystemSpec {
  std::vector<LogsClientSpec> clients;
  std::optional<std::string> logs_external_label_name;
  std::optional<LabelSelector> instance_selector, instance_namespace_selector;
  bool ignore_namespace_selectors = false;
  std::string enforced_namespace_label;
};

struct GrafanaAgent {
  ObjectMeta meta;
  std::string log_level, log_format;
  std::optional<APIServerConfig> api_server;
  std::optional<Value> pod_metadata;  // {labels, annotations}
  std::string version, image, config_reloader_version, config_reloader_image;
  std::optional<Value> image_pull_secrets;
  bool paused = false;
  std::optional<Value> storage;
  std::optional<Value> volumes, volume_mounts, resources, node_selector;
  std::string service_account_name;
  std::vector<std::string> secrets, config_maps;
  std::optional<Value> affinity, tolerations, topology_spread_constraints, security_context;
  std::optional<Value> containers, init_containers;
  std::string priority_class_name, runtime_class_name;
  std::string port_name = "http-metrics";
  bool enable_config_read_api = false, disable_reporting = false, disable_support_bundle = false;
  MetricsSubsystemSpec metrics;
  LogsSubsystemSpec logs;
  std::optional<LabelSelector> integrations_selector, integrations_namespace_selector;
  // spec.metricsIntegrations: the design-2 integrations (MetricsIntegration).
  std::optional<LabelSelector> metrics_integrations_selector, metrics_integrations_namespace_selector;
};

struct MetricsInstance {
  ObjectMeta meta;
  std::string wal_truncate_frequency, min_wal_time, max_wal_time, remote_flush_deadline;
  std::optional<bool> write_stale_on_shutdown;
  std::optional<LabelSelector> service_monitor_selector, service_monitor_namespace_selector;
  std::optional<LabelSelector> pod_monitor_selector, pod_monitor_namespace_selector;
  std::optional<LabelSelector> probe_selector, probe_namespace_selector;
  std::optional<LabelSelector> integration_monitor_selector, integration_monitor_namespace_selector;
  std::vector<RemoteWriteSpec> remote_write;
  std::optional<SecretKeySelector> additional_scrape_configs;
};

struct LogsInstance {
  ObjectMeta meta;
  std::vector<LogsClientSpec> clients;
  std::optional<LabelSelector> pod_logs_selector, pod_logs_namespace_selector;
  std::optional<SecretKeySelector> additional_scrape_configs;
  std::string target_sync_period;
};

struct PodLogs {
  ObjectMeta meta;
  std::string job_label;
  std::vector<std::string> pod_target_labels;
  std::optional<LabelSelector> selector;
  NamespaceSelector namespace_selector;
  std::vector<PipelineStage> pipeline_stages;
  std::vector<RelabelConfig> relabelings;
};

struct Integration {
  ObjectMeta meta;
  std::string name;
  bool all_nodes = false;
  bool unique = false;
  Value config;  // free-form; rendered verbatim
  std::optional<Value> volumes, volume_mounts;
  std::vector<SecretKeySelector> secrets;
  std::vector<ConfigMapKeySelector> config_maps;
};

// How a MetricsIntegration runs: on every Node (the integrations
// DaemonSet), once (the Deployment; one per name in a hierarchy) or any
// number of times (the Deployment).
enum class IntegrationType { daemonset, singleton, normal };
const char* to_string(IntegrationType t);

struct MetricsIntegration {
  ObjectMeta meta;
  std::string name;
  IntegrationType type = IntegrationType::normal;
  // spec.config parsed at decode time: a mapping ({} when empty). An
  // unparsable text is not a decode error: it is reported (at spec.config)
  // by each GrafanaAgent that selects the object, which leaves it out.
  Value config = Value::object();
  std::string config_error;
  std::map<std::string, std::string> labels;  // spec.labels
  std::optional<Value> volumes, volume_mounts;
  std::vector<SecretKeySelector> secrets;
  std::vector<ConfigMapKeySelector> config_maps;
};

// Secret data is base64-decoded; ConfigMap data and binaryData are merged.
struct Secret {
  ObjectMeta meta;
  std::map<std::string, std::string> data;
};
struct ConfigMap {
  ObjectMeta meta;
  std::map<std::string, std::string> data;
};
struct Namespace {
  ObjectMeta meta;
};

GrafanaAgent decode_grafana_agent(const Value& obj, FieldErrors& errors);
MetricsInstance decode_metrics_instance(const Value& obj, FieldErrors& errors);
LogsInstance decode_logs_instance(const Value& obj, FieldErrors& errors);
PodLogs decode_pod_logs(const Value& obj, FieldErrors& errors);
Integration decode_integration(const Value& obj, FieldErrors& errors);
MetricsIntegration decode_metrics_integration(const Value& obj, FieldErrors& errors);
Secret decode_secret(const Value& obj, FieldErrors& errors);
ConfigMap decode_config_map(const Value& obj, FieldErrors& errors);
Namespace decode_namespace(const Value& obj, FieldErrors& errors);

std::vector<RemoteWriteSpec> decode_remote_writes(const Reader& parent, std::string_view key);
std::vector<LogsClientSpec> decode_logs_clients(const Reader& parent, std::string_view key);

}  // namespace model
