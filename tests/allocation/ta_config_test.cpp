// The target-allocator config file: keys, static_configs targets and the
// errors that name the offending field.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "actors/allocation/runtime.hpp"
#include "allocation/runtime/config.hpp"
#include "golden_util.hpp"

using allocation::runtime::ConfigError;
using allocation::runtime::load_config;

TEST_CASE("the target allocator config reads per-node's fallback strategy", "[allocation][config]") {
  const char* const kPerNode = R"(
allocation_strategy: per-node
allocation_fallback_strategy: %s
config: {scrape_configs: []}
)";
  auto with = [&](const std::string& fallback) {
    std::string text = kPerNode;
    text.replace(text.find("%s"), 2, fallback);
    return load_config(text, "ta.yaml");
  };
  const auto c = with("consistent-hashing");
  CHECK(c.strategy.name == "per-node");
  CHECK(c.strategy.fallback == "consistent-hashing");
  CHECK(allocation::make_strategy(c.strategy)->name() == "per-node");
  CHECK(load_config("allocation_strategy: per-node\n", "ta.yaml").strategy.fallback.empty());
  CHECK_FALSE(c.strategy.fallback_for_nodes_without_collector);
  CHECK(load_config("allocation_fallback_for_nodes_without_collector: true\n", "ta.yaml")
            .strategy.fallback_for_nodes_without_collector);
  CHECK_THROWS_WITH(load_config("allocation_fallback_for_nodes_without_collector: yes please\n", "ta.yaml"),
                    "allocation_fallback_for_nodes_without_collector: must be true or false");
  CHECK_THROWS_WITH(allocation::make_strategy(with("round-robin").strategy),
                    Catch::Contains("allocation_fallback_strategy: allocation_strategy: unknown strategy"));
  CHECK_THROWS_WITH(allocation::make_strategy(with("per-node").strategy),
                    Catch::Contains("per-node cannot be its own fallback"));
}

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
  CHECK(error("config: {scrape_configs: [{job_name: a, consul_sd_configs: []}]}") ==
        "config.scrape_configs[0].consul_sd_configs: not supported yet (only static_configs, file_sd_configs, "
        "http_sd_configs and kubernetes_sd_configs)");
  CHECK(error("prometheus_cr: {enabled: yes please}") == "prometheus_cr.enabled: must be a boolean");
  CHECK(error("config: {scrape_configs: [{static_configs: []}]}") == "config.scrape_configs[0].job_name: is required");
  // UTF-8 names unless the job or the global block asks for legacy ones.
  CHECK(error("config: {scrape_configs: [{job_name: a, static_configs: [{labels: {1x.y: y}}]}]}") == "no error");
  CHECK(error("config: {scrape_configs: [{job_name: a, metric_name_validation_scheme: legacy, static_configs: "
              "[{labels: {1x: y}}]}]}") == "config.scrape_configs[0].static_configs[0].labels.1x: invalid label name");
  CHECK(error("config: {global: {metric_name_validation_scheme: legacy}, scrape_configs: [{job_name: a, "
              "relabel_configs: [{source_labels: [a.b], action: keep}]}]}") ==
        "config.scrape_configs[0].relabel_configs[0].source_labels: \"a.b\" is not a valid label name");
  CHECK(error("config: {scrape_configs: [{job_name: a, metric_name_validation_scheme: ascii}]}") ==
        "config.scrape_configs[0].metric_name_validation_scheme: unknown name validation scheme \"ascii\" (want "
        "utf8 or legacy)");
  CHECK(error("config: {scrape_configs: [{job_name: a, scrape_interval: 10s, scrape_timeout: 20s}]}") ==
        "config.scrape_configs[0].scrape_timeout: scrape timeout greater than scrape interval");
  CHECK(error("config: {scrape_configs: [{job_name: a, static_configs: [{targets: [\"http://x\"]}]}]}") ==
        "config.scrape_configs[0].static_configs[0].targets: \"http://x\" is not a valid hostname");
  // Unless the job relabels, as a Probe's does (its URLs become
  // __param_target): Prometheus checks the address after relabeling then.
  CHECK(error("config: {scrape_configs: [{job_name: a, static_configs: [{targets: [\"http://x\"]}], relabel_configs: "
              "[{source_labels: [__address__], target_label: __param_target}]}]}") == "no error");
  CHECK(error("config: {scrape_configs: [{job_name: a, static_configs: [{targets: [\"\"]}]}]}") ==
        "config.scrape_configs[0].static_configs[0].targets[0]: must be a non-empty string");
  // Duplicate job names, which Prometheus refuses, are refused at load.
  CHECK(error("config: {scrape_configs: [{job_name: a}, {job_name: b}, {job_name: a}]}") ==
        "config.scrape_configs[2].job_name: duplicate job name \"a\" (also config.scrape_configs[0]); Prometheus "
        "refuses such a config");
  // Relabel rules are validated whatever the filter strategy.
  for (const char* key : {"relabel_configs", "metric_relabel_configs"}) {
    INFO(key);
    std::string e = error(std::string("config: {scrape_configs: [{job_name: a, ") + key +
                          ": [{source_labels: [x], regex: '(unclosed', action: keep}]}]}");
    INFO(e);
    CHECK(e.starts_with(std::string("config.scrape_configs[0].") + key + "[0].regex: "));
    CHECK(error(std::string("config: {scrape_configs: [{job_name: a, ") + key + ": [{action: explode}]}]}")
              .starts_with(std::string("config.scrape_configs[0].") + key + "[0].action: "));
  }
  CHECK(error("config: {scrape_configs: [{job_name: a, relabel_configs: [{action: keep, source_labels: [x], regex: "
              "y}]}]}") == "no error");
}

