// The simcluster program's contract (DESIGN.md): flags, the readiness line,
// a kubeconfig kubectl can use, and a clean exit on SIGTERM.
#include <catch2/catch.hpp>

#include <filesystem>

#include "golden_util.hpp"
#include "model/parse.hpp"
#include "process.hpp"

TEST_CASE("simcluster serves the loaded CRDs to kubectl through the kubeconfig it writes", "[k8s][kubectl][cli]") {
  char tmpl[] = "/tmp/ao-simcluster-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::string kubeconfig = dir + "/kubeconfig";
  testutil::Child sim({std::string(AO_BIN_DIR) + "/simcluster", "--listen", "127.0.0.1:0", "--kubeconfig-out",
                       kubeconfig, "--crds", testutil::reference_path("crds")});
  REQUIRE(sim.read_until([](const std::string& out) { return out.find('\n') != std::string::npos; },
                         std::chrono::seconds(30)));
  std::string line = sim.output();
  REQUIRE(line.rfind("listening on http://127.0.0.1:", 0) == 0);
  std::string url = line.substr(std::string("listening on ").size(), line.find('\n') - 13);
  CHECK(testutil::read_text(kubeconfig).find("server: " + url) != std::string::npos);
  auto crds =
      testutil::run({"kubectl", "--kubeconfig", kubeconfig, "--cache-dir", dir + "/cache", "get", "crd", "-o", "json"});
  REQUIRE(crds.code == 0);
  CHECK(model::parse_json(crds.out).find("items")->size() == 8);
  CHECK(sim.terminate() == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("simcluster rejects bad flags and unloadable manifests", "[k8s][cli]") {
  std::string bin = std::string(AO_BIN_DIR) + "/simcluster";
  auto no_kubeconfig = testutil::run({bin, "--listen", "127.0.0.1:0"});
  CHECK(no_kubeconfig.code == 2);
  CHECK(no_kubeconfig.err.find("--kubeconfig-out is required") != std::string::npos);
  auto bad = testutil::run({bin, "--listen", "127.0.0.1:0", "--kubeconfig-out", "/dev/null", "--load",
                            testutil::reference_path("examples/docs-add-custom-scrape-jobs.yaml")});
  CHECK(bad.code == 1);  // its objects live in namespace "operator", which does not exist
  CHECK(bad.err.find("namespaces \"operator\" not found") != std::string::npos);
}
