// The simcluster program's contract (docs/simcluster.md): flags, the readiness line,
// a kubeconfig kubectl can use, and a clean exit on SIGTERM.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "golden_util.hpp"
#include "k8s/sim/process.hpp"
#include "model/parse.hpp"

TEST_CASE("simcluster serves the loaded CRDs to kubectl through the kubeconfig it writes", "[k8s][kubectl][cli]") {
  char tmpl[] = "/tmp/ao-simcluster-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::string kubeconfig = dir + "/kubeconfig";
  k8s::sim::Child sim({std::string(AO_BIN_DIR) + "/simcluster", "--listen", "127.0.0.1:0", "--kubeconfig-out",
                       kubeconfig, "--crds", testutil::reference_path("crds")});
  REQUIRE(sim.read_until([](const std::string& out) { return out.find('\n') != std::string::npos; },
                         std::chrono::seconds(30)));
  std::string line = sim.output();
  REQUIRE(line.rfind("listening on http://127.0.0.1:", 0) == 0);
  std::string url = line.substr(std::string("listening on ").size(), line.find('\n') - 13);
  CHECK(testutil::read_text(kubeconfig).find("server: " + url) != std::string::npos);
  auto crds =
      k8s::sim::run({"kubectl", "--kubeconfig", kubeconfig, "--cache-dir", dir + "/cache", "get", "crd", "-o", "json"});
  REQUIRE(crds.code == 0);
  CHECK(model::parse_json(crds.out).find("items")->size() == 8);
  CHECK(sim.terminate() == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("simcluster rejects bad flags and unloadable manifests", "[k8s][cli]") {
  std::string bin = std::string(AO_BIN_DIR) + "/simcluster";
  auto no_kubeconfig = k8s::sim::run({bin, "--listen", "127.0.0.1:0"});
  CHECK(no_kubeconfig.code == 2);
  CHECK(no_kubeconfig.err.find("--kubeconfig-out is required") != std::string::npos);
  auto bad = k8s::sim::run({bin, "--listen", "127.0.0.1:0", "--kubeconfig-out", "/dev/null", "--load",
                            testutil::reference_path("examples/docs-add-custom-scrape-jobs.yaml")});
  CHECK(bad.code == 1);  // its objects live in namespace "operator", which does not exist
  CHECK(bad.err.find("namespaces \"operator\" not found") != std::string::npos);
}

TEST_CASE("simcluster --tls serves HTTPS with a generated CA and token in the kubeconfig", "[k8s][kubectl][cli][tls]") {
  char tmpl[] = "/tmp/ao-simcluster-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::string kubeconfig = dir + "/kubeconfig";
  k8s::sim::Child sim({std::string(AO_BIN_DIR) + "/simcluster", "--listen", "127.0.0.1:0", "--kubeconfig-out",
                       kubeconfig, "--tls", "--tls-dir", dir + "/tls"});
  REQUIRE(sim.read_until([](const std::string& out) { return out.find('\n') != std::string::npos; },
                         std::chrono::seconds(30)));
  CHECK(sim.output().rfind("listening on https://127.0.0.1:", 0) == 0);
  std::string config = testutil::read_text(kubeconfig);
  CHECK(config.find("certificate-authority-data: ") != std::string::npos);
  CHECK(config.find("token: ") != std::string::npos);
  for (const char* file : {"/tls/ca.crt", "/tls/server.crt", "/tls/server.key"})
    CHECK(std::filesystem::file_size(dir + file) > 100);
  auto ns = k8s::sim::run({"kubectl", "--kubeconfig", kubeconfig, "--cache-dir", dir + "/cache", "get", "ns"});
  CHECK(ns.code == 0);
  auto anonymous = k8s::sim::run(
      {"kubectl", "--kubeconfig", kubeconfig, "--cache-dir", dir + "/cache", "--token", "not-the-token", "get", "ns"});
  CHECK(anonymous.code == 1);
  CHECK(sim.terminate() == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("simcluster reads --token-file and rejects conflicting auth flags", "[k8s][cli][tls]") {
  std::string bin = std::string(AO_BIN_DIR) + "/simcluster";
  auto both = k8s::sim::run({bin, "--kubeconfig-out", "/dev/null", "--token", "a", "--anonymous"});
  CHECK(both.code == 2);
  CHECK(both.err.find("exclude each other") != std::string::npos);
  auto dir_only = k8s::sim::run({bin, "--kubeconfig-out", "/dev/null", "--tls-dir", "/tmp/x"});
  CHECK(dir_only.code == 2);
  CHECK(dir_only.err.find("--tls-dir needs --tls") != std::string::npos);
  auto missing = k8s::sim::run({bin, "--kubeconfig-out", "/dev/null", "--token-file", "/nonexistent/token"});
  CHECK(missing.code == 1);
  CHECK(missing.err.find("cannot read --token-file") != std::string::npos);

  char tmpl[] = "/tmp/ao-simcluster-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::ofstream(dir + "/token") << "from-file\n";
  std::string kubeconfig = dir + "/kubeconfig";
  k8s::sim::Child sim({bin, "--listen", "127.0.0.1:0", "--kubeconfig-out", kubeconfig, "--token-file", dir + "/token"});
  REQUIRE(sim.read_until([](const std::string& out) { return out.find('\n') != std::string::npos; },
                         std::chrono::seconds(30)));
  CHECK(sim.output().rfind("listening on http://127.0.0.1:", 0) == 0);
  CHECK(testutil::read_text(kubeconfig).find("token: from-file") != std::string::npos);
  CHECK(sim.terminate() == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("simcluster --generate serves the same synthetic cluster on every run", "[k8s][kubectl][cli][generate]") {
  std::string bin = std::string(AO_BIN_DIR) + "/simcluster";
  auto unknown = k8s::sim::run({bin, "--kubeconfig-out", "/dev/null", "--generate", "namespaces=2,nodes=3"});
  CHECK(unknown.code == 2);
  CHECK(unknown.err.find("unknown key \"nodes\"") != std::string::npos);
  auto no_crds = k8s::sim::run({bin, "--kubeconfig-out", "/dev/null", "--generate", "namespaces=2"});
  CHECK(no_crds.code == 1);
  CHECK(no_crds.err.find("needs the CRDs of deploy/crds") != std::string::npos);

  char tmpl[] = "/tmp/ao-simcluster-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::vector<std::string> outputs;
  for (int run = 0; run < 2; ++run) {
    std::string kubeconfig = dir + "/kubeconfig" + std::to_string(run);
    k8s::sim::Child sim({bin, "--listen", "127.0.0.1:0", "--kubeconfig-out", kubeconfig, "--crds",
                         testutil::source_path("deploy/crds"), testutil::source_path("deploy/prometheus-operator-crds"),
                         "--generate",
                         "namespaces=5,agents=2,metrics_instances=3,service_monitors=40,pod_monitors=10,secrets=8,"
                         "pods=10,probes=2,seed=3"});
    REQUIRE(sim.read_until([](const std::string& out) { return out.find('\n') != std::string::npos; },
                           std::chrono::seconds(30)));
    auto got = k8s::sim::run({"kubectl", "--kubeconfig", kubeconfig, "--cache-dir", dir + "/cache", "get",
                              "servicemonitors,podmonitors,probes,secrets,pods,grafanaagents,metricsinstances", "-A",
                              "-o", "json"});
    REQUIRE(got.code == 0);
    outputs.push_back(got.out);
    CHECK(sim.terminate() == 0);
  }
  CHECK(model::parse_json(outputs[0]).find("items")->size() == 40 + 10 + 2 + 8 + 3 + 10 + 2 + 3);
  CHECK(outputs[0] == outputs[1]);
  std::filesystem::remove_all(dir);
}
