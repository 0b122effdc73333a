// The journal from the command line: `replay` reports the problems of the
// state it folds as `render` reports them for the same objects (stderr,
// "warning:" before warnings, exit 1 for an invalid resource), and `run`
// rotates its journal as --journal-max-size and --journal-max-files say.
#include <catch2/catch.hpp>

#include <filesystem>

#include "../eventually.hpp"
#include "../scratch.hpp"
#include "bin_path.hpp"
#include "k8s/sim/process.hpp"
#include "operator_fixture.hpp"

namespace {

// Selected by the examples' MetricsInstance (namespace shop, instance: primary).
const char* kBrokenMonitor = R"(apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: broken, namespace: shop, labels: {instance: primary}}
spec:
  selector: {matchExpressions: [{key: a, operator: Like, values: [x]}]}
  endpoints: [{port: web}]
)";
const char* kClassedMonitor = R"(apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: classed, namespace: shop, labels: {instance: primary}}
spec: {selector: {}, endpoints: [{port: web}], scrapeClass: tls}
)";

}  // namespace

TEST_CASE("replay reports invalid members with the reason and exits as render does", "[e2e][replay][cli]") {
  testutil::TempDir dir("ao-journal-cli");
  std::string journal = dir.file("journal.jsonl");
  {
    e2e::OperatorFixture f({.start_operator = false, .journal_path = journal});
    f.start_operator();
    f.apply_yaml(kBrokenMonitor);
    f.apply_yaml(kClassedMonitor);
    REQUIRE(f.wait_idle());
    f.stop_operator();
  }
  auto replayed = k8s::sim::run({testutil::operator_bin(), "replay", journal});
  INFO(replayed.err);
  CHECK(replayed.code == 1);
  CHECK_FALSE(replayed.out.empty());  // the valid rest is still printed
  const std::string error =
      "\nServiceMonitor shop/broken: spec.selector.matchExpressions[0].operator: unknown operator \"Like\"";
  const std::string warning = "\nwarning: ServiceMonitor shop/classed: spec.scrapeClass: ";
  CHECK(replayed.err.find(error) != std::string::npos);
  CHECK(replayed.err.find(warning) != std::string::npos);
  // render over the same objects says the same.
  std::string broken = dir.write("broken.yaml", kBrokenMonitor), classed = dir.write("classed.yaml", kClassedMonitor);
  auto rendered = k8s::sim::run(
      {testutil::operator_bin(), "render", "-f", e2e::source_dir() + "/deploy/examples", broken, classed});
  CHECK(rendered.code == 1);
  CHECK(("\n" + rendered.err).find(error) != std::string::npos);
  CHECK(("\n" + rendered.err).find(warning) != std::string::npos);
}

TEST_CASE("run rotates its journal by --journal-max-size and keeps --journal-max-files", "[e2e][cli][journal]") {
  testutil::TempDir dir("ao-journal-cli");
  std::string journal = dir.file("journal.jsonl");
  e2e::OperatorFixture f({.load_examples = false, .start_operator = false});
  std::string kc = dir.write("kubeconfig", f.server().kubeconfig());
  k8s::sim::Child op({testutil::operator_bin(), "run", "--listen=0", "--kubeconfig", kc, "--journal", journal,
                      "--journal-max-size=4Ki", "--journal-max-files", "2"});
  // Each ServiceMonitor is a journal line of about 2 KiB; a rotated file
  // starts with the state so far, so files double: about 5 rotations.
  const std::string padding(2000, 'x');
  for (int i = 0; i < 40; ++i)
    f.apply_yaml("apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: m" + std::to_string(i) +
                 ", namespace: default, annotations: {pad: " + padding + "}}\nspec: {selector: {}, endpoints: []}\n");
  namespace fs = std::filesystem;
  CHECK(testutil::eventually([&] { return fs::exists(journal + ".2"); }));
  CHECK(op.terminate() == 0);
  CHECK(fs::exists(journal));
  CHECK(fs::exists(journal + ".1"));
  CHECK_FALSE(fs::exists(journal + ".3"));
  // The rotated set replays on its own: the oldest kept file starts from a base state.
  auto replayed = k8s::sim::run({testutil::operator_bin(), "replay", journal});
  INFO(replayed.err);
  CHECK(replayed.code == 0);
  CHECK(replayed.err.find("files=3") != std::string::npos);
}
