#include <catch2/catch.hpp>

#include "model/codec.hpp"
#include "model/parse.hpp"
#include "model/size_limits.hpp"

using model::Value;

namespace {

Value secret_with(std::size_t raw_bytes) {
  return Value::obj({{"kind", "Secret"},
                     {"metadata", Value::obj({{"name", "s"}})},
                     {"data", Value::obj({{"k", model::base64_encode(std::string(raw_bytes, 'x'))}})}});
}

}  // namespace

TEST_CASE("Secret data is measured in decoded bytes against the 1 MiB limit", "[model][size]") {
  CHECK_FALSE(model::check_size(secret_with(model::kMaxDataBytes)));
  auto over = model::check_size(secret_with(model::kMaxDataBytes + 1));
  REQUIRE(over);
  CHECK(over->field == "data");
  CHECK(over->bytes == model::kMaxDataBytes + 1);
  CHECK(over->limit == 1048576);
  // ConfigMap data is plain text; binaryData is base64.
  Value cm = Value::obj({{"kind", "ConfigMap"},
                         {"data", Value::obj({{"a", std::string(600'000, 'y')}})},
                         {"binaryData", Value::obj({{"b", model::base64_encode(std::string(500'000, 'z'))}})}});
  auto cm_over = model::check_size(cm);
  REQUIRE(cm_over);
  CHECK(cm_over->bytes == 1'100'000);
}

TEST_CASE("annotations count keys and values, on the object and its pod template", "[model][size]") {
  Value sts = model::parse_json(
      R"({"kind": "StatefulSet", "metadata": {"annotations": {"a": "b"}}, "spec": {"template": {"metadata": {}}}})");
  CHECK_FALSE(model::check_size(sts));
  sts.find("spec")
      ->find("template")
      ->find("metadata")
      ->set("annotations", Value::obj({{"big", std::string(model::kMaxAnnotationBytes - 3, 'v')}}));
  CHECK_FALSE(model::check_size(sts));  // key and value: exactly the limit
  sts.find("spec")->find("template")->find("metadata")->find("annotations")->set("x", "yy");
  auto over = model::check_size(sts);
  REQUIRE(over);
  CHECK(over->field == "spec.template.metadata.annotations");
  CHECK(over->bytes == model::kMaxAnnotationBytes + 3);
}

TEST_CASE("the largest parts of an agent.yml are named by instance and monitor", "[model][size]") {
  std::string big_rules;
  for (int i = 0; i < 50; ++i) big_rules += "      - action: keep\n        regex: r" + std::to_string(i) + "\n";
  std::string yml =
      "server:\n  log_level: info\nmetrics:\n  configs:\n"
      "  - name: mon/primary\n    remote_write:\n    - url: http://x\n    scrape_configs:\n"
      "    - honor_labels: false\n      job_name: serviceMonitor/app/big/0\n      relabel_configs:\n" +
      big_rules + "    - job_name: serviceMonitor/app/big/1\n      relabel_configs:\n" + big_rules +
      "    - job_name: podMonitor/app/small/0\n      scheme: http\n"
      "  - name: mon/other\n    scrape_configs:\n    - job_name: extra\n      scheme: https\n"
      "logs:\n  configs:\n  - name: mon/logs\n    scrape_configs:\n    - job_name: podLogs/app/pl\n";
  auto parts = model::config_contributors(yml, 10);
  REQUIRE(parts.size() == 7);
  CHECK(parts[0].first == "MetricsInstance mon/primary");
  CHECK(parts[1].first == "ServiceMonitor app/big");  // both endpoints' jobs
  CHECK(parts[1].second > 2 * big_rules.size());
  CHECK(parts[0].second > parts[1].second);
  std::vector<std::string> names;
  for (const auto& [n, b] : parts) names.push_back(n);
  CHECK(std::count(names.begin(), names.end(), "PodMonitor app/small") == 1);
  CHECK(std::count(names.begin(), names.end(), "job extra") == 1);
  CHECK(std::count(names.begin(), names.end(), "LogsInstance mon/logs") == 1);
  CHECK(std::count(names.begin(), names.end(), "PodLogs app/pl") == 1);
  CHECK(model::config_contributors(yml, 2).size() == 2);
  // The text comes back out of a gzipped config Secret.
  Value secret = Value::obj({{"data", Value::obj({{"agent.yml", model::base64_encode(model::gzip_compress(yml))}})}});
  CHECK(model::config_text(secret) == yml);
}
