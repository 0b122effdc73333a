// The controller end to end against simcluster: each case changes the
// cluster and checks the operator converged to what render_all wants.
#include <catch2/catch.hpp>

#include <thread>

#include "actors/core/writer_plan.hpp"
#include "e2e_checks.hpp"
#include "model/codec.hpp"
#include "model/parse.hpp"
#include "model/size_limits.hpp"
#include "model/yaml_emit.hpp"

using e2e::OperatorFixture;
using e2e::require_converged;

namespace {

std::string secret_data(OperatorFixture& f, const std::string& ns, const std::string& name) {
  auto s = f.get("Secret", ns, name);
  REQUIRE(s.has_value());
  const model::Value* d = s->find("data");
  return d ? model::to_json(*d) : "";
}

std::size_t count_kind(OperatorFixture& f, const std::string& kind) {
  std::size_t n = 0;
  for (const auto& o : f.owned())
    if (o.find("kind")->as_string() == kind) ++n;
  return n;
}

std::string agent_yaml(const std::string& ns, const std::string& name, int shards) {
  return "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata:\n  name: " + name +
         "\n  namespace: " + ns +
         "\nspec:\n  serviceAccountName: grafana-agent\n  metrics:\n    shards: " + std::to_string(shards) +
         "\n    instanceSelector:\n      matchLabels: {agent: grafana-agent}\n";
}

const char* kRotatedCredentials = R"(apiVersion: v1
kind: Secret
metadata: {name: remote-write-credentials, namespace: monitoring}
stringData: {username: "123456", password: rotated-password}
)";

const char* kCheckoutMonitor = R"(apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: checkout
  namespace: shop
  labels: {instance: primary}
spec:
  jobLabel: app.kubernetes.io/name
  selector:
    matchLabels: {app.kubernetes.io/name: checkout}
  endpoints:
  - port: http-metrics
    interval: 45s
)";

}  // namespace

TEST_CASE("a hierarchy appears and every object it renders is created", "[e2e]") {
  OperatorFixture f;
  require_converged(f);
  auto expected = f.expected();
  REQUIRE(expected.size() >= 5);
  CHECK(f.owned().size() == expected.size());
  CHECK(count_kind(f, "StatefulSet") == 2);  // two shards
  auto ga = f.get("GrafanaAgent", "monitoring", "grafana-agent");
  REQUIRE(ga);
  const model::Value* rec = e2e::condition(*ga, "Reconciled");
  REQUIRE(rec);
  CHECK(rec->find("status")->as_string() == "True");
  CHECK(ga->find("status")->find("counts")->find("serviceMonitors")->as_int() == 1);
}

TEST_CASE("a ServiceMonitor edit updates the config Secret", "[e2e]") {
  OperatorFixture f;
  require_converged(f);
  std::string before = secret_data(f, "monitoring", "grafana-agent-config");
  f.apply_yaml(kCheckoutMonitor);
  require_converged(f);
  CHECK(secret_data(f, "monitoring", "grafana-agent-config") != before);
}

TEST_CASE("a Secret rotation updates the assets Secret", "[e2e]") {
  OperatorFixture f;
  require_converged(f);
  std::string assets = "grafana-agent-secrets";  // upstream's name for the assets Secret
  std::string before = secret_data(f, "monitoring", assets);
  f.apply_yaml(kRotatedCredentials);
  require_converged(f);
  CHECK(secret_data(f, "monitoring", assets) != before);
}

TEST_CASE("a Namespace relabel moves monitors in and out", "[e2e]") {
  OperatorFixture f;
  require_converged(f);
  auto ga = [&] { return f.get("GrafanaAgent", "monitoring", "grafana-agent"); };
  auto monitors = [&] { return ga()->find("status")->find("counts")->find("serviceMonitors")->as_int(); };
  CHECK(monitors() == 1);
  f.apply_yaml("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels: {monitoring: disabled}\n");
  require_converged(f);
  CHECK(monitors() == 0);
  f.apply_yaml("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels: {monitoring: enabled}\n");
  require_converged(f);
  CHECK(monitors() == 1);
}

