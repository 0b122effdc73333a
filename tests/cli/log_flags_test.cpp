// The log flags of the programs: --log-level/--log-format and upstream's
// -log.level/-log.format, their errors (exit 2 naming the flag), the two
// formats on stderr, and the rate limit of a retry loop in a real process.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../scratch.hpp"
#include "bin_path.hpp"
#include "k8s/sim/cluster.hpp"
#include "k8s/sim/process.hpp"
#include "k8s/sim/server.hpp"
#include "model/parse.hpp"

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// An API server without our CRDs: every list of our kinds is a 404 the
// informers retry after 0.1-0.2 s, 0.2-0.4 s, ... (no client-side retries).
struct NoCrdsCluster {
  k8s::sim::SystemClock clock;
  k8s::sim::Cluster cluster{clock};
  k8s::sim::Server server{cluster, {}};
  testutil::TempDir dir{"ao-logflags"};
  std::string kubeconfig;
  NoCrdsCluster() {
    server.start();
    kubeconfig = dir.write("nocrds.kubeconfig", server.kubeconfig());
  }
};

std::size_t count(const std::vector<std::string>& lines, const std::vector<std::string>& parts) {
  std::size_t n = 0;
  for (const auto& l : lines) {
    bool all = true;
    for (const auto& p : parts) all = all && l.find(p) != std::string::npos;
    n += all;
  }
  return n;
}

}  // namespace

TEST_CASE("a bad log level or format is a usage error naming the flag", "[cli][log]") {
  testutil::TempDir dir("ao-logflags");
  const std::string ta_config = dir.write("ta.yaml", "collectors: [c1]\n");
  struct Case {
    std::vector<std::string> argv;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{testutil::bin("agent-operator"), "run", "--log-level", "verbose"},
       "--log-level: \"verbose\" is not a log level"},
      {{testutil::bin("agent-operator"), "run", "-log.level=loud"}, "-log.level: \"loud\" is not a log level"},
      {{testutil::bin("agent-operator"), "demo", "--log-format", "xml"}, "--log-format: \"xml\" is not a log format"},
      {{testutil::bin("agent-operator"), "run", "-log.format", "console"},
       "-log.format: \"console\" is not a log format"},
      {{testutil::bin("agent-operator"), "replay", "j.jsonl", "--log-level", "trace"}, "--log-level: \"trace\""},
      {{testutil::bin("target-allocator"), "--config-file", ta_config, "--log-level", "verbose"},
       "--log-level: \"verbose\" is not a log level"},
      {{testutil::bin("target-allocator"), "--config-file", ta_config, "-log.format", "xml"},
       "-log.format: \"xml\" is not a log format"},
      {{testutil::bin("target-allocator"), "replay", "j.jsonl", "-log.level", "x"},
       "-log.level: \"x\" is not a log level"},
      {{testutil::bin("simcluster"), "--kubeconfig-out", "/dev/null", "--log-format", "yaml"},
       "--log-format: \"yaml\" is not a log format"},
  };
  for (const Case& c : cases) {
    auto r = k8s::sim::run(c.argv);
    INFO(c.argv[1] << " " << c.argv[2] << ": " << r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(c.error) != std::string::npos);
    CHECK(r.err.find("(want ") != std::string::npos);  // the accepted values
  }
}

