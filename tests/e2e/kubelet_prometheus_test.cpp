// A real Prometheus (Debian's, which has no kubernetes_sd) scrapes every
// Node through the kubelet Service's Endpoints. The operator keeps the
// Endpoints from the Nodes; the target-allocator binary reads them with
// kubernetes_sd role endpoints, as Prometheus would, and hands them to
// Prometheus over http_sd; Prometheus keeps the http-metrics port and
// names each target's node from the address's targetRef, as upstream's
// kubelet ServiceMonitor does. Each Node's address is a loopback address
// of its own with a stand-in kubelet on port 10255 that says which node it
// is, so `up` and the node label together show that every Node is scraped
// at its own address.
// (A real API server refuses loopback addresses in Endpoints; simcluster
// does not check them, which is what makes stand-ins possible here.)
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "../eventually.hpp"
#include "../scratch.hpp"
#include "model/object_fields.hpp"
#include "model/parse.hpp"
#include "operator_fixture.hpp"
#include "tests/allocation/http_fixtures.hpp"

using namespace std::chrono_literals;

namespace {

// A kubelet stand-in: /metrics on ip:10255 answering kubelet_node_name{node}.
class StandinKubelet {
 public:
  StandinKubelet(const std::string& ip, const std::string& node) {
    server_.Get("/metrics", [node](const httplib::Request&, httplib::Response& res) {
      res.set_content("# TYPE kubelet_node_name gauge\nkubelet_node_name{node=\"" + node + "\"} 1\n",
                      "text/plain; version=0.0.4");
    });
    bound_ = server_.bind_to_port(ip, model::kKubeletHttpPort);
    if (bound_) thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~StandinKubelet() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  bool bound() const { return bound_; }

 private:
  httplib::Server server_;
  std::thread thread_;
  bool bound_ = false;
};

std::string node_yaml(const std::string& name, const std::string& ip) {
  std::string addresses = ip.empty() ? "[]" : "[{type: InternalIP, address: \"" + ip + "\"}]";
  return "apiVersion: v1\nkind: Node\nmetadata: {name: " + name + "}\nstatus: {addresses: " + addresses + "}\n";
}

const char* kRelabel = R"(
      - {source_labels: [__meta_kubernetes_service_label_app_kubernetes_io_name], regex: kubelet, action: keep}
      - {source_labels: [__meta_kubernetes_endpoint_port_name], regex: http-metrics, action: keep}
      - source_labels: [__meta_kubernetes_endpoint_address_target_kind, __meta_kubernetes_endpoint_address_target_name]
        regex: Node;(.*)
        target_label: node
)";

std::string allocator_config() {
  return std::string(R"(allocation_strategy: consistent-hashing
filter_strategy: relabel-config
collectors: [prometheus]
config:
  scrape_configs:
    - job_name: kubelet
      kubernetes_sd_configs: [{role: endpoints, namespaces: {names: [kube-system]}}]
      relabel_configs:)") +
         kRelabel;
}

std::string prometheus_config(int allocator_port) {
  return "global: {scrape_interval: 1s, scrape_timeout: 1s}\nscrape_configs:\n  - job_name: kubelet\n"
         "    http_sd_configs:\n      - url: http://127.0.0.1:" +
         std::to_string(allocator_port) +
         "/jobs/kubelet/targets?collector_id=prometheus\n        refresh_interval: 1s\n    relabel_configs:" + kRelabel;
}

// "node scrapeUrl" of every active target that is up.
std::set<std::string> up_targets(httplib::Client& prom) {
  std::set<std::string> out;
  auto res = prom.Get("/api/v1/targets?state=active");
  if (!res || res->status != 200) return out;
  const model::Value doc = model::parse_json(res->body);
  for (const model::Value& t : doc.find("data")->find("activeTargets")->as_array())
    if (model::string_at(t, {"health"}) == "up")
      out.insert(model::string_at(t, {"labels", "node"}) + " " + model::string_at(t, {"scrapeUrl"}));
  return out;
}

// "target node = scraped node" for every kubelet_node_name series.
std::set<std::string> scraped_nodes(httplib::Client& prom) {
  std::set<std::string> out;
  auto res = prom.Get("/api/v1/query?query=kubelet_node_name");
  if (!res || res->status != 200) return out;
  const model::Value doc = model::parse_json(res->body);
  for (const model::Value& s : doc.find("data")->find("result")->as_array()) {
    const model::Value& m = *s.find("metric");
    // The scraped node label clashes with the target's: Prometheus keeps
    // the target's and renames the scraped one exported_node.
    out.insert(model::string_at(m, {"node"}) + "=" + model::string_at(m, {"exported_node"}));
  }
  return out;
}

}  // namespace