// What the operator hands its allocation for a consistent agent
// (tests/model/sharding_strategy_test.cpp renders the golden) must load,
// static Probe URLs included: a refused config leaves every shard without
// targets.
TEST_CASE("the operator's allocator config for a consistent agent loads with its Probe URLs",
          "[allocation][config][sharding]") {
  auto c =
      load_config(testutil::read_text(testutil::source_path("tests/golden/metrics/consistent_sharding.allocator.yaml")),
                  "consistent_sharding.allocator.yaml");
  CHECK(c.collectors == std::vector<std::string>{"0", "1", "2"});
  REQUIRE(c.targets.size() == 1);
  CHECK(c.targets[0].job.text() == "probe/app/sites");
  CHECK(c.targets[0].address == "https://example.com");
}

TEST_CASE("kubernetes_sd_configs and prometheus_cr are recorded as needing the Kubernetes API",
          "[allocation][config]") {
  auto c = load_config(R"(
prometheus_cr: {enabled: true}
config:
  scrape_configs:
    - job_name: a
      static_configs: [{targets: ["x:1"]}]
    - job_name: b
      kubernetes_sd_configs: [{role: pod}]
)",
                       "ta.yaml");
  CHECK(c.kubernetes_fields ==
        std::vector<std::string>{"prometheus_cr.enabled", "config.scrape_configs[1].kubernetes_sd_configs"});
  CHECK(c.targets.size() == 1);
  CHECK(load_config("prometheus_cr: {enabled: false}", "ta.yaml").kubernetes_fields.empty());
  auto pods = load_config(R"(
collector_selector: {matchlabels: {app: col}}
collector_namespace: otel
prometheus_cr: {enabled: true, pod_monitor_selector: {matchLabels: {team: a}}}
)",
                          "ta.yaml");
  CHECK(pods.kubernetes_fields == std::vector<std::string>{"collector_selector", "prometheus_cr.enabled"});
  CHECK(pods.collector_namespace == "otel");
  REQUIRE(pods.collector_selector);
  CHECK(pods.collector_selector->match_labels.at("app") == "col");
  REQUIRE(pods.prometheus_cr.pod_monitor_selector);
  CHECK_THROWS_WITH(load_config("collector_selector: [x]", "ta.yaml"),
                    "collector_selector: must be a label selector (matchLabels/matchExpressions)");
}

TEST_CASE("check_kubeconfig needs a current context with a server", "[allocation][config]") {
  const auto dir = std::filesystem::temp_directory_path() / ("ta-kc-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  auto error = [](const std::string& path, const std::string& sa_dir = "/nonexistent") {
    try {
      actors::ta::check_kubeconfig(path, sa_dir);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto good = write("good", R"(current-context: dev
contexts: [{name: dev, context: {cluster: c}}]
clusters: [{name: c, cluster: {server: "https://10.0.0.1:443"}}]
)");
  CHECK(actors::ta::check_kubeconfig(good) == "https://10.0.0.1:443");
  CHECK(error((dir / "missing").string()) == "--kubeconfig-path: cannot read " + (dir / "missing").string());
  CHECK_THAT(error(write("noctx", "clusters: []\n")), Catch::EndsWith("current-context: is not set"));
  CHECK_THAT(error(write("nocluster", "current-context: dev\ncontexts: [{name: dev, context: {cluster: c}}]\n")),
             Catch::Contains("clusters: no entry named \"c\""));
  const char* home = std::getenv("HOME");
  if (!std::getenv("KUBERNETES_SERVICE_HOST") && !std::getenv("KUBECONFIG") &&
      !(home && std::filesystem::exists(std::filesystem::path(home) / ".kube/config")))
    CHECK_THAT(error(""), Catch::Contains("not running in a cluster"));
  std::filesystem::remove_all(dir);
}
