// kubernetes_sd_configs end to end: the target-allocator binary watching an
// in-process simcluster (--kubeconfig-path) serves endpoints-role targets
// with service and pod labels, applies the relabel-config filter, and
// follows creations, status changes and deletions.
#include <catch2/catch.hpp>

#include "../eventually.hpp"
#include "http_fixtures.hpp"
#include "k8s/sim/server.hpp"
#include "tests/k8s/sim/sim_fixture.hpp"
#include "tests/scratch.hpp"

using namespace http_test;

namespace {

using testutil::eventually;

// Address -> merged labels of every target in a /jobs/<job>/targets body.
std::map<std::string, std::map<std::string, std::string>> served_targets(const std::string& body) {
  std::map<std::string, std::map<std::string, std::string>> out;
  const auto doc = model::parse_json(body);
  for (const auto& [collector, entry] : doc.as_object())
    for (const auto& group : entry.find("targets")->as_array())
      for (const auto& t : group.find("targets")->as_array())
        for (const auto& [k, v] : group.find("labels")->as_object()) out[t.as_string()][k] = v.as_string();
  return out;
}

std::set<std::string> keys(const std::map<std::string, std::map<std::string, std::string>>& m) {
  std::set<std::string> out;
  for (const auto& [k, v] : m) out.insert(k);
  return out;
}

const char* kEndpointsTemplate = R"({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "%s"},
  "subsets": [{"addresses": [{"ip": "%s", "targetRef": {"kind": "Pod", "name": "web-1", "namespace": "default"}}],
               "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]}]})";

std::string endpoints(const std::string& name, const std::string& ip) {
  char buf[512];
  std::snprintf(buf, sizeof buf, kEndpointsTemplate, name.c_str(), ip.c_str());
  return buf;
}

std::string service(const std::string& name, const std::string& app) {
  return R"({"apiVersion": "v1", "kind": "Service", "metadata": {"name": ")" + name + R"(", "labels": {"app": ")" +
         app + R"("}}, "spec": {"ports": [{"port": 8080}]}})";
}

}  // namespace

TEST_CASE("target-allocator serves kubernetes_sd endpoints targets from a watched cluster", "[kubernetes_sd][cli]") {
  simtest::SimFixture sim;
  k8s::sim::Server api(sim.cluster, {});
  api.start();
  const auto kubeconfig = testutil::write_temp_file("ta-sd-kubeconfig", api.kubeconfig());
  const auto config = testutil::write_temp_file("ta-sd-config.yaml", R"(allocation_strategy: consistent-hashing
filter_strategy: relabel-config
collectors: [c1, c2]
config:
  scrape_configs:
    - job_name: k8s
      kubernetes_sd_configs: [{role: endpoints, namespaces: {names: [default]}}]
      relabel_configs:
        - {source_labels: [__meta_kubernetes_service_label_app], regex: web, action: keep}
)");
  sim.create("services", service("web", "web"));
  sim.create("endpoints", endpoints("web", "10.0.0.1"));
  sim.create("services", service("db", "db"));
  sim.create("endpoints", endpoints("db", "10.0.0.2"));
  sim.create("pods", R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1"},
    "spec": {"containers": [{"name": "app", "image": "img", "ports": [{"containerPort": 8080}]}]}})");

  Child ta;
  const int port = start_allocator(ta, {AO_BIN_DIR "/target-allocator", "--config-file", config, "--listen-addr",
                                        "127.0.0.1:0", "--kubeconfig-path", kubeconfig});
  REQUIRE(port > 0);
  httplib::Client client("127.0.0.1", port);
  auto served = [&] { return served_targets(get(client, "/jobs/k8s/targets")); };

  // db is dropped by the relabel-config filter; web carries service and pod labels.
  REQUIRE(eventually([&] {
    auto s = served();
    return keys(s) == std::set<std::string>{"10.0.0.1:8080"} &&
           s["10.0.0.1:8080"].count("__meta_kubernetes_pod_name") == 1;
  }));
  auto web = served()["10.0.0.1:8080"];
  CHECK(web["__meta_kubernetes_namespace"] == "default");
  CHECK(web["__meta_kubernetes_service_name"] == "web");
  CHECK(web["__meta_kubernetes_endpoints_name"] == "web");
  CHECK(web["__meta_kubernetes_endpoint_port_name"] == "http");
  CHECK(web["__meta_kubernetes_endpoint_ready"] == "true");
  CHECK(web["__meta_kubernetes_pod_name"] == "web-1");
  CHECK(web["__meta_kubernetes_pod_container_name"] == "app");
  CHECK(web["__meta_kubernetes_pod_ready"] == "unknown");

  // The pod's status change reaches the endpoints group that refers to it.
  auto pod = sim.cluster.store().get(sim.type("", "pods"), "default", "web-1");
  REQUIRE(pod);
  model::Value status = pod->value;
  status.set("status",
             model::parse_json(R"({"podIP": "10.0.0.1", "conditions": [{"type": "Ready", "status": "True"}]})"));
  std::vector<std::string> warnings;
  sim.cluster.update(sim.type("", "pods"), "default", "web-1", status, k8s::sim::Subresource::status, {}, warnings);
  CHECK(eventually([&] { return served()["10.0.0.1:8080"]["__meta_kubernetes_pod_ready"] == "true"; }));

  // A second web service appears; the first one's endpoints go away.
  sim.create("services", service("web2", "web"));
  sim.create("endpoints", endpoints("web2", "10.0.0.3"));
  sim.cluster.remove(sim.type("", "endpoints"), "default", "web", {});
  CHECK(eventually([&] { return keys(served()) == std::set<std::string>{"10.0.0.3:8080"}; }));
  const auto c1 = addresses(get(client, "/jobs/k8s/targets?collector_id=c1"));
  const auto c2 = addresses(get(client, "/jobs/k8s/targets?collector_id=c2"));
  CHECK(c1.size() + c2.size() == 1);

  ta.terminate();
  CHECK(WIFEXITED(ta.status));
  CHECK(WEXITSTATUS(ta.status) == 0);
  std::filesystem::remove(kubeconfig);
  std::filesystem::remove(config);
}
