// Scrape classes as prometheus-operator's Prometheus.spec.scrapeClasses
// defines them: named bundles of TLS files, authorization, relabelings,
// metric relabelings, attachMetadata and a fallback scrape protocol that a
// monitor (ServiceMonitor, PodMonitor, Probe, ScrapeConfig) selects with
// spec.scrapeClass, or gets as the default class when it names none.
// The target allocator reads them from its config (prometheus_cr.
// scrape_classes); the operator's GrafanaAgent rendering has none.
// Contract: decode_scrape_classes reports every problem at a field path of
// the list (e.g. "prometheus_cr.scrape_classes[1].name") and never throws.
// A decoded list without errors has unique non-empty names, at most one
// default, valid relabelings, and TLS/authorization that name files only:
// a class has no namespace, so Secret and ConfigMap references are errors.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/meta.hpp"

namespace model {

struct ScrapeClass {
  std::string name;
  bool is_default = false;
  std::optional<TLSConfig> tls_config;         // caFile/certFile/keyFile, serverName, insecureSkipVerify
  std::optional<Authorization> authorization;  // type and credentialsFile
  std::vector<RelabelConfig> relabelings;
  std::vector<RelabelConfig> metric_relabelings;
  std::optional<bool> attach_metadata_node;  // set when the class has attachMetadata
  std::string fallback_scrape_protocol;      // "" = unset
};

struct ScrapeClasses {
  std::vector<ScrapeClass> classes;
  const ScrapeClass* find(const std::string& name) const;
  const ScrapeClass* default_class() const;
};

// Reads a list of ScrapeClass objects (camelCase fields) at `list`'s path.
ScrapeClasses decode_scrape_classes(const Value* list, const std::string& path, FieldErrors& errors);

// Prometheus's scrape protocol names, as the CRDs enumerate them.
bool is_scrape_protocol(const std::string& s);

}  // namespace model