TEST_CASE("agent-operator logs JSON or logfmt to stderr, filtered by upstream's -log.level", "[cli][log]") {
  NoCrdsCluster sim;
  const std::string& kc = sim.kubeconfig;
  // JSON at warn: every line is an object with the fixed keys, and no info.
  auto json = k8s::sim::run({testutil::bin("agent-operator"), "run", "--listen=0", "--kubeconfig", kc, "--sync-timeout",
                             "1s", "-log.level=warn", "-log.format=json"});
  INFO(json.err);
  CHECK(json.code == 1);
  auto lines = lines_of(json.err);
  REQUIRE_FALSE(lines.empty());
  std::map<std::string, int> levels;
  for (const auto& l : lines) {
    model::Value v = model::parse_json(l, "stderr line");
    for (const char* key : {"ts", "level", "component", "msg"}) CHECK(v.find(key));
    ++levels[v.find("level")->as_string()];
  }
  CHECK(levels["info"] == 0);
  CHECK(levels["warn"] > 0);   // the informers' retries
  CHECK(levels["error"] > 0);  // the sync timeout
  // logfmt (the default) at upstream's "all": the debug lines are there too.
  auto logfmt = k8s::sim::run({testutil::bin("agent-operator"), "run", "--listen=0", "--kubeconfig", kc,
                               "--sync-timeout", "1s", "-log.level", "all"});
  CHECK(logfmt.code == 1);
  for (const auto& l : lines_of(logfmt.err)) CHECK(l.rfind("ts=", 0) == 0);
  CHECK(logfmt.err.find(" level=debug component=operator msg=authentication method=none") != std::string::npos);
  CHECK(logfmt.err.find(" level=info component=operator msg=\"cluster configuration loaded\"") != std::string::npos);
  // none: nothing at all.
  auto none = k8s::sim::run({testutil::bin("agent-operator"), "run", "--listen=0", "--kubeconfig", kc, "--sync-timeout",
                             "1s", "--log-level", "none"});
  CHECK(none.code == 1);
  CHECK(none.err.empty());
}

TEST_CASE("a retry loop's identical errors are logged once per kind, then with a count", "[cli][log]") {
  NoCrdsCluster sim;
  auto r = k8s::sim::run(
      {testutil::bin("agent-operator"), "run", "--listen=0", "--kubeconfig", sim.kubeconfig, "--sync-timeout", "2s"});
  INFO(r.err);
  CHECK(r.code == 1);
  auto lines = lines_of(r.err);
  for (const char* kind : {"GrafanaAgent", "ServiceMonitor", "Probe"}) {
    INFO(kind);
    const std::string k = std::string(" kind=") + kind + " ";
    // Within the 30 s window: the first failure, then at exit one line for
    // the retries held back.
    CHECK(count(lines, {"msg=\"CRD not installed; retrying\"", k}) == 1);
    CHECK(count(lines, {"msg=\"CRD not installed; retrying (repeated ", k, " repeated="}) == 1);
  }
  CHECK(count(lines, {" kind=Secret "}) == 0);  // built-in kinds list fine
}

TEST_CASE("target-allocator and simcluster accept the log flags", "[cli][log]") {
  testutil::TempDir dir("ao-logflags");
  const std::string config = dir.write("ta.yaml", "collectors: [c1]\n");
  k8s::sim::Child ta({"sh", "-c",
                      "exec " + testutil::bin("target-allocator") + " --config-file " + config +
                          " --listen-addr 127.0.0.1:0 -log.level debug -log.format json 2>" + dir.file("ta.err")});
  REQUIRE(ta.read_until([](const std::string& out) { return out.find("listening on") != std::string::npos; },
                        std::chrono::seconds(30)));
  CHECK(ta.terminate() == 0);
  auto lines = lines_of(dir.read("ta.err"));
  REQUIRE_FALSE(lines.empty());
  for (const auto& l : lines) CHECK(model::parse_json(l, "stderr line").find("msg"));
  CHECK(dir.read("ta.err").find("\"component\":\"config\",\"msg\":\"loaded\"") != std::string::npos);

  k8s::sim::Child sim({"sh", "-c",
                       "exec " + testutil::bin("simcluster") + " --listen 127.0.0.1:0 --kubeconfig-out " +
                           dir.file("kc") + " --log-level warn --log-format json"});
  REQUIRE(sim.read_until([](const std::string& out) { return out.find("listening on") != std::string::npos; },
                         std::chrono::seconds(30)));
  CHECK(sim.terminate() == 0);
}
