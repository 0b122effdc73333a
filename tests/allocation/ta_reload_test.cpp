// Issue 15's end-to-end case: the target allocator (in-process) against an
// in-process simcluster serves a ScrapeConfig with kubernetes SD and a
// scrape class, while Debian's Prometheus polls one collector's http_sd;
// then its config file, mounted the way a ConfigMap is (a symlink swap),
// is changed to add a job and remove another, and then to something
// invalid. The journal replays to the live assignment.
#include <catch2/catch.hpp>

#include <cstdio>

#include "../eventually.hpp"
#include "allocation/runtime/replay.hpp"
#include "http_fixtures.hpp"
#include "k8s/sim/loader.hpp"
#include "k8s/sim/server.hpp"
#include "ta_runtime_fixture.hpp"
#include "tests/k8s/sim/sim_fixture.hpp"

using namespace http_test;
using testutil::eventually;

namespace {

namespace fs = std::filesystem;

// A directory laid out as kubelet mounts a ConfigMap: ta.yaml ->
// ..data/ta.yaml, ..data -> ..<version>; update() swaps ..data atomically.
struct ConfigMapDir {
  fs::path dir;
  int version = 0;
  explicit ConfigMapDir(const std::string& text)
      : dir(fs::temp_directory_path() / ("ao-ta-reload-" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    update(text);
    fs::create_symlink("..data/ta.yaml", dir / "ta.yaml");
  }
  ~ConfigMapDir() { fs::remove_all(dir); }
  void update(const std::string& text) {
    const std::string v = "..v" + std::to_string(++version);
    fs::create_directories(dir / v);
    std::ofstream(dir / v / "ta.yaml") << text;
    fs::create_symlink(v, dir / "..data_tmp");
    fs::rename(dir / "..data_tmp", dir / "..data");
  }
  std::string path() const { return (dir / "ta.yaml").string(); }
};

std::string config(const std::string& jobs) {
  return "collectors: [c1]\nfilter_strategy: relabel-config\n"
         "prometheus_cr:\n  enabled: true\n  scrape_classes:\n"
         "  - name: team\n    default: true\n    relabelings: [{targetLabel: team, replacement: a}]\n"
         "config:\n  scrape_configs:\n" +
         jobs;
}

const std::string kOld = "    - job_name: old\n      static_configs: [{targets: ['10.9.0.1:80']}]\n";
const std::string kNew = "    - job_name: new\n      static_configs: [{targets: ['10.8.0.1:80', '10.8.0.2:80']}]\n";

// Prometheus polling c1's share of each job; its active targets by pool.
std::map<std::string, std::set<std::string>> prometheus_targets(httplib::Client& prom) {
  std::map<std::string, std::set<std::string>> out;
  auto res = prom.Get("/api/v1/targets?state=active");
  if (!res || res->status != 200) return out;
  const auto doc = model::parse_json(res->body);
  for (const auto& t : doc.find("data")->find("activeTargets")->as_array())
    out[t.find("scrapePool")->as_string()].insert(t.find("discoveredLabels")->find("__address__")->as_string());
  return out;
}

}  // namespace

TEST_CASE("a live config reload adds and removes jobs while Prometheus polls a ScrapeConfig job's share",
          "[allocation][cluster][prometheus][reload]") {
  REQUIRE(fs::exists("/usr/bin/prometheus"));
  simtest::SimFixture sim;
  k8s::sim::load_manifests(sim.cluster, {"deploy/crds", "deploy/prometheus-operator-crds"});
  k8s::sim::Server api(sim.cluster, {});
  api.start();
  sim.create("services", R"({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
    "spec": {"ports": [{"name": "http", "port": 8080}]}})");
  sim.create("endpoints", R"({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "web"},
    "subsets": [{"addresses": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}], "ports": [{"name": "http", "port": 8080}]}]})");
  sim.create("scrapeconfigs", R"({"apiVersion": "monitoring.coreos.com/v1alpha1", "kind": "ScrapeConfig",
    "metadata": {"name": "web"}, "spec": {"kubernetesSDConfigs": [{"role": "Endpoints"}],
    "relabelings": [{"sourceLabels": ["team"], "regex": "a", "action": "keep"}]}})",
             "default", "monitoring.coreos.com");

  ConfigMapDir files(config(kOld));
  const fs::path kubeconfig = files.dir / "kubeconfig";
  std::ofstream(kubeconfig) << api.kubeconfig();
  const std::string journal = (files.dir / "journal").string();
  ta_test::Runtime rt(config(kOld), [&](actors::ta::RuntimeOptions& o) {
    o.config_path = files.path();
    o.kubeconfig_path = kubeconfig.string();
    o.config_reload_interval = std::chrono::milliseconds(200);
    o.journal_path = journal;
  });
  httplib::Client ta("127.0.0.1", rt.port());
  const std::string sc_job = "/jobs/scrapeConfig%2Fdefault%2Fweb/targets?collector_id=c1";
  // The scrape class's relabeling sets team=a, which the ScrapeConfig's own
  // rule keeps: without the class nothing would be served.
  REQUIRE(eventually([&] { return addresses(get(ta, sc_job)).size() == 2; }));

  const fs::path prom_dir = files.dir / "prometheus";
  fs::create_directories(prom_dir);
  std::ofstream(prom_dir / "prometheus.yml")
      << "global: {scrape_interval: 1h}\nscrape_configs:\n"
      << "  - job_name: web\n    http_sd_configs: [{url: 'http://127.0.0.1:" << rt.port() << sc_job
      << "', refresh_interval: 1s}]\n"
      << "  - job_name: new\n    http_sd_configs: [{url: 'http://127.0.0.1:" << rt.port()
      << "/jobs/new/targets?collector_id=c1', refresh_interval: 1s}]\n";
  const int prom_port = free_port();
  Child prometheus = start_prometheus(prom_dir, prom_port);
  httplib::Client prom("127.0.0.1", prom_port);
  prom.set_connection_timeout(1);
  const std::set<std::string> web{"10.0.0.1:8080", "10.0.0.2:8080"};
  REQUIRE(eventually([&] { return prometheus_targets(prom)["web"] == web; }));
  CHECK(prometheus_targets(prom).count("new") == 0);

  files.update(config(kNew));  // removes old, adds new
  REQUIRE(eventually([&] { return job_names(get(ta, "/scrape_configs")).count("new") == 1; }));
  CHECK(job_names(get(ta, "/scrape_configs")).count("old") == 0);
  CHECK(addresses(get(ta, "/jobs/old/targets?collector_id=c1")).empty());
  REQUIRE(eventually([&] {
    auto seen = prometheus_targets(prom);
    return seen["new"] == std::set<std::string>{"10.8.0.1:80", "10.8.0.2:80"} && seen["web"] == web;
  }));
  CHECK_THAT(get(ta, "/metrics"),
             Catch::Contains("opentelemetry_allocator_config_reloads_total{result=\"success\"} 1"));

  // An invalid file is rejected: the previous config keeps serving.
  files.update("collectors: [c1\n");
  REQUIRE(eventually([&] {
    return get(ta, "/metrics").find("opentelemetry_allocator_config_reloads_total{result=\"failure\"} 1") !=
           std::string::npos;
  }));
  CHECK_THAT(get(ta, "/metrics"), Catch::Contains("opentelemetry_allocator_config_last_reload_successful 0"));
  CHECK(addresses(get(ta, "/jobs/new/targets?collector_id=c1")).size() == 2);
  CHECK(prometheus_targets(prom)["web"] == web);

  // The reloads are in the journal, which replays to the live assignment.
  const auto [seq, live] = rt.ta.assignment();
  allocation::runtime::Replayer replayer(allocation::runtime::ReplayOptions{seq, ""});
  std::ifstream in(journal);
  std::string line;
  std::size_t n = 0, configs = 0;
  while (std::getline(in, line) && !in.eof() && replayer.feed(line, ++n))
    configs += line.find("\"type\":\"config\"") != std::string::npos;
  CHECK(configs == 3);
  CHECK(replayer.last_seq() == seq);
  CHECK(allocation::runtime::assignment_of(replayer.state().allocator()) == live);
}
