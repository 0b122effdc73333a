// The target allocator's config file (upstream's keys plus our static
// `collectors` list) and the targets of its static_configs.
// Contract: load_config() throws ConfigError whose message names the field
// ("config.scrape_configs[0].kubernetes_sd_configs: ..."); only
// static_configs discovery exists in this step.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "allocation/collector.hpp"
#include "allocation/strategy.hpp"
#include "allocation/target.hpp"
#include "model/value.hpp"

namespace target_allocator {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Config {
  allocation::StrategyConfig strategy;
  std::string filter_strategy;  // "" or "relabel-config"
  std::vector<std::string> collectors;
  model::Value scrape_configs = model::Value::array();
  std::vector<allocation::Target> targets;  // from static_configs
};

// Parses the YAML/JSON text of a config file; `source` names it in errors.
Config load_config(std::string_view text, std::string_view source);

}  // namespace target_allocator
