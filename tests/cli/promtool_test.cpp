// Validates generated scrape configs and remote_write blocks with Debian's
// real `promtool check config`. Debian's Prometheus has no Kubernetes SD,
// so kubernetes_sd_configs become http_sd_configs, and the secret file paths
// the agent would read are created under a temporary directory. Debian's
// promtool is v2.42; the Grafana Agent's Prometheus is v2.48, and the keys
// it has that v2.42 lacks are removed first (kNewerThanPromtool), so every
// other key is still checked and an unknown one fails.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "golden_util.hpp"
#include "model/codec.hpp"
#include "model/parse.hpp"
#include "model/render.hpp"
#include "model/yaml_emit.hpp"

namespace fs = std::filesystem;
using model::Value;

namespace {

const std::string kSecretsDir = "/var/lib/grafana-agent/secrets/";

// Keys of the Grafana Agent's Prometheus (the v2.48 fork grafana/agent
// v0.39.2 pins, with prometheus/common v0.45) that Prometheus 2.42 lacks,
// and the release that added each.
const std::map<std::string, std::string> kNewerThanPromtool = {
    {"no_proxy", "2.43"},                       // HTTP client and OAuth2 proxy settings
    {"proxy_from_environment", "2.43"},         //
    {"scrape_classic_histograms", "2.45"},      // scrape_config
    {"native_histogram_bucket_limit", "2.45"},  //
    {"keep_dropped_targets", "2.47"},           //
    {"track_timestamps_staleness", "2.48"},     //
};

// Rewrites the agent-only parts of a scrape or remote_write config so
// Prometheus can load it, creating every referenced file.
void adapt(Value& v, const fs::path& tmp) {
  if (v.is_object()) {
    for (const auto& [key, since] : kNewerThanPromtool) v.erase(key);
    if (Value* k8s = v.find("kubernetes_sd_configs")) {
      Value http = Value::array();
      for (std::size_t i = 0; i < k8s->size(); ++i) http.push(Value::obj({{"url", "http://127.0.0.1:9/sd"}}));
      v.erase("kubernetes_sd_configs");
      v.set("http_sd_configs", std::move(http));
    }
    for (auto& [k, child] : v.as_object()) adapt(child, tmp);
  } else if (v.is_array()) {
    for (auto& child : v.as_array()) adapt(child, tmp);
  } else if (v.is_string() && v.as_string().rfind(kSecretsDir, 0) == 0) {
    fs::path file = tmp / v.as_string().substr(kSecretsDir.size());
    std::ofstream(file) << "x";
    v = Value(file.string());
  } else if (v.is_string() && v.as_string().rfind("/var/run/secrets/", 0) == 0) {
    fs::path file = tmp / fs::path(v.as_string()).filename();
    std::ofstream(file) << "x";
    v = Value(file.string());
  }
}

int promtool_check(const Value& prom_config, const fs::path& tmp, std::string& output) {
  fs::path cfg = tmp / "prometheus.yml";
  std::ofstream(cfg) << model::to_yaml(prom_config);
  std::string cmd = "promtool check config " + cfg.string() + " >" + (tmp / "out").string() + " 2>&1";
  int status = std::system(cmd.c_str());
  output = testutil::read_text((tmp / "out").string()) + "\n--- config ---\n" + model::to_yaml(prom_config);
  return WEXITSTATUS(status);
}

// Every metrics config Secret in the rendered objects, as parsed agent.yml.
std::vector<Value> metrics_configs(const std::vector<Value>& objects) {
  std::vector<Value> out;
  for (const auto& o : objects) {
    const Value* data = o.find("data");
    const Value* yml = data ? data->find("agent.yml") : nullptr;
    if (!yml) continue;
    std::string text = *model::base64_decode(yml->as_string());
    if (auto unzipped = model::gzip_decompress(text)) text = *unzipped;
    Value cfg = model::parse_documents(text, "agent.yml")[0].value;
    if (const Value* m = cfg.find("metrics")) out.push_back(*m);
  }
  return out;
}

// One Prometheus file per MetricsInstance: the agent runs each instance
// separately, so job names only need to be unique within one.
std::vector<Value> prometheus_configs(const Value& metrics) {
  Value base = Value::obj({{"scrape_configs", Value::array()}, {"remote_write", Value::array()}});
  if (const Value* g = metrics.find("global")) {
    Value global = Value::object();
    for (const char* k : {"external_labels", "scrape_interval", "scrape_timeout"})
      if (const Value* v = g->find(k)) global.set(k, *v);
    base.set("global", global);
    if (const Value* rw = g->find("remote_write"))
      for (const auto& r : rw->as_array()) base.find("remote_write")->push(r);
  }
  std::vector<Value> out;
  const Value* configs = metrics.find("configs");
  if (!configs) return {base};
  for (const auto& instance : configs->as_array()) {
    Value prom = base;
    if (const Value* sc = instance.find("scrape_configs"))
      for (const auto& job : sc->as_array()) prom.find("scrape_configs")->push(job);
    if (const Value* rw = instance.find("remote_write"))
      for (const auto& r : rw->as_array()) prom.find("remote_write")->push(r);
    out.push_back(std::move(prom));
  }
  return out;
}

void check_inventory(const model::Inventory& inv, const std::string& label, int& jobs) {
  auto all = model::render_all(inv, model::RenderOptions{});
  fs::path tmp = fs::temp_directory_path() / ("ao-promtool-" + std::to_string(::getpid()));
  for (const auto& metrics : metrics_configs(all.objects)) {
    for (Value prom : prometheus_configs(metrics)) {
      fs::remove_all(tmp);
      fs::create_directories(tmp);
      adapt(prom, tmp);
      jobs += static_cast<int>(prom.find("scrape_configs")->size());
      std::string output;
      int rc = promtool_check(prom, tmp, output);
      INFO(label << "\n" << output);
      CHECK(rc == 0);
    }
  }
  fs::remove_all(tmp);
}

}  // namespace

TEST_CASE("generated scrape configs and remote_write pass promtool check config", "[promtool]") {
  REQUIRE(std::system("promtool --version >/dev/null 2>&1") == 0);
  int jobs = 0;
  std::vector<std::pair<std::string, model::Inventory>> inputs;
  inputs.emplace_back("deploy/examples", testutil::inventory_from_yaml(""));
  for (const auto& file : testutil::yaml_files(testutil::source_path("deploy/examples")))
    for (auto& d : model::parse_documents(testutil::read_text(file), "ex")) inputs.back().second.add(d.value);
  for (const auto& e : fs::directory_iterator(testutil::reference_path("examples"))) {
    if (e.path().extension() != ".yaml") continue;
    model::Inventory inv;
    for (auto& d : model::parse_documents(testutil::read_text(e.path().string()), "ex")) inv.add(d.value);
    inputs.emplace_back(e.path().string(), std::move(inv));
  }
  for (const char* c : {"D1_servicemonitor_tls_bearer_ns", "D2_sharding_podmonitor", "D3_probe_static",
                        "D6_ignore_ns_enforced", "D5_integrations_ds"})
    inputs.emplace_back(c, testutil::load_reference_case(c).inventory);
  fs::path inputs_dir = testutil::source_path("tests/golden/promtool");
  if (fs::exists(inputs_dir))
    for (const auto& e : fs::directory_iterator(inputs_dir))
      inputs.emplace_back(e.path().string(), testutil::inventory_from_yaml(testutil::read_text(e.path().string())));
  for (const auto& [label, inv] : inputs) check_inventory(inv, label, jobs);
  CHECK(jobs > 10);
}