TEST_CASE("two GrafanaAgents share one monitor", "[e2e]") {
  OperatorFixture f;
  f.apply_yaml(agent_yaml("monitoring", "second", 1));
  require_converged(f);
  std::string first = secret_data(f, "monitoring", "grafana-agent-config");
  std::string second = secret_data(f, "monitoring", "second-config");
  f.apply_yaml(kCheckoutMonitor);
  require_converged(f);
  CHECK(secret_data(f, "monitoring", "grafana-agent-config") != first);
  CHECK(secret_data(f, "monitoring", "second-config") != second);
}

TEST_CASE("deleting a GrafanaAgent garbage-collects everything it owned", "[e2e]") {
  OperatorFixture f;
  require_converged(f);
  REQUIRE_FALSE(f.owned().empty());
  f.remove("GrafanaAgent", "monitoring", "grafana-agent");
  require_converged(f);
  CHECK(f.owned().empty());
}

TEST_CASE("going from 3 shards to 1 deletes two StatefulSets", "[e2e]") {
  OperatorFixture f({.load_examples = false});
  f.apply_yaml("apiVersion: v1\nkind: Namespace\nmetadata: {name: monitoring}\n");
  f.apply_yaml(R"(apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: monitoring, labels: {agent: grafana-agent}}
spec: {}
)");
  f.apply_yaml(agent_yaml("monitoring", "sharded", 3));
  require_converged(f);
  CHECK(count_kind(f, "StatefulSet") == 3);
  f.apply_yaml(agent_yaml("monitoring", "sharded", 1));
  require_converged(f);
  CHECK(count_kind(f, "StatefulSet") == 1);
}

TEST_CASE("a restarted operator makes no writes when nothing changed", "[e2e]") {
  OperatorFixture f;
  require_converged(f);
  REQUIRE(f.controller().stats().writer.writes > 0);
  f.start_operator();
  require_converged(f);
  auto s = f.controller().stats();
  for (const auto& l : f.log()) UNSCOPED_INFO("log: " << l);
  CHECK(s.writer.writes == 0);
  CHECK(s.writer.status_writes == 0);
  CHECK(s.writer.skipped > 0);
}

// The hash annotation survives tampering; the restarted operator must
// still see that our fields changed.
TEST_CASE("drift made while the operator was down is repaired after a restart", "[e2e][drift]") {
  OperatorFixture f;
  require_converged(f);
  f.stop_operator();
  std::vector<std::string> warnings;
  auto patch = [&](const std::string& kind, const std::string& name, const std::string& json) {
    f.cluster().patch(f.type(kind), "monitoring", name, k8s::sim::PatchType::merge, model::parse_json(json),
                      k8s::sim::Subresource::main, {}, warnings);
  };
  auto sts = f.get("StatefulSet", "monitoring", "grafana-agent");
  REQUIRE(sts);
  model::Value tampered = *sts->find("spec")->find("template")->find("spec")->find("containers");
  tampered.as_array()[0].set("image", "example.com/evil:1");
  patch("Secret", "grafana-agent-config", R"({"data":{"agent.yml":"aGFja2Vk"}})");
  patch("StatefulSet", "grafana-agent",
        R"({"spec":{"replicas":5,"template":{"spec":{"containers":)" + model::to_json(tampered) + "}}}}");
  f.start_operator();
  require_converged(f);
  auto secret = f.get("Secret", "monitoring", "grafana-agent-config");
  auto sts_after = f.get("StatefulSet", "monitoring", "grafana-agent");
  REQUIRE(secret);
  REQUIRE(sts_after);
  CHECK(secret->find("data")->find("agent.yml")->as_string() != "aGFja2Vk");
  CHECK(sts_after->find("spec")->find("replicas")->as_int() == 1);
  CHECK(
      sts_after->find("spec")
          ->find("template")
          ->find("spec")
          ->find("containers")
          ->as_array()[0]
          .find("image")
          ->as_string() ==
      sts->find("spec")->find("template")->find("spec")->find("containers")->as_array()[0].find("image")->as_string());
  CHECK(f.controller().stats().writer.writes == 2);  // exactly the two tampered objects
  std::size_t drift_lines = 0;
  for (const auto& l : f.log()) drift_lines += l.find(" reason=\"drift: ") != std::string::npos;
  CHECK(drift_lines == 2);
}

