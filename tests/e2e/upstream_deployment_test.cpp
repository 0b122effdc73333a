// Upstream parity of the `run` binary: the Grafana Agent Operator's own
// Deployment (grafana/agent production/operator/templates/agent-operator.yaml
// passes exactly one argument, --kubelet-service=default/kubelet, and relies
// on the defaults: /metrics on :8080, health server off) runs unchanged
// against simcluster, given only a kubeconfig, and serves /metrics and
// upstream's health paths; with upstream's separate health server, the
// health paths are served there and /metrics stays on the metrics address.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <httplib.h>

#include "../eventually.hpp"
#include "../scratch.hpp"
#include "bin_path.hpp"
#include "k8s/sim/process.hpp"
#include "model/codec.hpp"
#include "model/object_fields.hpp"
#include "operator_fixture.hpp"

using e2e::OperatorFixture;

namespace {

// Upstream's default metrics port is free on every interface (the operator
// binds 0.0.0.0:8080, as upstream does).
bool port_free(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  ::close(fd);
  return ok;
}

int status(httplib::Client& c, const char* path) {
  auto res = c.Get(path);
  return res ? res->status : -1;
}

std::string body(httplib::Client& c, const char* path) {
  auto res = c.Get(path);
  return res ? res->body : "";
}

void add_nodes(OperatorFixture& f) {
  for (const char* n : {"n1", "n2"})
    f.apply_yaml(std::string("apiVersion: v1\nkind: Node\nmetadata: {name: ") + n +
                 "}\nstatus: {addresses: [{type: InternalIP, address: \"10.0.0." + (n[1] == '1' ? "1" : "2") +
                 "\"}]}\n");
}

// "ip node" of each kubelet Endpoints address.
std::vector<std::string> kubelet_endpoints(OperatorFixture& f) {
  std::vector<std::string> out;
  auto eps = f.get("Endpoints", "default", "kubelet");
  const model::Value* subsets = eps ? eps->find("subsets") : nullptr;
  for (const model::Value& s : subsets && subsets->is_array() ? subsets->as_array() : model::Value::Array{})
    for (const model::Value& a : s.find("addresses")->as_array())
      out.push_back(model::string_at(a, {"ip"}) + " " + model::string_at(a, {"targetRef", "name"}));
  return out;
}

}  // namespace

TEST_CASE("upstream's operator Deployment arguments run unchanged against simcluster", "[e2e][cli][upstream]") {
  OperatorFixture f({.start_operator = false});
  add_nodes(f);
  testutil::TempDir dir("ao-upstream");
  std::string kc = dir.write("kubeconfig", f.server().kubeconfig());
  // Nothing else may hold upstream's default port, or this test proves nothing.
  REQUIRE(port_free(8080));
  // The Deployment's args, then the kubeconfig a pod would find in-cluster.
  k8s::sim::Child op({testutil::operator_bin(), "run", "--kubelet-service=default/kubelet", "--kubeconfig", kc});
  httplib::Client http("127.0.0.1", 8080);
  REQUIRE(testutil::eventually([&] { return status(http, "/-/ready") == 200; }, std::chrono::seconds(60)));
  CHECK(status(http, "/-/healthy") == 200);
  CHECK(status(http, "/readyz") == 200);
  CHECK(status(http, "/healthz") == 200);
  CHECK(body(http, "/metrics").find("agent_operator_build_info{") != std::string::npos);
  // It reconciles: every object the examples need (the kubelet Service is
  // the one owned object no GrafanaAgent renders), and the kubelet
  // Service's Endpoints with both Nodes.
  const std::vector<std::string> only_kubelet{"leftover Service default/kubelet"};
  testutil::eventually([&] { return f.divergence() == only_kubelet; }, std::chrono::seconds(60));
  for (const auto& d : f.divergence()) UNSCOPED_INFO(d);
  CHECK(f.divergence() == only_kubelet);
  CHECK_FALSE(f.owned().empty());
  CHECK(testutil::eventually([&] {
    return kubelet_endpoints(f) == std::vector<std::string>{"10.0.0.1 n1", "10.0.0.2 n2"};
  }));
  CHECK(f.get("Service", "default", "kubelet").has_value());
  CHECK(op.terminate() == 0);
}

