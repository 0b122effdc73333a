// The agent-operator program itself: `demo` as the README runs it, driven
// with the real kubectl, and the errors of `run` and `replay`.
#include <httplib.h>
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "../scratch.hpp"
#include "actors/core/journal_file.hpp"
#include "bin_path.hpp"
#include "k8s/sim/cluster.hpp"
#include "k8s/sim/process.hpp"
#include "k8s/sim/server.hpp"

namespace {}  // namespace

TEST_CASE("demo reconciles the examples and kubectl sees the result", "[e2e][cli]") {
  testutil::TempDir dir("ao-cli");
  std::string kc = dir.file("demo.kubeconfig");
  // The report on stdout, the log on stderr: read both.
  k8s::sim::Child demo(
      {"sh", "-c", "exec " + testutil::operator_bin() + " demo --for 60s --kubeconfig-out " + kc + " 2>&1"});
  REQUIRE(demo.read_until([](const std::string& out) { return out.find("running for") != std::string::npos; },
                          std::chrono::seconds(60)));
  CHECK(demo.output().find("level=info component=writer msg=created object=\"StatefulSet "
                           "monitoring/grafana-agent-shard-1\"") != std::string::npos);
  CHECK(demo.output().find("Reconciled=True") != std::string::npos);
  auto sts = k8s::sim::run({"kubectl", "--kubeconfig", kc, "get", "statefulsets", "-n", "monitoring", "-o", "name"});
  REQUIRE(sts.code == 0);
  CHECK(sts.out == "statefulset.apps/grafana-agent\nstatefulset.apps/grafana-agent-shard-1\n");
  auto ga = k8s::sim::run({"kubectl", "--kubeconfig", kc, "get", "grafanaagents", "-A"});
  REQUIRE(ga.code == 0);
  CHECK(ga.out.find("RECONCILED") != std::string::npos);
  CHECK(ga.out.find("True") != std::string::npos);
  // The printed integrations SD endpoint answers the stand-in pods' targets
  // (two nodes for the daemonset integration, one pod for the other).
  std::string out = demo.output();
  std::size_t url_at = out.find("integrations SD endpoint (Prometheus http_sd): ");
  REQUIRE(url_at != std::string::npos);
  std::string url = out.substr(url_at + 47, out.find(' ', url_at + 47) - url_at - 47);
  REQUIRE(url.rfind("http://127.0.0.1:", 0) == 0);
  std::size_t path_at = url.find('/', 17);
  httplib::Client client("127.0.0.1", std::stoi(url.substr(17, path_at - 17)));
  auto sd = client.Get(url.substr(path_at).c_str());
  REQUIRE(sd);
  CHECK(sd->status == 200);
  CHECK(sd->body.find("\"node-1:12345\"") != std::string::npos);
  CHECK(sd->body.find("\"node-2:12345\"") != std::string::npos);
  CHECK(sd->body.find("\"__meta_agentoperator_integration_cr_name\":\"redis-sessions\"") != std::string::npos);
  // A change made with kubectl is reconciled by the running demo.
  auto patch = k8s::sim::run({"kubectl", "--kubeconfig", kc, "patch", "grafanaagent", "grafana-agent", "-n",
                              "monitoring", "--type", "merge", "-p", R"({"spec":{"metrics":{"shards":1}}})"});
  REQUIRE(patch.code == 0);
  bool pruned = false;
  for (int i = 0; i < 100 && !pruned; ++i) {
    auto now = k8s::sim::run({"kubectl", "--kubeconfig", kc, "get", "statefulsets", "-n", "monitoring", "-o", "name"});
    pruned = now.out == "statefulset.apps/grafana-agent\n";
    if (!pruned) usleep(100'000);
  }
  CHECK(pruned);
  CHECK(demo.terminate() == 0);
}

TEST_CASE("run explains a missing kubeconfig and unknown flags", "[e2e][cli]") {
  auto missing = k8s::sim::run({testutil::operator_bin(), "run", "--kubeconfig", "/nonexistent/kubeconfig"});
  CHECK(missing.code == 2);
  CHECK(missing.err.find("/nonexistent/kubeconfig") != std::string::npos);
  auto unknown = k8s::sim::run({testutil::operator_bin(), "run", "--no-such-flag"});
  CHECK(unknown.code == 2);
  CHECK(unknown.err.find("--no-such-flag") != std::string::npos);
  auto dur = k8s::sim::run({testutil::operator_bin(), "demo", "--debounce", "soon"});
  CHECK(dur.code == 2);
  CHECK(dur.err.find("--debounce") != std::string::npos);
}

namespace {

// A kubeconfig for a port nothing listens on.
std::string closed_kubeconfig(const testutil::TempDir& dir, int port) {
  std::string kc = dir.file("closed.kubeconfig");
  std::ofstream(kc) << "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                       "clusters: [{name: c, cluster: {server: 'http://127.0.0.1:"
                    << port
                    << "'}}]\n"
                       "contexts: [{name: c, context: {cluster: c, user: u}}]\nusers: [{name: u, user: {}}]\n";
  return kc;
}

struct Measured {
  int code = -1;
  double seconds = 0;
  long max_rss_kib = 0;
};

// Runs a program (output discarded) and reports its exit code, wall time
// and peak resident memory.
Measured run_measured(const std::vector<std::string>& argv) {
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  rusage ru{};
  ::wait4(pid, &status, 0, &ru);
  Measured m;
  m.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m.max_rss_kib = ru.ru_maxrss;
  return m;
}

}  // namespace

// Once a segfault: the transport's I/O thread, still retrying lists, reported
// to a metrics object that had already been destroyed.
TEST_CASE("run exits 1, without crashing, when the API server is unreachable", "[e2e][cli]") {
  testutil::TempDir dir("ao-cli");
  testutil::RefusingPort refusing;
  std::string kc = closed_kubeconfig(dir, refusing.port());
  for (const char* listen : {"0", "127.0.0.1:0"}) {
    // The client retries a refused connection 5 times with backoff (at
    // least 1.55 s, at most 3.1 s in all) before a list reports it, so the
    // timeout must outlast that for "HTTP 0" to be seen.
    std::vector<std::string> argv{testutil::operator_bin(), "run", "--kubeconfig", kc,
                                  "--sync-timeout",         "5s",  "--listen",     listen};
    auto r = k8s::sim::run(argv);
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK(r.err.find("msg=\"informers did not sync in time; exiting\" sync_timeout_ms=5000") != std::string::npos);
    // The kinds whose list got no answer at all say why; which kinds had
    // tried by then depends on the informers' backoff.
    CHECK(r.err.find("error=\"HTTP 0 ") != std::string::npos);
    CHECK(r.err.find("cause=\"the API server is unreachable\"") != std::string::npos);
    CHECK(r.err.find("CRD") == std::string::npos);
  }
}

// A pod told to stop while its informers still list (an unreachable or
// forbidden API) must exit at once, not after --sync-timeout.
// An API server without our CRDs answers every list of them with 404: the
// error must say which kinds and what to do, not just "did not sync".
TEST_CASE("run names the kinds that never listed and why, when the CRDs are missing", "[e2e][cli]") {
  testutil::TempDir dir("ao-cli");
  k8s::sim::SystemClock clock;
  k8s::sim::Cluster cluster(clock);  // no CRDs
  k8s::sim::Server server(cluster, {});
  server.start();
  std::string kc = dir.file("nocrds.kubeconfig");
  std::ofstream(kc) << server.kubeconfig();
  auto r = k8s::sim::run({testutil::operator_bin(), "run", "--listen=0", "--kubeconfig", kc, "--sync-timeout", "2s"});
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(r.err.find("msg=\"informers did not sync in time; exiting\" sync_timeout_ms=2000") != std::string::npos);
  CHECK(r.err.find("msg=\"not synced\" kind=GrafanaAgent error=\"HTTP 404") != std::string::npos);
  CHECK(r.err.find("msg=\"not synced\" kind=ServiceMonitor error=\"HTTP 404") != std::string::npos);
  CHECK(r.err.find("kind=Secret ") == std::string::npos);  // built-in kinds listed fine
  // Each missing CRD by name, with where to get it; not "unreachable".
  CHECK(r.err.find("msg=\"CRD not installed; retrying\" kind=GrafanaAgent crd=grafanaagents.monitoring.grafana.com "
                   "status=404 hint=\"apply deploy/crds (deploy/README.md)\"") != std::string::npos);
  CHECK(r.err.find("cause=\"the CRD servicemonitors.monitoring.coreos.com is not installed: apply "
                   "deploy/prometheus-operator-crds where prometheus-operator is absent") != std::string::npos);
  CHECK(r.err.find("unreachable") == std::string::npos);
}

TEST_CASE("run exits 0 on SIGTERM before its informers have synced", "[e2e][cli]") {
  testutil::TempDir dir("ao-cli");
  testutil::RefusingPort refusing;
  k8s::sim::Child op({testutil::operator_bin(), "run", "--listen=0", "--kubeconfig",
                      closed_kubeconfig(dir, refusing.port()), "--sync-timeout", "60s"});
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // well into the informers' retries
  auto asked = std::chrono::steady_clock::now();
  CHECK(op.terminate() == 0);
  CHECK(std::chrono::steady_clock::now() - asked < std::chrono::seconds(5));
}

TEST_CASE("replay reports unreadable and corrupt journals", "[e2e][cli]") {
  testutil::TempDir dir("ao-cli");
  auto missing = k8s::sim::run({testutil::operator_bin(), "replay", dir.file("absent.jsonl")});
  CHECK(missing.code == 2);
  CHECK(missing.err.find("absent.jsonl") != std::string::npos);
  std::string corrupt = dir.file("corrupt.jsonl");
  std::ofstream(corrupt) << "{\"flags\":{},\"format\":\"agent-operator-journal\",\"operator_version\":\"0.1.0\","
                            "\"version\":1}\nnot json\n{}\n";
  auto bad = k8s::sim::run({testutil::operator_bin(), "replay", corrupt});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("corrupt.jsonl") != std::string::npos);
  CHECK(bad.err.find("line 2") != std::string::npos);
  auto until = k8s::sim::run({testutil::operator_bin(), "replay", corrupt, "--until", "x"});
  CHECK(until.code == 2);
}

TEST_CASE("run refuses a journal another process holds", "[e2e][cli]") {
  testutil::TempDir dir("ao-cli");
  std::string journal = dir.file("journal.jsonl");
  actors::core::FileJournalOptions o;
  o.path = journal;
  actors::core::FileJournal held(o);  // this test process is the other operator
  testutil::RefusingPort refusing;
  auto r = k8s::sim::run({testutil::operator_bin(), "run", "--listen=0", "--kubeconfig",
                          closed_kubeconfig(dir, refusing.port()), "--journal", journal, "--sync-timeout", "20s"});
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(r.err.find("journal " + journal + " is in use by process " + std::to_string(::getpid())) != std::string::npos);
  CHECK(r.err.find("did not sync") == std::string::npos);  // refused at once, before waiting for the cluster
}

TEST_CASE("replay rejects non-journal input fast and in bounded memory", "[e2e][cli]") {
  testutil::TempDir dir("ao-cli");
  constexpr off_t kGiB = 1ll << 30;
  auto make = [&](const std::string& name, const std::string& head) {
    std::string path = dir.file(name);
    std::ofstream(path, std::ios::binary) << head;
    REQUIRE(::truncate(path.c_str(), kGiB) == 0);  // sparse: no disk or page cache needed
    return path;
  };
  std::mt19937 rng(7);
  std::string noise(4 << 20, '\0');
  for (char& c : noise) c = static_cast<char>(rng());
  std::string header =
      "{\"flags\":{},\"format\":\"agent-operator-journal\",\"operator_version\":\"0.1.0\",\"version\":2}\n";
  for (const auto& [path, message] :
       {std::pair{make("random.bin", noise), std::string("line 1")},
        std::pair{make("one-line.json", "{\"format\":"), std::string("not an agent-operator journal")},
        std::pair{make("long-line.jsonl", header + "{\"kind\":\""), std::string("line 2: line longer than")}}) {
    INFO(path);
    auto r = k8s::sim::run({testutil::operator_bin(), "replay", path});
    CHECK(r.code == 2);
    CHECK(r.err.find(path) != std::string::npos);
    CHECK(r.err.find(message) != std::string::npos);
    Measured m = run_measured({testutil::operator_bin(), "replay", path});
    CHECK(m.code == 2);
    CHECK(m.seconds < 3.0);
    CHECK(m.max_rss_kib < 100 * 1024);  // reading the 1 GiB file whole would need ten times that
  }
}

TEST_CASE("replay refuses a journal without a base state unless --partial", "[e2e][cli]") {
  testutil::TempDir dir("ao-cli");
  std::string rotated = dir.file("old.jsonl.3");
  // A version 1 file rotated mid-stream: it starts at seq 41.
  std::ofstream(rotated) << "{\"flags\":{},\"format\":\"agent-operator-journal\",\"operator_version\":\"0.1.0\","
                            "\"version\":1}\n"
                            "{\"kind\":\"Namespace\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
                            "\"metadata\":{\"name\":\"shop\"}},\"seq\":41,\"time\":\"2024-05-01T12:00:00.000Z\","
                            "\"type\":\"ADDED\"}\n";
  auto refused = k8s::sim::run({testutil::operator_bin(), "replay", rotated});
  CHECK(refused.code == 2);
  CHECK(refused.out.empty());
  CHECK(refused.err.find("no base state") != std::string::npos);
  CHECK(refused.err.find("seq 41") != std::string::npos);
  CHECK(refused.err.find("--partial") != std::string::npos);
  auto partial = k8s::sim::run({testutil::operator_bin(), "replay", rotated, "--partial"});
  CHECK(partial.code == 0);
  CHECK(partial.err.find("level=warn component=replay msg=") != std::string::npos);
  auto help = k8s::sim::run({testutil::operator_bin(), "replay", "--help"});
  CHECK(help.code == 0);
  CHECK(help.out.find("JOURNAL.N ...") != std::string::npos);
  CHECK(help.out.find("--partial") != std::string::npos);
}
