// --help, -h and help on every program and subcommand (exit 0, every flag
// with a description and a default), usage errors (exit 2 naming the
// flag), and the flags both programs spell alike.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "../scratch.hpp"
#include "bin_path.hpp"
#include "k8s/sim/process.hpp"

namespace {

using Argv = std::vector<std::string>;

// Each flag entry of a help text ("  --name, -alias VALUE") must be
// followed by a description line that ends with "(default ...)".
void check_every_flag_documented(const std::string& help) {
  std::istringstream in(help);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::size_t flags = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("  -", 0) != 0) continue;
    ++flags;
    INFO(lines[i]);
    REQUIRE(i + 1 < lines.size());
    CHECK(lines[i + 1].rfind("      ", 0) == 0);
    CHECK(lines[i + 1].find("(default ") != std::string::npos);
    CHECK(lines[i + 1].size() > 20);  // a description, not only the default
  }
  CHECK(flags > 0);
}

}  // namespace

TEST_CASE("every program and subcommand answers --help, -h and help with every flag's default", "[cli][help]") {
  const std::vector<Argv> forms = {{"agent-operator", "render", "--help"},
                                   {"agent-operator", "help", "render"},
                                   {"agent-operator", "render", "-h"},
                                   {"agent-operator", "run", "--help"},
                                   {"agent-operator", "help", "run"},
                                   {"agent-operator", "run", "-help"},
                                   {"agent-operator", "demo", "--help"},
                                   {"agent-operator", "help", "demo"},
                                   {"agent-operator", "replay", "-h"},
                                   {"agent-operator", "help", "replay"},
                                   {"target-allocator", "--help"},
                                   {"target-allocator", "-h"},
                                   {"target-allocator", "help"},
                                   {"target-allocator", "replay", "--help"},
                                   {"target-allocator", "help", "replay"},
                                   {"simcluster", "--help"},
                                   {"simcluster", "-h"},
                                   {"simcluster", "help"}};
  for (Argv argv : forms) {
    INFO(argv[0] << " " << argv[1] << " " << (argv.size() > 2 ? argv[2] : ""));
    argv[0] = testutil::bin(argv[0]);
    auto r = k8s::sim::run(argv);
    CHECK(r.code == 0);
    CHECK(r.out.rfind("usage: ", 0) == 0);
    CHECK(r.out.find("exit codes:") != std::string::npos);
    check_every_flag_documented(r.out);
  }
  for (const Argv& top : {Argv{"help"}, Argv{"--help"}, Argv{"-h"}}) {
    Argv argv{testutil::bin("agent-operator")};
    argv.insert(argv.end(), top.begin(), top.end());
    auto r = k8s::sim::run(argv);
    CHECK(r.code == 0);
    for (const char* cmd : {"render", "run", "demo", "replay", "version", "help"})
      CHECK(r.out.find("\n  " + std::string(cmd) + " ") != std::string::npos);
  }
  auto run_help = k8s::sim::run({testutil::bin("agent-operator"), "run", "--help"});
  for (const char* text : {"--metrics-listen-address, --listen, --listen-addr HOST:PORT", "(default :8080)",
                           "--health-listen-address", "--kubeconfig, --kubeconfig-path FILE", "--log-level, -log.level",
                           "--journal-max-size SIZE", "(default 64Mi)", "--journal-max-files N", "(default 5)",
                           "--upstream-compat", "--listen-host", "--listen-port", "--kubelet-service NS/NAME"})
    CHECK(run_help.out.find(text) != std::string::npos);
  auto ta_help = k8s::sim::run({testutil::bin("target-allocator"), "--help"});
  for (const char* text : {"--listen-addr, --listen HOST:PORT", "--kubeconfig-path, --kubeconfig FILE",
                           "--leader-elect-lease-duration, --lease-duration D", "/-/ready"})
    CHECK(ta_help.out.find(text) != std::string::npos);
}

TEST_CASE("usage errors exit 2 and name the flag", "[cli][help]") {
  testutil::TempDir dir("ao-help");
  const std::string ta_config = dir.write("ta.yaml", "collectors: [c1]\n");
  struct Case {
    Argv argv;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"agent-operator", "render", "--frob"}, "unknown flag \"--frob\""},
      {{"agent-operator", "render", "-f"}, "-f needs a value (PATH)"},
      {{"agent-operator", "run", "--qps=fast"}, "--qps: want a positive number"},
      {{"agent-operator", "run", "--journal-max-size", "huge"}, "--journal-max-size: want a size in bytes"},
      {{"agent-operator", "run", "--journal-max-files=-1"}, "--journal-max-files: want an integer from 0"},
      {{"agent-operator", "run", "-listen-port=99999"}, "-listen-port: want an integer from 0 to 65535"},
      {{"agent-operator", "run", "--leader-elect=maybe"}, "--leader-elect: want true or false"},
      {{"agent-operator", "run", "--leader-pod-label=bad key!"}, "--leader-pod-label: name part must consist"},
      {{"agent-operator", "demo", "--sim-listen", "nowhere"}, "--sim-listen: want HOST:PORT"},
      {{"agent-operator", "replay", "--until", "x", "j"}, "--until: want an integer"},
      {{"agent-operator", "help", "frob"}, "unknown command \"frob\""},
      {{"agent-operator", "frob"}, "unknown command \"frob\""},
      {{"target-allocator", "--config-file", ta_config, "--lease-duration", "soon"}, "--lease-duration: \"soon\""},
      {{"target-allocator", "--config-file"}, "--config-file needs a value"},
      {{"target-allocator", "replay", "--until"}, "--until needs a value"},
      {{"simcluster", "--kubeconfig-out", "/dev/null", "--fault-429-rate", "2"}, "--fault-429-rate: want a rate"},
      {{"simcluster", "--kubeconfig-out", "/dev/null", "--nope"}, "unknown flag \"--nope\""},
  };
  for (Case c : cases) {
    c.argv[0] = testutil::bin(c.argv[0]);
    auto r = k8s::sim::run(c.argv);
    INFO(c.argv[1] << ": " << r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(c.error) != std::string::npos);
    CHECK(r.err.find("--help") != std::string::npos);  // where to read more
  }
  auto bare = k8s::sim::run({testutil::bin("agent-operator")});
  CHECK(bare.code == 2);
  CHECK(bare.err.find("usage: agent-operator") != std::string::npos);
}
