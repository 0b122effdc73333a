// The target-allocator config file: keys, static_configs targets and the
// errors that name the offending field.
#include <catch2/catch.hpp>

#include "cmd/target-allocator/config.hpp"

using target_allocator::ConfigError;
using target_allocator::load_config;

TEST_CASE("the target allocator config reads strategies collectors and static targets", "[allocation][config]") {
  auto c = load_config(R"(
allocation_strategy: least-weighted
filter_strategy: relabel-config
collector_selector: {matchLabels: {app: x}}
collectors: [c1, c2]
config:
  scrape_configs:
    - job_name: node
      static_configs:
        - targets: ["a:1", "b:1"]
          labels: {env: prod}
        - targets: ["c:1"]
)",
                       "ta.yaml");
  CHECK(c.strategy.name == "least-weighted");
  CHECK(c.filter_strategy == "relabel-config");
  CHECK(c.collectors == std::vector<std::string>{"c1", "c2"});
  REQUIRE(c.targets.size() == 3);
  CHECK(c.targets[0].job.text() == "node");
  CHECK(c.targets[0].address == "a:1");
  CHECK(c.targets[0].get(allocation::Name::intern("env")) == "prod");
  CHECK(c.targets[2].get(allocation::Name::intern("env")).empty());
  CHECK(c.scrape_configs.size() == 1);
}

TEST_CASE("target allocator config errors name the field", "[allocation][config]") {
  auto error = [](const std::string& text) {
    try {
      load_config(text, "ta.yaml");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error("filter_strategy: x").starts_with("filter_strategy: "));
  CHECK(error("collectors: [1]").starts_with("collectors[0]: "));
  CHECK(error("config: {scrape_configs: [{job_name: a, kubernetes_sd_configs: []}]}") ==
        "config.scrape_configs[0].kubernetes_sd_configs: not supported yet (only static_configs)");
  CHECK(error("config: {scrape_configs: [{static_configs: []}]}") == "config.scrape_configs[0].job_name: is required");
  CHECK(error("config: {scrape_configs: [{job_name: a, static_configs: [{labels: {1x: y}}]}]}") ==
        "config.scrape_configs[0].static_configs[0].labels.1x: invalid label name");
  CHECK(error("config: {scrape_configs: [{job_name: a, static_configs: [{targets: [\"\"]}]}]}") ==
        "config.scrape_configs[0].static_configs[0].targets[0]: must be a non-empty string");
}
