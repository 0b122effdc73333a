// The controller under a misbehaving API server, and leader election.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <thread>

#include "../eventually.hpp"
#include "actors/core/convergence.hpp"
#include "actors/core/writer_plan.hpp"
#include "k8s/sim/process.hpp"
#include "model/yaml_emit.hpp"
#include "operator_fixture.hpp"

using e2e::OperatorFixture;

namespace {

// kind ns/name -> data (Secrets) or spec (the rest): the end state.
std::map<std::string, std::string> end_state(OperatorFixture& f) {
  return actors::core::comparable_content(f.owned());
}

constexpr const char* kLeaderLabel = "operator.agent.grafana.com/leader";

// The Pods of the Lease's namespace that carry the leader label, by name.
std::vector<std::string> labelled_pods(OperatorFixture& f) {
  std::vector<std::string> out;
  for (const char* pod : {"first", "second", "third"}) {
    auto p = f.get("Pod", "default", pod);
    const model::Value* labels = p ? p->find("metadata")->find("labels") : nullptr;
    if (labels && labels->find(kLeaderLabel)) out.push_back(pod);
  }
  return out;
}

void scenario(OperatorFixture& f, bool faults) {
  auto disrupt = [&] {
    if (!faults) return;
    f.cluster().store().compact();  // resumed watches now get 410 Gone
    f.cluster().store().close_watchers();
  };
  f.apply_yaml(R"(apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: checkout, namespace: shop, labels: {instance: primary}}
spec:
  selector: {matchLabels: {app.kubernetes.io/name: checkout}}
  endpoints: [{port: http-metrics, interval: 45s}]
)");
  disrupt();
  f.apply_yaml("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n  labels: {monitoring: enabled}\n");
  f.apply_yaml(R"(apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: api, namespace: team-a, labels: {instance: primary}}
spec:
  selector: {matchLabels: {app: api}}
  endpoints: [{port: web}]
)");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  disrupt();
  f.apply_yaml(R"(apiVersion: v1
kind: Secret
metadata: {name: remote-write-credentials, namespace: monitoring}
stringData: {username: "123456", password: rotated}
)");
  f.apply_yaml(R"(apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: extra, namespace: monitoring}
spec:
  metrics:
    shards: 2
    instanceSelector: {matchLabels: {agent: grafana-agent}}
)");
  disrupt();
  f.remove("ServiceMonitor", "shop", "checkout");
}

}  // namespace

TEST_CASE("with watch drops and 410s and 5xx injected the end state equals a fault-free run", "[e2e][faults]") {
  std::map<std::string, std::string> clean, faulty;
  {
    OperatorFixture f;
    REQUIRE(f.wait_idle());
    scenario(f, false);
    REQUIRE(f.wait_idle());
    REQUIRE(f.divergence().empty());
    clean = end_state(f);
  }
  {
    OperatorFixture f;
    k8s::sim::FaultConfig fc;
    fc.error_5xx_rate = 0.15;
    fc.error_429_rate = 0.05;
    fc.drop_watch_rate = 0.1;
    f.server().faults().set_config(fc);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    scenario(f, true);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    f.server().faults().set_config({});  // the end state must be reached once the server behaves
    // Informers may be backing off when the faults stop; the end state must
    // still be reached.
    f.wait_converged(std::chrono::seconds(60));
    auto diff = f.divergence();
    for (const auto& d : diff) UNSCOPED_INFO(d);
    if (!diff.empty())
      for (const auto& l : f.log()) UNSCOPED_INFO("log: " << l);
    REQUIRE(diff.empty());
    faulty = end_state(f);
    CHECK(f.controller().stats().writer.errors + f.controller().stats().informers.size() > 0);
  }
  CHECK(clean.size() > 8);
  CHECK(faulty == clean);
}