TEST_CASE("upstream's separate health server serves the health paths, /metrics stays on the metrics address",
          "[e2e][cli][upstream]") {
  OperatorFixture f({.start_operator = false});
  testutil::TempDir dir("ao-upstream");
  std::string kc = dir.write("kubeconfig", f.server().kubeconfig());
  int metrics_port = testutil::unused_port(), health_port = testutil::unused_port();
  // Single-dash, as upstream's Go flags are spelled in its Helm chart and docs.
  k8s::sim::Child op({testutil::operator_bin(), "run", "-kubeconfig=" + kc,
                      "-metrics-listen-address=127.0.0.1:" + std::to_string(metrics_port),
                      "-health-listen-address=127.0.0.1:" + std::to_string(health_port), "-log.level=info",
                      "-log.format=logfmt", "-labels=team=obs", "-agent-selector=", "-listen-host=0.0.0.0",
                      "-listen-port=9443"});
  httplib::Client metrics("127.0.0.1", metrics_port), health("127.0.0.1", health_port);
  REQUIRE(testutil::eventually([&] { return status(health, "/-/ready") == 200; }, std::chrono::seconds(60)));
  CHECK(status(health, "/-/healthy") == 200);
  CHECK(status(health, "/metrics") == 404);
  CHECK(status(metrics, "/-/ready") == 200);
  CHECK(body(metrics, "/metrics").find("agent_operator_build_info{") != std::string::npos);
  // -labels reached what it writes.
  CHECK(testutil::eventually([&] {
    auto sts = f.get("StatefulSet", "monitoring", "grafana-agent");
    return sts && model::string_at(*sts, {"metadata", "labels", "team"}) == "obs";
  }));
  CHECK(op.terminate() == 0);
}

// Ours, not upstream's, beside it: deploy/operator gives the targets
// endpoint a port of its own, so its NetworkPolicy can admit only agents.
TEST_CASE("the targets endpoint moves off the metrics address with --targets-listen-address", "[e2e][cli]") {
  OperatorFixture f({.start_operator = false});
  testutil::TempDir dir("ao-targets-listen");
  std::string kc = dir.write("kubeconfig", f.server().kubeconfig());
  int metrics_port = testutil::unused_port(), targets_port = testutil::unused_port();
  k8s::sim::Child op({testutil::operator_bin(), "run", "--kubeconfig", kc,
                      "--metrics-listen-address=127.0.0.1:" + std::to_string(metrics_port),
                      "--targets-listen-address=127.0.0.1:" + std::to_string(targets_port)});
  httplib::Client metrics("127.0.0.1", metrics_port), targets("127.0.0.1", targets_port);
  REQUIRE(testutil::eventually([&] { return status(targets, "/readyz") == 200; }, std::chrono::seconds(60)));
  const std::string path = "/operator/api/v1/metrics/targets?agent=monitoring/grafana-agent";
  // Served (a 400: no job or shard) on its own address only.
  CHECK(status(targets, path.c_str()) == 400);
  CHECK(status(metrics, path.c_str()) == 404);
  CHECK(status(targets, "/metrics") == 404);
  // /debug/targets stays with the other debug paths.
  CHECK_THAT(body(metrics, "/debug/targets?agent=monitoring/grafana-agent"),
             Catch::Contains("has no consistent or node sharding"));
  CHECK(op.terminate() == 0);
}

// A migration starts byte-compatible: --upstream-compat reaches run's
// renders (here: selector rules without the labelpresent check,
// docs/differences.md row 7).
TEST_CASE("run --upstream-compat renders as upstream does", "[e2e][cli][upstream]") {
  OperatorFixture f({.start_operator = false});
  testutil::TempDir dir("ao-upstream");
  std::string kc = dir.write("kubeconfig", f.server().kubeconfig());
  auto agent_yml = [&] {
    auto secret = f.get("Secret", "monitoring", "grafana-agent-config");
    const model::Value* data = secret ? secret->find("data") : nullptr;
    const model::Value* yml = data ? data->find("agent.yml") : nullptr;
    return yml ? model::base64_decode(yml->as_string()).value_or("") : std::string();
  };
  auto has = [&](const char* text) { return agent_yml().find(text) != std::string::npos; };
  {
    k8s::sim::Child op({testutil::operator_bin(), "run", "--listen=0", "--kubeconfig", kc});
    CHECK(testutil::eventually([&] { return has("job_name: serviceMonitor/shop/checkout/0"); }));
    CHECK(has("_labelpresent_"));
    CHECK(op.terminate() == 0);
  }
  k8s::sim::Child op({testutil::operator_bin(), "run", "--listen=0", "--kubeconfig", kc, "--upstream-compat"});
  CHECK(
      testutil::eventually([&] { return has("job_name: serviceMonitor/shop/checkout/0") && !has("_labelpresent_"); }));
  CHECK(op.terminate() == 0);
}
