// Randomized robustness of the target allocator's parsers: byte-mutated and
// type-confused config files, relabel rules and http_sd bodies must give the
// parser's own error (naming a field) or a result, never a crash or another
// exception type.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <utility>

#include "allocation/discovery/http_sd.hpp"
#include "allocation/relabel.hpp"
#include "allocation/runtime/config.hpp"
#include "golden_util.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

using allocation::runtime::ConfigError;

namespace {

const char* const kConfigs[] = {
    R"(allocation_strategy: consistent-hashing
filter_strategy: relabel-config
collectors: [c1, c2, c3]
config:
  scrape_configs:
  - job_name: web
    scrape_interval: 30s
    static_configs:
    - targets: ['10.0.0.1:8080', '10.0.0.2:8080']
      labels: {tier: front, __meta_zone: a}
    relabel_configs:
    - {source_labels: [__address__], modulus: 3, target_label: __tmp_hash, action: hashmod}
    - {source_labels: [__tmp_hash], regex: $(SHARD), action: keep}
    - {source_labels: [tier], regex: '(f)ront', target_label: t, replacement: '${1}x'}
    - {regex: '__meta_(.+)', action: labelmap}
  - job_name: sd
    http_sd_configs:
    - url: http://127.0.0.1:9/sd
      refresh_interval: 15s
)",
    R"(allocation_strategy: per-node
allocation_fallback_strategy: least-weighted
collector_selector:
  matchLabels: {app: collector}
  matchExpressions:
  - {key: tier, operator: In, values: [a, b]}
prometheus_cr:
  enabled: true
  service_monitor_selector: {matchLabels: {team: x}}
config:
  scrape_configs:
  - job_name: pods
    kubernetes_sd_configs:
    - role: pod
      namespaces: {names: [default, kube-system]}
      selectors:
      - {role: pod, label: 'app=web', field: 'spec.nodeName=n1'}
)",
};

const char* const kHttpSdBodies[] = {
    R"([{"targets": ["10.0.0.1:80", "10.0.0.2:80"], "labels": {"job": "x", "__meta_a": "b"}},
        {"targets": [], "labels": {}}, {"targets": ["h:1"]}])",
    R"([{"targets": ["a:1"], "labels": {"k": "v", "unicode": "\u00e9\u4e2d"}, "extra": [1, {"n": null}]}])",
};

std::string mutate(std::string s, std::mt19937& rng) {
  static const std::vector<std::string> tokens = testutil::yaml_fuzz_tokens({"$(SHARD)", "(", "\\", "true", "-1"});
  return testutil::mutate(std::move(s), rng, tokens);
}

// A config either loads or fails with ConfigError naming where; any other
// exception escapes and fails the test.
void load_checked(const std::string& text, int& loaded, int& rejected) {
  try {
    allocation::runtime::load_config(text, "fuzz.yaml");
    ++loaded;
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    INFO(what);
    REQUIRE(what.find(':') != std::string::npos);
    ++rejected;
  }
}

}  // namespace

TEST_CASE("byte-mutated target allocator configs load or give a ConfigError", "[allocation][fuzz]") {
  std::mt19937 rng(20261122);
  int loaded = 0, rejected = 0;
  for (const char* config : kConfigs) REQUIRE_NOTHROW(allocation::runtime::load_config(config, "seed.yaml"));
  for (const char* config : kConfigs) {
    for (int i = 0; i < 5000; ++i) load_checked(mutate(config, rng), loaded, rejected);
  }
  // Both outcomes occur, so the mutations reach past the YAML parser.
  CHECK(loaded > 50);
  CHECK(rejected > 500);
}

TEST_CASE("type-confused target allocator configs give a ConfigError naming a field", "[allocation][fuzz]") {
  std::mt19937 rng(7);
  int loaded = 0, rejected = 0;
  for (const char* config : kConfigs) {
    const model::Value tree = model::parse_documents(config, "seed").at(0).value;
    for (int i = 0; i < 600; ++i) load_checked(model::to_json(testutil::confuse(tree, rng, {})), loaded, rejected);
  }
  CHECK(rejected > 300);
}

TEST_CASE("mutated relabel rules and http_sd bodies fail with their own errors", "[allocation][fuzz]") {
  std::mt19937 rng(99);
  int parsed = 0, failed = 0;
  const std::string rules = R"(
- {source_labels: [a, b], separator: '-', regex: '(.+)-(\d+)', target_label: '${1}_x', replacement: '$2'}
- {source_labels: [c], regex: 'x|y|z', action: keepequal, target_label: d}
- {source_labels: [e], modulus: 7, target_label: f, action: hashmod}
- {regex: 'g_(.*)', action: labeldrop}
)";
  for (int i = 0; i < 5000; ++i) {
    try {
      auto docs = model::parse_documents(mutate(rules, rng), "fuzz");
      if (docs.empty()) continue;
      auto configs = allocation::parse_relabel_configs(docs.at(0).value, "relabel_configs");
      allocation::Relabeler relabeler(configs);
      allocation::LabelSet labels{{"a", "1"}, {"b", "22"}, {"c", "x"}, {"e", "q"}, {"g_1", "v"}};
      (void)relabeler.apply(labels);
      ++parsed;
    } catch (const model::ParseError&) {
      ++failed;
    } catch (const allocation::RelabelError& e) {
      REQUIRE(std::string(e.what()).rfind("relabel_configs", 0) == 0);
      ++failed;
    }
  }
  for (const char* body : kHttpSdBodies) {
    REQUIRE(!allocation::discovery::parse_http_sd(body, "http://sd").empty());
    for (int i = 0; i < 5000; ++i) {
      try {
        (void)allocation::discovery::parse_http_sd(mutate(body, rng), "http://sd");
        ++parsed;
      } catch (const allocation::discovery::DiscoveryError& e) {
        REQUIRE(std::string(e.what()).size() > 0);
        ++failed;
      }
    }
  }
  CHECK(parsed > 50);
  CHECK(failed > 500);
}
