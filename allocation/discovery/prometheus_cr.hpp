// Prometheus CR discovery (upstream's `prometheus_cr`): the settings of the
// config file and an index of watched ServiceMonitors, PodMonitors,
// Probes, ScrapeConfigs, Namespaces, Secrets and ConfigMaps that renders
// the selected monitors into scrape configs with the operator's own
// renderer (model/scrape/jobs.hpp), so job names are prometheus-operator's
// (serviceMonitor/<ns>/<name>/<i>, podMonitor/<ns>/<name>/<i>,
// probe/<ns>/<name>, scrapeConfig/<ns>/<name>).
// Contract: pure. parse_prometheus_cr throws DiscoveryError naming the
// field (e.g. "prometheus_cr.scrape_classes[1].name: is required").
// Selector semantics as upstream's allocator: an absent (or empty)
// monitor selector selects every monitor, an absent namespace selector
// every namespace; allow_namespaces/deny_namespaces (mutually exclusive)
// restrict all four kinds by the monitor's namespace. Scrape classes apply
// as prometheus-operator applies Prometheus.spec.scrapeClasses; a monitor
// naming an unknown class is left out. Credentials a monitor references
// (basicAuth, bearerTokenSecret, authorization, oauth2, TLS CA/cert/key,
// proxyConnectHeader) are resolved from the indexed Secrets and ConfigMaps
// of the monitor's namespace and rendered inline (TLS as inline PEM
// `ca`/`cert`/`key`), so a collector needs no files from the operator. A
// monitor whose reference is missing (object or key, unless optional), or
// that cannot be rendered for another reason, is left out with a problem
// naming the monitor and field, never served half-configured. Problems
// never hold Secret values; the rendered jobs do, so callers must redact
// them before showing (allocation/responses.hpp does for /scrape_configs).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "allocation/discovery/kubernetes_index.hpp"
#include "model/meta.hpp"
#include "model/scrape_class.hpp"
#include "model/value.hpp"

namespace allocation::discovery {

struct PrometheusCrConfig {
  bool enabled = false;
  std::string scrape_interval;  // default for monitors without an interval; "" = none
  std::optional<model::LabelSelector> service_monitor_selector, pod_monitor_selector, probe_selector,
      scrape_config_selector;
  std::optional<model::LabelSelector> service_monitor_namespace_selector, pod_monitor_namespace_selector,
      probe_namespace_selector, scrape_config_namespace_selector;
  // At most one is non-empty; empty = no restriction.
  std::vector<std::string> allow_namespaces, deny_namespaces;
  // ServiceMonitors reading files on the collector (bearerTokenFile,
  // tlsConfig caFile/certFile/keyFile) are left out. Ours defaults to true;
  // upstream's allocator defaults to false.
  bool deny_fs_access_through_sms = true;
  model::ScrapeClasses scrape_classes;
  // Whether Namespace objects must be watched (some namespace selector is set).
  bool needs_namespaces() const;
  // allow_namespaces/deny_namespaces admit a monitor in `ns`.
  bool namespace_allowed(const std::string& ns) const;
};

// Reads the `prometheus_cr` block (null or absent: disabled).
PrometheusCrConfig parse_prometheus_cr(const model::Value* block, const std::string& field);

class PrometheusCrIndex {
 public:
  explicit PrometheusCrIndex(PrometheusCrConfig config) : config_(std::move(config)) {}
  // A config reload: new selectors over the objects already indexed.
  void set_config(PrometheusCrConfig config) { config_ = std::move(config); }
  const PrometheusCrConfig& config() const { return config_; }
  // `kind` is "ServiceMonitor", "PodMonitor", "Probe", "ScrapeConfig",
  // "Namespace", "Secret" or "ConfigMap"; others are ignored. Returns
  // whether the rendered jobs may have changed: for a Secret or ConfigMap,
  // only when its data changed and some monitor lives in its namespace.
  // Secrets and ConfigMaps of every namespace are kept (a monitor may
  // appear there later), so callers should not feed unrelated bulk ones.
  bool apply(const std::string& kind, Change change, const ObjectPtr& object);
  // The scrape configs of every selected monitor, ServiceMonitors, then
  // PodMonitors, then Probes, then ScrapeConfigs, each sorted by namespace
  // and name. Monitors that cannot be rendered are left out with one line
  // each in `problems`.
  model::Value jobs(std::vector<std::string>& problems) const;

 private:
  bool selected(const std::string& kind, const model::Value& object) const;
  bool has_monitors(const std::string& ns) const;

  PrometheusCrConfig config_;
  std::map<std::string, std::map<std::string, ObjectPtr>> objects_;  // kind -> ns/name -> object
  std::map<std::string, model::Labels> namespace_labels_;
};

}  // namespace allocation::discovery
