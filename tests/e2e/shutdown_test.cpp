// The binary stopped while it writes: SIGTERM in the middle of a burst of
// writes (forty GrafanaAgents rendering at once) must exit 0 promptly,
// leave a journal that replays, and a restarted operator must finish the
// work from what the cluster holds.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "bin_path.hpp"
#include "k8s/sim/process.hpp"
#include "operator_fixture.hpp"
#include "tests/eventually.hpp"

using e2e::OperatorFixture;

namespace {

std::string agent_yaml(int i) {
  return "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata:\n  name: burst-" +
         std::to_string(i) +
         "\n  namespace: monitoring\nspec:\n  serviceAccountName: grafana-agent\n  metrics:\n    shards: 2\n"
         "    instanceSelector:\n      matchLabels: {agent: grafana-agent}\n  logs:\n    instanceSelector:\n"
         "      matchLabels: {agent: grafana-agent}\n";
}

}  // namespace

TEST_CASE("run exits 0 on SIGTERM during a write burst, and a restart converges", "[e2e][shutdown]") {
  OperatorFixture f({.start_operator = false});
  for (int i = 0; i < 40; ++i) f.apply_yaml(agent_yaml(i));
  char dir[] = "/tmp/ao-burst-XXXXXX";
  REQUIRE(mkdtemp(dir));
  const std::string kc = std::string(dir) + "/kubeconfig", journal = std::string(dir) + "/journal.jsonl";
  std::ofstream(kc) << f.server().kubeconfig();
  const std::size_t before = f.owned().size();
  {
    k8s::sim::Child op({testutil::operator_bin(), "run", "--listen=0", "--kubeconfig", kc, "--journal", journal});
    // Stop it once the burst has begun, long before it can have finished.
    REQUIRE(testutil::eventually([&] { return f.owned().size() >= before + 20; }, std::chrono::seconds(60)));
    CHECK_FALSE(f.divergence().empty());
    auto asked = std::chrono::steady_clock::now();
    CHECK(op.terminate() == 0);
    CHECK(std::chrono::steady_clock::now() - asked < std::chrono::seconds(10));
  }
  // Every journal line is whole: replay reads it to the end.
  std::string cmd = testutil::operator_bin() + " replay " + journal + " > /dev/null 2>&1";
  CHECK(std::system(cmd.c_str()) == 0);
  {
    k8s::sim::Child again({testutil::operator_bin(), "run", "--listen=0", "--kubeconfig", kc});
    CHECK(testutil::eventually([&] { return f.divergence().empty(); }, std::chrono::seconds(90)));
    CHECK(again.terminate() == 0);
  }
  std::filesystem::remove_all(dir);
}