TEST_CASE("Prometheus scrapes every Node through the kubelet Service's Endpoints", "[e2e][kubelet][prometheus]") {
  REQUIRE(std::filesystem::exists("/usr/bin/prometheus"));
  // A loopback /24 of this run's own, so parallel runs do not share port 10255.
  std::string net = "127." + std::to_string(40 + ::getpid() % 200) + "." + std::to_string(::getpid() / 200 % 250) + ".";
  std::vector<std::unique_ptr<StandinKubelet>> kubelets;
  for (int i = 1; i <= 4; ++i) {
    kubelets.push_back(std::make_unique<StandinKubelet>(net + std::to_string(i), "n" + std::to_string(i)));
    REQUIRE(kubelets.back()->bound());
  }
  e2e::OperatorFixture f({.load_examples = false,
                          .start_operator = false,
                          .integrations_sd = false,
                          .kubelet = model::KubeletServiceOptions{"kube-system", "kubelet", {}, {}}});
  f.apply_yaml("apiVersion: v1\nkind: Namespace\nmetadata: {name: kube-system}\n");
  for (int i = 1; i <= 3; ++i) f.apply_yaml(node_yaml("n" + std::to_string(i), net + std::to_string(i)));
  f.start_operator();

  testutil::TempDir dir("ao-kubelet-prom");
  http_test::Child ta;
  const int ta_port = http_test::start_allocator(
      ta, {AO_BIN_DIR "/target-allocator", "--config-file", dir.write("ta.yaml", allocator_config()), "--listen-addr",
           "127.0.0.1:0", "--kubeconfig-path", dir.write("kubeconfig", f.server().kubeconfig())});
  REQUIRE(ta_port > 0);
  dir.write("prometheus.yml", prometheus_config(ta_port));
  const int prom_port = http_test::free_port();
  http_test::Child prometheus = http_test::start_prometheus(dir.path, prom_port);
  httplib::Client prom("127.0.0.1", prom_port);
  prom.set_connection_timeout(1);

  auto url = [&](int i) { return net + std::to_string(i) + ":10255/metrics"; };
  std::set<std::string> want;
  for (int i = 1; i <= 3; ++i) want.insert("n" + std::to_string(i) + " http://" + url(i));
  bool all_up = testutil::eventually([&] { return up_targets(prom) == want; }, 60s, 250ms);
  for (const auto& t : up_targets(prom)) UNSCOPED_INFO("up: " << t);
  CHECK(all_up);
  CHECK(testutil::eventually(
      [&] {
        return scraped_nodes(prom) == std::set<std::string>{"n1=n1", "n2=n2", "n3=n3"};
      },
      30s, 250ms));

  // A Node stripped of its address leaves Prometheus's targets; a new one joins.
  f.apply_yaml(node_yaml("n2", ""));
  f.apply_yaml(node_yaml("n4", net + "4"));
  want = {"n1 http://" + url(1), "n3 http://" + url(3), "n4 http://" + url(4)};
  all_up = testutil::eventually([&] { return up_targets(prom) == want; }, 60s, 250ms);
  for (const auto& t : up_targets(prom)) UNSCOPED_INFO("up: " << t);
  CHECK(all_up);
  prometheus.terminate();
  ta.terminate();
}
