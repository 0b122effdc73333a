// The monitoring.coreos.com/v1 kinds the agent consumes: ServiceMonitor,
// PodMonitor and Probe, with every field of prometheus-operator v0.93's
// schemas (deploy/prometheus-operator-crds), and
// monitoring.grafana.com/v1alpha1 IntegrationMonitor, which shares their
// endpoint scrape settings. Which of them a Grafana Agent can honour is the
// renderers' business (model/scrape/): the decoders keep every field, so a
// field is either rendered or reported, never lost here.
// Contract: decode_* fill `errors` with path-qualified problems; an object
// with errors must not be rendered.
#pragma once

#include "model/boxed.hpp"
#include "model/meta.hpp"

namespace model {

struct ScrapeLimits {
  std::optional<std::int64_t> sample_limit, target_limit, label_limit, label_name_length_limit,
      label_value_length_limit, keep_dropped_targets;
};

struct NativeHistogramSettings {
  std::optional<bool> scrape_native_histograms, scrape_classic_histograms, convert_classic_histograms_to_nhcb;
  std::optional<std::int64_t> bucket_limit;
  std::optional<double> min_bucket_factor;
};

// The spec-level scrape settings ServiceMonitor, PodMonitor and Probe share
// with ScrapeConfig, beyond the limits.
struct ScrapeProtocolSettings {
  std::vector<std::string> scrape_protocols;  // as the CRDs spell them
  std::string fallback_scrape_protocol;       // "" = unset
  std::string scrape_class;                   // "" = the default class
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
  Boxed<TLSConfig> tls_config;  // boxed: rarely set, and large (see model/boxed.hpp)
  std::string bearer_token_file;
  std::optional<SecretKeySelector> bearer_token_secret;
  Boxed<Authorization> authorization;
  bool honor_labels = false;
  std::optional<bool> honor_timestamps;
  Boxed<BasicAuth> basic_auth;
  Boxed<OAuth2> oauth2;
  std::vector<RelabelConfig> metric_relabelings;
  std::vector<RelabelConfig> relabelings;
  ProxySettings proxy;
  std::optional<bool> follow_redirects;
  std::optional<bool> enable_http2;
  std::optional<bool> filter_running;
  std::optional<bool> track_timestamps_staleness;
  std::optional<std::int64_t> port_number;  // PodMonitor only
};

// How ServiceMonitors and PodMonitors select their Services or Pods:
// keep/drop relabel rules (the default), or kubernetes_sd `selectors`.
enum class SelectorMechanism { relabel, role_selector };

struct ServiceMonitor {
  ObjectMeta meta;
  std::string job_label;
  std::vector<std::string> target_labels;
  std::vector<std::string> pod_target_labels;
  std::vector<Endpoint> endpoints;
  std::optional<LabelSelector> selector;
  SelectorMechanism selector_mechanism = SelectorMechanism::relabel;
  bool endpoint_slices = false;  // spec.serviceDiscoveryRole: EndpointSlice
  NamespaceSelector namespace_selector;
  ScrapeLimits limits;
  std::string body_size_limit;  // "" = unset
  NativeHistogramSettings native_histograms;
  std::optional<bool> attach_metadata_node;  // set when spec.attachMetadata is present
  ScrapeProtocolSettings protocols;
};

struct PodMonitor {
  ObjectMeta meta;
  std::string job_label;
  std::vector<std::string> pod_target_labels;
  std::vector<Endpoint> endpoints;  // podMetricsEndpoints
  std::optional<LabelSelector> selector;
  SelectorMechanism selector_mechanism = SelectorMechanism::relabel;
  NamespaceSelector namespace_selector;
  ScrapeLimits limits;
  std::string body_size_limit;
  NativeHistogramSettings native_histograms;
  std::optional<bool> attach_metadata_node;  // set when spec.attachMetadata is present
  ScrapeProtocolSettings protocols;
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
  std::string prober_url, prober_scheme, prober_path;  // scheme lower case
  ProxySettings prober_proxy;
  bool has_prober_path = false;
  std::string module;
  std::map<std::string, std::vector<std::string>> params;  // spec.params (name -> values)
  std::optional<ProbeStaticTargets> static_targets;
  std::optional<ProbeIngressTargets> ingress_targets;
  std::string interval;
  std::string scrape_timeout;
  Boxed<TLSConfig> tls_config;
  std::optional<SecretKeySelector> bearer_token_secret;
  Boxed<BasicAuth> basic_auth;
  Boxed<OAuth2> oauth2;
  Boxed<Authorization> authorization;
  std::optional<bool> follow_redirects, enable_http2;
  std::vector<RelabelConfig> metric_relabelings;
  ScrapeLimits limits;
  NativeHistogramSettings native_histograms;
  ScrapeProtocolSettings protocols;
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

// Decoders of the spec fields every monitor kind and ScrapeConfig share.
// sampleLimit .. labelValueLengthLimit and keepDroppedTargets.
ScrapeLimits decode_limits(const Reader& spec);
// scrapeNativeHistograms, scrapeClassicHistograms,
// convertClassicHistogramsToNHCB, nativeHistogramBucketLimit and
// nativeHistogramMinBucketFactor (a plain number).
NativeHistogramSettings decode_native_histograms(const Reader& spec);
// scrapeProtocols (known, unique), fallbackScrapeProtocol (known) and
// scrapeClass (non-empty when present).
ScrapeProtocolSettings decode_protocol_settings(const Reader& spec);
// bodySizeLimit, checked with is_byte_size.
std::string decode_body_size_limit(const Reader& spec);

ServiceMonitor decode_service_monitor(const Value& obj, FieldErrors& errors);
PodMonitor decode_pod_monitor(const Value& obj, FieldErrors& errors);
Probe decode_probe(const Value& obj, FieldErrors& errors);
IntegrationMonitor decode_integration_monitor(const Value& obj, FieldErrors& errors);

}  // namespace model