TEST_CASE("a standby takes over within one lease duration after the leader dies", "[e2e][leader]") {
  OperatorFixture f({.start_operator = false});
  auto options = [](const std::string& identity) {
    actors::ControllerOptions co;
    co.release_lease_on_stop = false;  // dies: no release
    co.root.debounce = std::chrono::milliseconds(20);
    co.writer.now_rfc3339 = [] { return std::string("2024-05-01T12:00:00Z"); };
    actors::core::LeaderConfig lc;
    lc.identity = identity;
    lc.lease_duration = std::chrono::milliseconds(2000);
    lc.renew_deadline = std::chrono::milliseconds(1500);
    lc.retry_period = std::chrono::milliseconds(200);
    co.leader = lc;
    co.leader_label = actors::LeaderLabelConfig{nullptr, "default", identity, kLeaderLabel};
    return co;
  };
  // The replicas' Pods, and one a dead leader left labelled.
  for (const char* pod : {"first", "second", "third"})
    f.apply_yaml(std::string("apiVersion: v1\nkind: Pod\nmetadata:\n  name: ") + pod +
                 "\n  namespace: default\n  labels: {app: agent-operator" +
                 (pod == std::string("third") ? std::string(", ") + kLeaderLabel + ": \"true\"" : "") +
                 "}\nspec:\n  containers: [{name: operator, image: agent-operator}]\n");
  f.start_operator(options("first"));
  auto holder = [&] {
    auto lease = f.get("Lease", "default", "agent-operator-leader");
    return lease ? lease->find("spec")->find("holderIdentity")->as_string() : std::string();
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (holder() != "first" && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(holder() == "first");
  // A standby runs alongside and must not write while the leader lives.
  auto standby = f.start_instance(options("second"));
  REQUIRE(f.wait_idle());
  REQUIRE(f.divergence().empty());
  f.apply_yaml("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels: {monitoring: disabled}\n");
  REQUIRE(f.wait_idle());
  REQUIRE(f.divergence().empty());
  REQUIRE(standby->controller().wait_idle(std::chrono::seconds(30), std::chrono::milliseconds(300)));
  auto standby_stats = standby->controller().stats();
  CHECK_FALSE(standby_stats.writer.leader);
  CHECK(standby_stats.writer.writes == 0);
  CHECK(standby_stats.writer.status_writes == 0);
  CHECK(holder() == "first");
  // The leader dies without releasing the lease.
  f.stop_operator();
  auto started = std::chrono::steady_clock::now();
  while (holder() != "second" && std::chrono::steady_clock::now() - started < std::chrono::seconds(10))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto took = std::chrono::steady_clock::now() - started;
  REQUIRE(holder() == "second");
  // Lease duration plus one retry period (the standby must first observe the record).
  CHECK(took <= std::chrono::milliseconds(2000 + 200 + 500));
  // The new leader writes: a change is applied.
  f.apply_yaml("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels: {monitoring: enabled}\n");
  REQUIRE(standby->controller().wait_idle(std::chrono::seconds(30), std::chrono::milliseconds(300)));
  CHECK(standby->controller().stats().writer.leader);
  CHECK(standby->controller().stats().writer.writes > 0);
  CHECK(f.divergence().empty());
}

TEST_CASE("a leader that stops hands the Lease back and a standby takes over within a retry period", "[e2e][leader]") {
  OperatorFixture f({.start_operator = false});
  auto options = [](const std::string& identity) {
    actors::ControllerOptions co;
    co.root.debounce = std::chrono::milliseconds(20);
    co.writer.now_rfc3339 = [] { return std::string("2024-05-01T12:00:00Z"); };
    actors::core::LeaderConfig lc;
    lc.identity = identity;
    lc.lease_duration = std::chrono::milliseconds(15000);  // a crash would cost 15 s
    lc.renew_deadline = std::chrono::milliseconds(10000);
    lc.retry_period = std::chrono::milliseconds(200);
    co.leader = lc;
    co.leader_label = actors::LeaderLabelConfig{nullptr, "default", identity, kLeaderLabel};
    return co;
  };
  // The replicas' Pods, and one a dead leader left labelled.
  for (const char* pod : {"first", "second", "third"})
    f.apply_yaml(std::string("apiVersion: v1\nkind: Pod\nmetadata:\n  name: ") + pod +
                 "\n  namespace: default\n  labels: {app: agent-operator" +
                 (pod == std::string("third") ? std::string(", ") + kLeaderLabel + ": \"true\"" : "") +
                 "}\nspec:\n  containers: [{name: operator, image: agent-operator}]\n");
  f.start_operator(options("first"));
  auto spec = [&](const char* field) {
    auto lease = f.get("Lease", "default", "agent-operator-leader");
    const model::Value* v = lease ? lease->find("spec")->find(field) : nullptr;
    return v ? model::to_json(*v) : std::string();
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (spec("holderIdentity") != "\"first\"" && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(spec("holderIdentity") == "\"first\"");
  CHECK(testutil::eventually([&] { return labelled_pods(f) == std::vector<std::string>{"first"}; }));
  CHECK(f.controller().leading());
  auto standby = f.start_instance(options("second"));
  REQUIRE(f.wait_idle());
  // A status the standby learns of only from the GrafanaAgent's events (a
  // new count, written by the leader after the standby rendered it).
  f.apply_yaml(R"(apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: late, namespace: shop, labels: {instance: primary}}
spec:
  selector: {matchLabels: {app: late}}
  endpoints: [{port: web}]
)");
  REQUIRE(f.wait_idle());
  REQUIRE(standby->controller().wait_idle(std::chrono::seconds(30), std::chrono::milliseconds(300)));
  auto started = std::chrono::steady_clock::now();
  f.stop_operator();
  // Released before stop() returned: no holder, a one-second duration.
  std::string released = spec("holderIdentity");
  CHECK((released == "\"\"" || released == "\"second\""));
  while (spec("holderIdentity") != "\"second\"" &&
         std::chrono::steady_clock::now() - started < std::chrono::seconds(20))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto took = std::chrono::steady_clock::now() - started;
  REQUIRE(spec("holderIdentity") == "\"second\"");
  CHECK(took <= std::chrono::milliseconds(200 + 800));
  CHECK(spec("leaseDurationSeconds") == "15");  // the new holder writes its own duration
  REQUIRE(standby->controller().wait_idle(std::chrono::seconds(30), std::chrono::milliseconds(300)));
  // Nothing changed since the old leader's last write: not even its status is written again.
  CHECK(standby->controller().stats().writer.writes == 0);
  CHECK(standby->controller().stats().writer.status_writes == 0);
  // The Service of the targets endpoint now selects the new leader alone.
  CHECK(standby->controller().leading());
  CHECK(testutil::eventually([&] { return labelled_pods(f) == std::vector<std::string>{"second"}; }));
  f.apply_yaml("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels: {monitoring: disabled}\n");
  REQUIRE(standby->controller().wait_idle(std::chrono::seconds(30), std::chrono::milliseconds(300)));
  CHECK(standby->controller().stats().writer.leader);
  CHECK(f.divergence().empty());
}

// The binary as deployed: the Lease goes to $POD_NAMESPACE (the deploy RBAC
// grants Leases only there), and SIGTERM hands it back.
TEST_CASE("agent-operator run leads in $POD_NAMESPACE and releases the Lease on SIGTERM", "[e2e][leader]") {
  OperatorFixture f({.start_operator = false});
  f.apply_yaml("apiVersion: v1\nkind: Namespace\nmetadata: {name: ops}\n");
  char dir[] = "/tmp/ao-lease-XXXXXX";
  REQUIRE(mkdtemp(dir));
  std::string kc = std::string(dir) + "/kubeconfig";
  std::ofstream(kc) << f.server().kubeconfig();
  ::setenv("POD_NAMESPACE", "ops", 1);
  k8s::sim::Child op({std::string(AO_BIN_DIR) + "/agent-operator", "run", "--listen=0", "--kubeconfig", kc,
                      "--leader-elect", "--lease-duration", "15s", "--renew-deadline", "10s", "--retry-period",
                      "200ms"});
  ::unsetenv("POD_NAMESPACE");
  auto holder = [&](const std::string& ns) {
    auto lease = f.get("Lease", ns, "agent-operator-leader");
    const model::Value* h = lease ? lease->find("spec")->find("holderIdentity") : nullptr;
    return h && h->is_string() ? std::optional<std::string>(h->as_string()) : std::nullopt;
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!(holder("ops") && !holder("ops")->empty()) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(holder("ops"));
  CHECK_FALSE(holder("ops")->empty());
  CHECK_FALSE(holder("default"));
  CHECK(op.terminate() == 0);
  CHECK(holder("ops") == std::optional<std::string>(""));
  std::filesystem::remove_all(dir);
}

namespace {

// resourceVersion of every owned object, the GrafanaAgents and the Events:
// any write by anyone changes it.
std::map<std::string, std::string> write_marks(OperatorFixture& f) {
  std::map<std::string, std::string> out;
  auto add = [&](const model::Value& o) {
    const model::Value* md = o.find("metadata");
    out[o.find("kind")->as_string() + " " + md->find("namespace")->as_string() + "/" + md->find("name")->as_string()] =
        md->find("resourceVersion")->as_string();
  };
  for (const auto& o : f.owned()) add(o);
  for (const auto& o : f.list("GrafanaAgent")) add(o);
  for (const auto& o : f.list("Event")) add(o);
  return out;
}

}  // namespace

// A leader frozen past its lease (SIGSTOP) wakes up with watch events and
// timers queued. It must not write, not even once, before it notices.
TEST_CASE("a leader paused past its lease makes no write after it resumes", "[e2e][leader]") {
  OperatorFixture f({.start_operator = false});
  char dir[] = "/tmp/ao-pause-XXXXXX";
  REQUIRE(mkdtemp(dir));
  std::string kc = std::string(dir) + "/kubeconfig";
  std::ofstream(kc) << f.server().kubeconfig();
  k8s::sim::Child paused({"sh", "-c",
                          "exec " + std::string(AO_BIN_DIR) + "/agent-operator run --kubeconfig " + kc +
                              " --leader-elect --lease-duration 3s --renew-deadline 2s --retry-period 200ms 2>&1"});
  auto holder = [&] {
    auto lease = f.get("Lease", "default", "agent-operator-leader");
    const model::Value* h = lease ? lease->find("spec")->find("holderIdentity") : nullptr;
    return h && h->is_string() ? h->as_string() : std::string();
  };
  using testutil::eventually;
  REQUIRE(eventually([&] { return !holder().empty() && f.divergence().empty(); }));
  actors::ControllerOptions co;
  co.root.debounce = std::chrono::milliseconds(20);
  actors::core::LeaderConfig lc;
  lc.identity = "standby";
  lc.lease_duration = std::chrono::milliseconds(3000);
  lc.renew_deadline = std::chrono::milliseconds(2000);
  lc.retry_period = std::chrono::milliseconds(200);
  co.leader = lc;
  f.start_operator(co);
  REQUIRE(::kill(paused.pid(), SIGSTOP) == 0);
  REQUIRE(eventually([&] { return holder() == "standby"; }, std::chrono::seconds(10)));
  // While the old leader sleeps the cluster changes and the new one writes.
  f.apply_yaml("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels: {monitoring: disabled}\n");
  REQUIRE(f.wait_converged(std::chrono::seconds(30)));
  auto before = write_marks(f);
  REQUIRE(::kill(paused.pid(), SIGCONT) == 0);
  bool stood_down = paused.read_until(
      [](const std::string& out) {
        return out.find("not writing: the Lease") != std::string::npos ||
               out.find("lost leadership") != std::string::npos;
      },
      std::chrono::seconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // room for a stale write to land
  paused.read_until([](const std::string&) { return false; }, std::chrono::milliseconds(100));
  INFO(paused.output());
  CHECK(stood_down);
  CHECK(write_marks(f) == before);
  CHECK(holder() == "standby");
  CHECK(f.divergence().empty());
  std::filesystem::remove_all(dir);
}