namespace {

std::string agent_yml(OperatorFixture& f) {
  auto secret = f.get("Secret", "monitoring", "grafana-agent-config");
  REQUIRE(secret);
  auto text = model::config_text(*secret);
  REQUIRE(text);
  return *text;
}

}  // namespace

// Issue 13: deleting and re-creating a remote-write Secret rewrote the
// running config without its instance until the Secret came back.
TEST_CASE("a delete-and-recreate Secret rotation changes nothing but the rotated value", "[e2e][grace]") {
  OperatorFixture f;
  require_converged(f);
  // The password reaches the pods through the assets Secret.
  auto assets = [&] {
    auto secret = f.get("Secret", "monitoring", "grafana-agent-secrets");
    REQUIRE(secret);
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : secret->find("data")->as_object()) out[k] = *model::base64_decode(v.as_string());
    return out;
  };
  std::string config = agent_yml(f);
  auto before = assets();
  auto password = std::find_if(before.begin(), before.end(),
                               [](const auto& kv) { return kv.second == "example-password-not-real"; });
  REQUIRE(password != before.end());
  auto writes = f.controller().stats().writer.writes;
  f.remove("Secret", "monitoring", "remote-write-credentials");
  REQUIRE(f.wait_idle());
  CHECK(agent_yml(f) == config);  // the instance keeps its jobs meanwhile
  CHECK(assets() == before);
  auto agent = f.get("GrafanaAgent", "monitoring", "grafana-agent");
  REQUIRE(agent);
  CHECK(model::to_json(*agent->find("status")).find("remote-write-credentials") != std::string::npos);
  f.apply_yaml(kRotatedCredentials);
  require_converged(f);
  auto expected = before;
  expected[password->first] = "rotated-password";
  CHECK(agent_yml(f) == config);
  CHECK(assets() == expected);
  CHECK(f.controller().stats().writer.writes == writes + 1);  // the assets Secret, once
  auto fixed = f.get("GrafanaAgent", "monitoring", "grafana-agent");
  CHECK(fixed->find("status")->find("problems") == nullptr);
}

TEST_CASE("after the grace period a deleted Secret's members are dropped", "[e2e][grace]") {
  OperatorFixture f({.start_operator = false});
  actors::ControllerOptions co;
  co.member_grace = std::chrono::milliseconds(300);
  co.root.debounce = std::chrono::milliseconds(20);
  f.start_operator(co);
  require_converged(f);
  f.remove("Secret", "monitoring", "remote-write-credentials");
  require_converged(f);  // the reference render has no Secret: converged means dropped
  CHECK(agent_yml(f).find("remote_write") == std::string::npos);
}

// The API server would refuse the StatefulSet (pod annotations over 256
// KiB): the operator reports it and never sends it, instead of failing the
// write and retrying it in a loop.
TEST_CASE("an object over the API server's size limits is reported, not written", "[e2e][size]") {
  OperatorFixture f;
  require_converged(f);
  std::string big = agent_yaml("monitoring", "big", 1) + "  podMetadata:\n    annotations: {huge: \"" +
                    std::string(300 * 1024, 'x') + "\"}\n";
  f.apply_yaml(big);
  REQUIRE(f.wait_idle());
  auto errors = f.controller().stats().writer.errors;
  CHECK_FALSE(f.get("StatefulSet", "monitoring", "big"));
  CHECK(f.get("Secret", "monitoring", "big-config"));  // the rest of the agent is applied
  auto agent = f.get("GrafanaAgent", "monitoring", "big");
  REQUIRE(agent);
  std::string status = model::to_json(*agent->find("status"));
  CHECK(status.find("spec.template.metadata.annotations") != std::string::npos);
  CHECK(status.find("above the API server's limit of 262144 bytes") != std::string::npos);
  // Nothing retries: a while later no write has failed.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  REQUIRE(f.wait_idle());
  CHECK(f.controller().stats().writer.errors == errors);
  CHECK(errors == 0);
}

