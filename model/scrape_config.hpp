// prometheus-operator's monitoring.coreos.com/v1alpha1 ScrapeConfig: one
// Prometheus scrape job written as a custom resource. The target allocator
// renders it (model/scrape/jobs.hpp, scrape_config_job); the operator's
// GrafanaAgent rendering does not read this kind.
// Supported service discovery: staticConfigs, fileSDConfigs, httpSDConfigs
// and kubernetesSDConfigs. Every other `*SDConfigs` field (consul, dns,
// ec2, ...) is an error at its path, so such a ScrapeConfig is left out
// with a problem rather than served without its targets.
// Contract: decode_scrape_config fills `errors` with path-qualified
// problems (wrong types, values outside the CRD's enums, unsupported SD
// kinds); an object with errors must not be rendered. Durations are checked
// by the renderer, which knows the defaults they are compared with.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/meta.hpp"
#include "model/monitors.hpp"

namespace model {

// The HTTP client of an httpSDConfigs or kubernetesSDConfigs entry; TLS and
// authorization are the "safe" forms (no files).
struct SdHttpClient {
  std::optional<BasicAuth> basic_auth;
  std::optional<Authorization> authorization;
  std::optional<OAuth2> oauth2;
  std::optional<TLSConfig> tls_config;
  ProxySettings proxy;
  std::optional<bool> follow_redirects, enable_http2;
};

struct StaticTargetGroup {
  std::vector<std::string> targets;
  std::map<std::string, std::string> labels;
};

struct FileSdConfig {
  std::vector<std::string> files;
  std::string refresh_interval;  // "" = Prometheus's default
};

struct HttpSdConfig {
  std::string url;
  std::string refresh_interval;
  SdHttpClient http;
};

struct KubernetesSdSelector {
  std::string role;  // lower case, as Prometheus spells it
  std::optional<std::string> label, field;
};

struct KubernetesSdConfig {
  std::optional<std::string> api_server;
  std::string role;  // lower case
  bool has_namespaces = false;
  std::vector<std::string> namespace_names;
  std::optional<bool> own_namespace;
  std::optional<bool> attach_metadata_node;  // set when attachMetadata is present
  std::vector<KubernetesSdSelector> selectors;
  SdHttpClient http;
};

struct ScrapeConfig {
  ObjectMeta meta;
  std::string job_name;  // spec.jobName: the `job` label, not the job_name
  std::vector<StaticTargetGroup> static_configs;
  std::vector<FileSdConfig> file_sd_configs;
  std::vector<HttpSdConfig> http_sd_configs;
  std::vector<KubernetesSdConfig> kubernetes_sd_configs;
  std::vector<RelabelConfig> relabelings, metric_relabelings;
  std::string metrics_path, scrape_interval, scrape_timeout, scheme;  // scheme lower case
  std::vector<std::string> scrape_protocols;
  std::string fallback_scrape_protocol;
  std::optional<bool> honor_timestamps, track_timestamps_staleness, honor_labels;
  std::optional<bool> enable_compression, enable_http2;
  std::map<std::string, std::vector<std::string>> params;
  std::optional<BasicAuth> basic_auth;
  std::optional<Authorization> authorization;
  std::optional<OAuth2> oauth2;
  std::optional<TLSConfig> tls_config;
  ProxySettings proxy;
  ScrapeLimits limits;  // keepDroppedTargets included
  std::string body_size_limit;
  NativeHistogramSettings native_histograms;
  std::string name_validation_scheme, name_escaping_scheme;  // as Prometheus spells them
  std::string scrape_class;                                  // "" = the default class
};

ScrapeConfig decode_scrape_config(const Value& obj, FieldErrors& errors);

}  // namespace model
