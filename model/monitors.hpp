// The monitoring.coreos.com/v1 kinds the agent consumes: ServiceMonitor,
// PodMonitor and Probe, with every field of prometheus-operator v0.66 plus
// the later spec.scrapeClass and spec.fallbackScrapeProtocol (read by the
// target allocator only; the operator's rendering ignores them), and
// monitoring.grafana.com/v1alpha1 IntegrationMonitor, which shares their
// endpoint scrape settings.
// Contract: decode_* fill `errors` with path-qualified problems; an object
// with errors must not be rendered.
#pragma once

#include "model/meta.hpp"

namespace model {

struct ScrapeLimits {
  std::optional<std::int64_t> sample_limit, target_limit, label_limit, label_name_length_limit,
      label_value_length_limit;
};

// A ServiceMonitor endpoint or a PodMonitor podMetricsEndpoint.
struct Endpoint {
  std::string port;
  std::optional<IntOrString> target_port;
  std::string path;
  std::string scheme;
  std::map<std::string, std::vector<std::string>> params;
  std::string interval;
  std::string scrape_timeout;
  std::optional<TLSConfig> tls_config;
  std::string bearer_token_file;
  std::optional<SecretKeySelector> bearer_token_secret;
  std::optional<Authorization> authorization;
  bool honor_labels = false;
  std::optional<bool> honor_timestamps;
  std::optional<BasicAuth> basic_auth;
  std::optional<OAuth2> oauth2;
  std::vector<RelabelConfig> metric_relabelings;
  std::vector<RelabelConfig> relabelings;
  std::string proxy_url;
  std::optional<bool> follow_redirects;
  std::optional<bool> enable_http2;
  std::optional<bool> filter_running;
};

struct ServiceMonitor {
  ObjectMeta meta;
  std::string job_label;
  std::vector<std::string> target_labels;
  std::vector<std::string> pod_target_labels;
  std::vector<Endpoint> endpoints;
  std::optional<LabelSelector> selector;
  NamespaceSelector namespace_selector;
  ScrapeLimits limits;
  std::optional<bool> attach_metadata_node;  // set when spec.attachMetadata is present
  std::string scrape_class;                  // "" = the default class
  std::string fallback_scrape_protocol;      // "" = unset
};

struct PodMonitor {
  ObjectMeta meta;
  std::string job_label;
  std::vector<std::string> pod_target_labels;
  std::vector<Endpoint> endpoints;  // podMetricsEndpoints
  std::optional<LabelSelector> selector;
  NamespaceSelector namespace_selector;
  ScrapeLimits limits;
  std::optional<bool> attach_metadata_node;  // set when spec.attachMetadata is present
  std::string scrape_class;
  std::string fallback_scrape_protocol;
};

struct ProbeStaticTargets {
  std::vector<std::string> targets;  // "static"
  std::map<std::string, std::string> labels;
  std::vector<RelabelConfig> relabelings;
};

struct ProbeIngressTargets {
  std::optional<LabelSelector> selector;
  NamespaceSelector namespace_selector;
  std::vector<RelabelConfig> relabelings;
};

struct Probe {
  ObjectMeta meta;
  std::string job_name;
  std::string prober_url, prober_scheme, prober_path, prober_proxy_url;
  bool has_prober_path = false;
  std::string module;
  std::optional<ProbeStaticTargets> static_targets;
  std::optional<ProbeIngressTargets> ingress_targets;
  std::string interval;
  std::string scrape_timeout;
  std::optional<TLSConfig> tls_config;
  std::optional<SecretKeySelector> bearer_token_secret;
  std::optional<BasicAuth> basic_auth;
  std::optional<OAuth2> oauth2;
  std::optional<Authorization> authorization;
  std::vector<RelabelConfig> metric_relabelings;
  ScrapeLimits limits;
  std::string scrape_class;
  std::string fallback_scrape_protocol;
};

// Selects MetricsIntegrations (and Integrations) by their labels and
// namespace; scraped through the operator's integrations SD endpoint, so
// only the scrape settings that do not name a port, path or transport apply:
// `endpoint` holds interval, scrapeTimeout, honorLabels, honorTimestamps,
// params, relabelings and metricRelabelings, read from spec.
struct IntegrationMonitor {
  ObjectMeta meta;
  std::optional<LabelSelector> selector;
  NamespaceSelector namespace_selector;
  Endpoint endpoint;
  ScrapeLimits limits;
};

ServiceMonitor decode_service_monitor(const Value& obj, FieldErrors& errors);
PodMonitor decode_pod_monitor(const Value& obj, FieldErrors& errors);
Probe decode_probe(const Value& obj, FieldErrors& errors);
IntegrationMonitor decode_integration_monitor(const Value& obj, FieldErrors& errors);

}  // namespace model