// Every object the operator is about to create already exists (made by
// someone else): each create is a 409, re-read, then an update. More than
// three conflicts in a row once stopped the re-reads and retried a stale
// create forever.
TEST_CASE("a root whose every object already exists converges through repeated conflicts", "[e2e][conflict]") {
  OperatorFixture f;
  require_converged(f);
  f.stop_operator();
  f.apply_yaml(agent_yaml("monitoring", "taken", 1));
  std::size_t taken = 0;
  for (model::Value obj : f.expected()) {
    model::Value* md = obj.find("metadata");
    if (md->find("name")->as_string().rfind("taken", 0) != 0) continue;
    md->erase("ownerReferences");
    md->erase("annotations");
    md->erase("labels");
    f.apply_yaml(model::to_json(obj));
    ++taken;
  }
  REQUIRE(taken >= 4);
  f.start_operator();
  require_converged(f);
  CHECK(f.controller().stats().writer.errors >= taken);  // each create was a conflict first
}

TEST_CASE("an invalid member sets Reconciled False on its root only", "[e2e]") {
  OperatorFixture f;
  f.apply_yaml("apiVersion: v1\nkind: Namespace\nmetadata: {name: other}\n");
  f.apply_yaml(agent_yaml("other", "unaffected", 1));
  require_converged(f);
  f.apply_yaml(R"(apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: broken
  namespace: shop
  labels: {instance: primary}
spec:
  selector:
    matchLabels: {app: broken}
  endpoints:
  - port: http
    relabelings:
    - sourceLabels: [__name__]
      regex: "(unclosed"
      action: drop
)");
  require_converged(f);
  auto bad = f.get("GrafanaAgent", "monitoring", "grafana-agent");
  auto good = f.get("GrafanaAgent", "other", "unaffected");
  const model::Value* bad_rec = e2e::condition(*bad, "Reconciled");
  const model::Value* good_rec = e2e::condition(*good, "Reconciled");
  REQUIRE(bad_rec);
  REQUIRE(good_rec);
  CHECK(bad_rec->find("status")->as_string() == "False");
  CHECK(bad_rec->find("reason")->as_string() == "InvalidMembers");
  CHECK(model::to_json(*bad->find("status")->find("problems")).find("broken") != std::string::npos);
  CHECK(good_rec->find("status")->as_string() == "True");
  // The problem is also reported as a Kubernetes Event on the agent.
  bool event = false;
  for (const auto& e : f.list("Event", "monitoring")) event |= e.find("reason")->as_string() == "InvalidMembers";
  CHECK(event);
  // Fixed, the problem leaves the status: a merge patch must delete it.
  f.remove("ServiceMonitor", "shop", "broken");
  require_converged(f);
  auto fixed = f.get("GrafanaAgent", "monitoring", "grafana-agent");
  const model::Value* fixed_rec = e2e::condition(*fixed, "Reconciled");
  REQUIRE(fixed_rec);
  CHECK(fixed_rec->find("status")->as_string() == "True");
  CHECK(fixed->find("status")->find("problems") == nullptr);
}

TEST_CASE("drift on owned objects is corrected", "[e2e][drift]") {
  OperatorFixture f;
  require_converged(f);
  // Someone scales a shard by hand: the operator writes its spec back.
  std::vector<std::string> warnings;
  f.cluster().patch(f.type("StatefulSet"), "monitoring", "grafana-agent", k8s::sim::PatchType::merge,
                    model::parse_json(R"({"spec":{"replicas":7}})"), k8s::sim::Subresource::main, {}, warnings);
  // Someone deletes the config Secret: the operator re-creates it.
  f.remove("Secret", "monitoring", "grafana-agent-config");
  require_converged(f);
  auto sts = f.get("StatefulSet", "monitoring", "grafana-agent");
  REQUIRE(sts);
  CHECK(sts->find("spec")->find("replicas")->as_int() == 1);
  CHECK(f.get("Secret", "monitoring", "grafana-agent-config").has_value());
  // Fields others add (here an annotation) are not drift: no write follows.
  auto writes = f.controller().stats().writer.writes;
  f.cluster().patch(f.type("StatefulSet"), "monitoring", "grafana-agent", k8s::sim::PatchType::merge,
                    model::parse_json(R"({"metadata":{"annotations":{"example.com/touched":"yes"}}})"),
                    k8s::sim::Subresource::main, {}, warnings);
  require_converged(f);
  CHECK(f.controller().stats().writer.writes == writes);
}
