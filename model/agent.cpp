#include "model/agent.hpp"

namespace model {
namespace {

RemoteWriteSpec decode_remote_write(const Reader& r) {
  RemoteWriteSpec rw;
  rw.name = r.str_or("name");
  rw.url = r.str_or("url");
  if (rw.url.empty()) r.error("url", "is required");
  rw.remote_timeout = r.str_or("remoteTimeout");
  rw.headers = r.string_map("headers");
  rw.write_relabel_configs = decode_relabelings(r, "writeRelabelConfigs");
  rw.basic_auth = decode_basic_auth(r, "basicAuth");
  rw.oauth2 = decode_oauth2(r, "oauth2");
  rw.bearer_token = r.str_or("bearerToken");
  rw.bearer_token_file = r.str_or("bearerTokenFile");
  Reader s = r.object("sigv4");
  if (s.present())
    rw.sigv4 = SigV4{s.str_or("region"), decode_key_ref(s, "accessKey"), decode_key_ref(s, "secretKey"),
                     s.str_or("profile"), s.str_or("roleARN")};
  rw.tls_config = decode_tls(r, "tlsConfig", true);
  rw.proxy_url = r.str_or("proxyUrl");
  Reader q = r.object("queueConfig");
  if (q.present()) {
    QueueConfig qc;
    qc.capacity = q.integer("capacity");
    qc.min_shards = q.integer("minShards");
    qc.max_shards = q.integer("maxShards");
    qc.max_samples_per_send = q.integer("maxSamplesPerSend");
    qc.max_retries = q.integer("maxRetries");
    qc.batch_send_deadline = q.str_or("batchSendDeadline");
    qc.min_backoff = q.str_or("minBackoff");
    qc.max_backoff = q.str_or("maxBackoff");
    qc.retry_on_rate_limit = q.boolean("retryOnRateLimit");
    rw.queue_config = qc;
  }
  Reader m = r.object("metadataConfig");
  rw.has_metadata_config = m.present();
  rw.metadata_send = m.boolean("send");
  rw.metadata_send_interval = m.str_or("sendInterval");
  // Prometheus: at most one of basic_auth, authorization (the bearer token
  // fields), oauth2 and sigv4.
  bool bearer = !rw.bearer_token.empty() || !rw.bearer_token_file.empty();
  check_exclusive(r, {{"basicAuth", rw.basic_auth.has_value()},
                      {"oauth2", rw.oauth2.has_value()},
                      {rw.bearer_token.empty() ? "bearerTokenFile" : "bearerToken", bearer},
                      {"sigv4", rw.sigv4.has_value()}});
  return rw;
}

LogsClientSpec decode_logs_client(const Reader& r) {
  LogsClientSpec c;
  c.url = r.str_or("url");
  if (c.url.empty()) r.error("url", "is required");
  c.tenant_id = r.str_or("tenantId");
  c.batch_wait = r.str_or("batchWait");
  c.batch_size = r.integer("batchSize");
  c.basic_auth = decode_basic_auth(r, "basicAuth");
  c.oauth2 = decode_oauth2(r, "oauth2");
  c.bearer_token = r.str_or("bearerToken");
  c.bearer_token_file = r.str_or("bearerTokenFile");
  c.proxy_url = r.str_or("proxyUrl");
  c.tls_config = decode_tls(r, "tlsConfig", true);
  Reader b = r.object("backoffConfig");
  c.has_backoff = b.present();
  c.backoff_min_period = b.str_or("minPeriod");
  c.backoff_max_period = b.str_or("maxPeriod");
  c.backoff_max_retries = b.integer("maxRetries");
  c.external_labels = r.string_map("externalLabels");
  check_label_name_keys(r, "externalLabels", c.external_labels);
  c.timeout = r.str_or("timeout");
  // Promtail: at most one of basic_auth, oauth2, bearer_token and
  // bearer_token_file.
  check_exclusive(r, {{"basicAuth", c.basic_auth.has_value()},
                      {"oauth2", c.oauth2.has_value()},
                      {"bearerToken", !c.bearer_token.empty()},
                      {"bearerTokenFile", !c.bearer_token_file.empty()}});
  return c;
}

ShardingStrategy decode_sharding_strategy(const Reader& m) {
  const std::optional<std::string> s = m.str("shardingStrategy");
  if (!s || *s == "hashmod") return ShardingStrategy::hashmod;
  if (*s == "consistent") return ShardingStrategy::consistent;
  if (*s == "node") return ShardingStrategy::node;
  m.error("shardingStrategy", "must be one of hashmod, consistent, node, got \"" + *s + "\"");
  return ShardingStrategy::hashmod;
}

void decode_metrics_subsystem(const Reader& m, MetricsSubsystemSpec& out) {
  out.remote_write = decode_remote_writes(m, "remoteWrite");
  out.replicas = m.integer("replicas");
  out.shards = m.integer("shards");
  // Each shard is a StatefulSet and each replica a pod: cap both so one
  // object cannot make the renderer (or the cluster) build millions.
  if (out.replicas && *out.replicas > kMaxReplicas)
    m.error("replicas", "must be at most " + std::to_string(kMaxReplicas) + ", got " + std::to_string(*out.replicas));
  if (out.shards && *out.shards > kMaxShards)
    m.error("shards", "must be at most " + std::to_string(kMaxShards) + ", got " + std::to_string(*out.shards));
  out.sharding_strategy = decode_sharding_strategy(m);
  out.replica_external_label_name = m.str("replicaExternalLabelName");
  out.metrics_external_label_name = m.str("metricsExternalLabelName");
  if (out.replica_external_label_name)
    check_label_name(m, "replicaExternalLabelName", *out.replica_external_label_name, true);
  if (out.metrics_external_label_name)
    check_label_name(m, "metricsExternalLabelName", *out.metrics_external_label_name, true);
  out.scrape_interval = m.str_or("scrapeInterval");
  out.scrape_timeout = m.str_or("scrapeTimeout");
  out.external_labels = m.string_map("externalLabels");
  check_label_name_keys(m, "externalLabels", out.external_labels);
  out.deny_fs_access_through_sms = m.object("arbitraryFSAccessThroughSMs").flag("deny");
  out.override_honor_labels = m.flag("overrideHonorLabels");
  out.override_honor_timestamps = m.flag("overrideHonorTimestamps");
  out.ignore_namespace_selectors = m.flag("ignoreNamespaceSelectors");
  out.enforced_namespace_label = m.str_or("enforcedNamespaceLabel");
  check_label_name(m, "enforcedNamespaceLabel", out.enforced_namespace_label, true);
  out.enforced_sample_limit = m.integer("enforcedSampleLimit");
  out.enforced_target_limit = m.integer("enforcedTargetLimit");
  out.instance_selector = decode_selector(m, "instanceSelector");
  out.instance_namespace_selector = decode_selector(m, "instanceNamespaceSelector");
}

void decode_logs_subsystem(const Reader& l, LogsSubsystemSpec& out) {
  out.clients = decode_logs_clients(l, "clients");
  out.logs_external_label_name = l.str("logsExternalLabelName");
  if (out.logs_external_label_name) check_label_name(l, "logsExternalLabelName", *out.logs_external_label_name, true);
  out.instance_selector = decode_selector(l, "instanceSelector");
  out.instance_namespace_selector = decode_selector(l, "instanceNamespaceSelector");
  out.ignore_namespace_selectors = l.flag("ignoreNamespaceSelectors");
  out.enforced_namespace_label = l.str_or("enforcedNamespaceLabel");
  check_label_name(l, "enforcedNamespaceLabel", out.enforced_namespace_label, true);
}

std::optional<APIServerConfig> decode_api_server(const Reader& spec) {
  Reader a = spec.object("apiServer");
  if (!a.present()) return std::nullopt;
  APIServerConfig c;
  c.host = a.str_or("host");
  if (c.host.empty()) a.error("host", "is required");
  c.basic_auth = decode_basic_auth(a, "basicAuth");
  c.bearer_token = a.str_or("bearerToken");
  c.bearer_token_file = a.str_or("bearerTokenFile");
  c.tls_config = decode_tls(a, "tlsConfig", true);
  c.authorization = decode_authorization(a, "authorization");
  return c;
}

void decode_pod_fields(const Reader& spec, GrafanaAgent& ga) {
  ga.pod_metadata = spec.raw_object("podMetadata");
  ga.image_pull_secrets = spec.raw_array("imagePullSecrets");
  ga.storage = spec.raw_object("storage");
  ga.volumes = spec.raw_array("volumes");
  ga.volume_mounts = spec.raw_array("volumeMounts");
  ga.resources = spec.raw_object("resources");
  ga.node_selector = spec.raw_object("nodeSelector");
  ga.affinity = spec.raw_object("affinity");
  ga.tolerations = spec.raw_array("tolerations");
  ga.topology_spread_constraints = spec.raw_array("topologySpreadConstraints");
  ga.security_context = spec.raw_object("securityContext");
  ga.containers = spec.raw_array("containers");
  ga.init_containers = spec.raw_array("initContainers");
  // Validate the pass-through fields the renderer reads into.
  spec.string_map("nodeSelector");
  Reader pm = spec.object("podMetadata");
  pm.string_map("labels");
  pm.string_map("annotations");
  spec.each("containers", [](const Reader& c, std::size_t) {
    if (c.str_or("name").empty()) c.error("name", "is required");
  });
}

}  // namespace

std::vector<RemoteWriteSpec> decode_remote_writes(const Reader& parent, std::string_view key) {
  std::vector<RemoteWriteSpec> out;
  parent.each(key, [&](const Reader& r, std::size_t) { out.push_back(decode_remote_write(r)); });
  return out;
}

std::vector<LogsClientSpec> decode_logs_clients(const Reader& parent, std::string_view key) {
  std::vector<LogsClientSpec> out;
  parent.each(key, [&](const Reader& r, std::size_t) { out.push_back(decode_logs_client(r)); });
  return out;
}

GrafanaAgent decode_grafana_agent(const Value& obj, FieldErrors& errors) {
  Reader root(&obj, "", &errors);
  GrafanaAgent ga;
  ga.meta = decode_meta(root);
  Reader spec = root.object("spec");
  ga.log_level = spec.str_or("logLevel");
  ga.log_format = spec.str_or("logFormat");
  ga.api_server = decode_api_server(spec);
  ga.version = spec.str_or("version");
  ga.image = spec.str_or("image");
  ga.config_reloader_version = spec.str_or("configReloaderVersion");
  ga.config_reloader_image = spec.str_or("configReloaderImage");
  ga.paused = spec.flag("paused");
  ga.service_account_name = spec.str_or("serviceAccountName");
  ga.secrets = spec.strings("secrets");
  ga.config_maps = spec.strings("configMaps");
  ga.priority_class_name = spec.str_or("priorityClassName");
  ga.runtime_class_name = spec.str_or("runtimeClassName");
  if (auto p = spec.str("portName"); p && !p->empty()) ga.port_name = *p;
  ga.enable_config_read_api = spec.flag("enableConfigReadAPI");
  ga.disable_reporting = spec.flag("disableReporting");
  ga.disable_support_bundle = spec.flag("disableSupportBundle");
  decode_pod_fields(spec, ga);
  decode_metrics_subsystem(spec.object("metrics"), ga.metrics);
  decode_logs_subsystem(spec.object("logs"), ga.logs);
  Reader integ = spec.object("integrations");
  ga.integrations_selector = decode_selector(integ, "selector");
  ga.integrations_namespace_selector = decode_selector(integ, "namespaceSelector");
  Reader metrics_integ = spec.object("metricsIntegrations");
  ga.metrics_integrations_selector = decode_selector(metrics_integ, "selector");
  ga.metrics_integrations_namespace_selector = decode_selector(metrics_integ, "namespaceSelector");
  return ga;
}

MetricsInstance decode_metrics_instance(const Value& obj, FieldErrors& errors) {
  Reader root(&obj, "", &errors);
  MetricsInstance mi;
  mi.meta = decode_meta(root);
  Reader spec = root.object("spec");
  mi.wal_truncate_frequency = spec.str_or("walTruncateFrequency");
  mi.min_wal_time = spec.str_or("minWALTime");
  mi.max_wal_time = spec.str_or("maxWALTime");
  mi.remote_flush_deadline = spec.str_or("remoteFlushDeadline");
  mi.write_stale_on_shutdown = spec.boolean("writeStaleOnShutdown");
  mi.service_monitor_selector = decode_selector(spec, "serviceMonitorSelector");
  mi.service_monitor_namespace_selector = decode_selector(spec, "serviceMonitorNamespaceSelector");
  mi.pod_monitor_selector = decode_selector(spec, "podMonitorSelector");
  mi.pod_monitor_namespace_selector = decode_selector(spec, "podMonitorNamespaceSelector");
  mi.probe_selector = decode_selector(spec, "probeSelector");
  mi.probe_namespace_selector = decode_selector(spec, "probeNamespaceSelector");
  mi.integration_monitor_selector = decode_selector(spec, "integrationMonitorSelector");
  mi.integration_monitor_namespace_selector = decode_selector(spec, "integrationMonitorNamespaceSelector");
  mi.remote_write = decode_remote_writes(spec, "remoteWrite");
  mi.additional_scrape_configs = decode_key_ref(spec, "additionalScrapeConfigs");
  return mi;
}

LogsInstance decode_logs_instance(const Value& obj, FieldErrors& errors) {
  Reader root(&obj, "", &errors);
  LogsInstance li;
  li.meta = decode_meta(root);
  Reader spec = root.object("spec");
  li.clients = decode_logs_clients(spec, "clients");
  li.pod_logs_selector = decode_selector(spec, "podLogsSelector");
  li.pod_logs_namespace_selector = decode_selector(spec, "podLogsNamespaceSelector");
  li.additional_scrape_configs = decode_key_ref(spec, "additionalScrapeConfigs");
  li.target_sync_period = spec.object("targetConfig").str_or("syncPeriod");
  return li;
}

PodLogs decode_pod_logs(const Value& obj, FieldErrors& errors) {
  Reader root(&obj, "", &errors);
  PodLogs pl;
  pl.meta = decode_meta(root);
  Reader spec = root.object("spec");
  pl.job_label = spec.str_or("jobLabel");
  pl.pod_target_labels = spec.strings("podTargetLabels");
  pl.selector = decode_selector(spec, "selector");
  if (!pl.selector) spec.error("selector", "is required");
  pl.namespace_selector = decode_namespace_selector(spec, "namespaceSelector");
  spec.each("pipelineStages", [&](const Reader& r, std::size_t) {
    if (auto st = decode_pipeline_stage(r)) pl.pipeline_stages.push_back(std::move(*st));
  });
  pl.relabelings = decode_relabelings(spec, "relabelings");
  return pl;
}

}  // namespace model
