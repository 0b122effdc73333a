// The target allocator's config file (upstream's keys plus our static
// `collectors` list) and the targets of its static_configs.
// Contract: load_config() throws ConfigError whose message names the field
// ("config.scrape_configs[0].http_sd_configs[0].url: ..."). static_configs
// become targets; http_sd_configs and kubernetes_sd_configs are parsed and
// validated (allocation/discovery) for the caller to run, and so are
// file_sd_configs. kubernetes_sd_configs,
// `collector_selector` and `prometheus_cr.enabled` are also recorded in
// kubernetes_fields (they need a cluster connection, checked by the caller
// with check_kubeconfig()); other *_sd_configs are errors.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "allocation/collector.hpp"
#include "allocation/discovery/collectors.hpp"
#include "allocation/discovery/file_sd.hpp"
#include "allocation/discovery/http_sd.hpp"
#include "allocation/discovery/kubernetes_config.hpp"
#include "allocation/discovery/prometheus_cr.hpp"
#include "allocation/strategy.hpp"
#include "allocation/target.hpp"
#include "model/value.hpp"

namespace allocation::runtime {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `raw` (the entry as compact JSON) tells a reload which sources it keeps.
struct HttpSdJob {
  std::string job;
  std::string field;  // "config.scrape_configs[0].http_sd_configs[0]", for logs
  allocation::discovery::HttpSdConfig sd;
  std::string raw;
};

struct KubernetesSdJob {
  std::string job;
  std::string field;
  allocation::discovery::KubernetesSdConfig sd;  // namespaces.own_namespace adds nothing here
  std::string raw;
};

struct FileSdJob {
  std::string job;
  std::string field;
  allocation::discovery::FileSdConfig sd;
  std::string raw;
};

struct Config {
  allocation::StrategyConfig strategy;
  std::string filter_strategy;          // "" or "relabel-config"
  std::vector<std::string> collectors;  // our static list, used without collector_selector
  // Collector pods: selected by collector_selector in collector_namespace
  // (config key; --collector-namespace and $OTELCOL_NAMESPACE override or
  // fill it in the binary).
  std::optional<model::LabelSelector> collector_selector;
  std::string collector_namespace;
  allocation::discovery::PrometheusCrConfig prometheus_cr;
  model::Value scrape_configs = model::Value::array();
  model::Value global;             // config.global (intervals, metric_name_validation_scheme), null when absent
  allocation::TargetList targets;  // from static_configs
  // Fields that need the Kubernetes API, e.g.
  // "config.scrape_configs[0].kubernetes_sd_configs" or "prometheus_cr.enabled".
  std::vector<std::string> kubernetes_fields;
  std::vector<HttpSdJob> http_sd;
  std::vector<KubernetesSdJob> kubernetes_sd;
  std::vector<FileSdJob> file_sd;
};

// Parses the YAML/JSON text of a config file; `source` names it in errors.
Config load_config(std::string_view text, std::string_view source);

// Reads one scrape config (e.g. rendered from a Prometheus CR) into `out`:
// its static targets and sd configs, as load_config does for the file's
// (with out.global's defaults).
void read_scrape_job(const model::Value& job, const std::string& field, Config& out);

}  // namespace allocation::runtime
