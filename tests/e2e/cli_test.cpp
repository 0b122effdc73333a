// The agent-operator program itself: `demo` as the README runs it, driven
// with the real kubectl, and the errors of `run` and `replay`.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../k8s/process.hpp"

namespace {

std::string bin() {
  return std::string(AO_BIN_DIR) + "/agent-operator";
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("ao-cli-" + std::to_string(::getpid()) + "-" + std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

}  // namespace

TEST_CASE("demo reconciles the examples and kubectl sees the result", "[e2e][cli]") {
  TempDir dir;
  std::string kc = dir.file("demo.kubeconfig");
  testutil::Child demo({bin(), "demo", "--for", "60s", "--kubeconfig-out", kc});
  REQUIRE(demo.read_until([](const std::string& out) { return out.find("running for") != std::string::npos; },
                          std::chrono::seconds(60)));
  CHECK(demo.output().find("create StatefulSet monitoring/grafana-agent-shard-1") != std::string::npos);
  CHECK(demo.output().find("Reconciled=True") != std::string::npos);
  auto sts = testutil::run({"kubectl", "--kubeconfig", kc, "get", "statefulsets", "-n", "monitoring", "-o", "name"});
  REQUIRE(sts.code == 0);
  CHECK(sts.out == "statefulset.apps/grafana-agent\nstatefulset.apps/grafana-agent-shard-1\n");
  auto ga = testutil::run({"kubectl", "--kubeconfig", kc, "get", "grafanaagents", "-A"});
  REQUIRE(ga.code == 0);
  CHECK(ga.out.find("RECONCILED") != std::string::npos);
  CHECK(ga.out.find("True") != std::string::npos);
  // A change made with kubectl is reconciled by the running demo.
  auto patch = testutil::run({"kubectl", "--kubeconfig", kc, "patch", "grafanaagent", "grafana-agent", "-n",
                              "monitoring", "--type", "merge", "-p", R"({"spec":{"metrics":{"shards":1}}})"});
  REQUIRE(patch.code == 0);
  bool pruned = false;
  for (int i = 0; i < 100 && !pruned; ++i) {
    auto now = testutil::run({"kubectl", "--kubeconfig", kc, "get", "statefulsets", "-n", "monitoring", "-o", "name"});
    pruned = now.out == "statefulset.apps/grafana-agent\n";
    if (!pruned) usleep(100'000);
  }
  CHECK(pruned);
  CHECK(demo.terminate() == 0);
}

TEST_CASE("run explains a missing kubeconfig and unknown flags", "[e2e][cli]") {
  auto missing = testutil::run({bin(), "run", "--kubeconfig", "/nonexistent/kubeconfig"});
  CHECK(missing.code == 2);
  CHECK(missing.err.find("/nonexistent/kubeconfig") != std::string::npos);
  auto unknown = testutil::run({bin(), "run", "--no-such-flag"});
  CHECK(unknown.code == 2);
  CHECK(unknown.err.find("--no-such-flag") != std::string::npos);
  auto dur = testutil::run({bin(), "demo", "--debounce", "soon"});
  CHECK(dur.code == 2);
  CHECK(dur.err.find("--debounce") != std::string::npos);
}

namespace {

// A port nothing listens on: bound, read back and closed again.
int closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

}  // namespace

// Once a segfault: the transport's I/O thread, still retrying lists, reported
// to a metrics object that had already been destroyed.
TEST_CASE("run exits 1, without crashing, when the API server is unreachable", "[e2e][cli]") {
  TempDir dir;
  std::string kc = dir.file("closed.kubeconfig");
  std::ofstream(kc) << "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                       "clusters: [{name: c, cluster: {server: 'http://127.0.0.1:"
                    << closed_port()
                    << "'}}]\n"
                       "contexts: [{name: c, context: {cluster: c, user: u}}]\nusers: [{name: u, user: {}}]\n";
  for (const char* listen : {"", "127.0.0.1:0"}) {
    std::vector<std::string> argv{bin(), "run", "--kubeconfig", kc, "--sync-timeout", "2s"};
    if (*listen) argv.insert(argv.end(), {"--listen", listen});
    auto r = testutil::run(argv);
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK(r.err.find("did not sync within 2000ms") != std::string::npos);
  }
}

TEST_CASE("replay reports unreadable and corrupt journals", "[e2e][cli]") {
  TempDir dir;
  auto missing = testutil::run({bin(), "replay", dir.file("absent.jsonl")});
  CHECK(missing.code == 2);
  CHECK(missing.err.find("absent.jsonl") != std::string::npos);
  std::string corrupt = dir.file("corrupt.jsonl");
  std::ofstream(corrupt) << "{\"flags\":{},\"format\":\"agent-operator-journal\",\"operator_version\":\"0.1.0\","
                            "\"version\":1}\nnot json\n{}\n";
  auto bad = testutil::run({bin(), "replay", corrupt});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("corrupt.jsonl") != std::string::npos);
  CHECK(bad.err.find("line 2") != std::string::npos);
  auto until = testutil::run({bin(), "replay", corrupt, "--until", "x"});
  CHECK(until.code == 2);
}
