// Objects the API server would refuse as too large are never written: the
// root reports them, keeps the last good version, or holds the cluster's.
#include <catch2/catch.hpp>

#include <random>

#include "actors/core/pipeline.hpp"
#include "actors/core/writer_plan.hpp"
#include "actors_fixtures.hpp"
#include "model/codec.hpp"
#include "model/size_limits.hpp"

using namespace actors::core;
using actors_test::doc;

namespace {

using actors_test::kAlpha;

std::string agent_yaml(std::size_t annotation_bytes) {
  return R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: alpha, namespace: mon, uid: uid-alpha}
spec:
  podMetadata: {annotations: {big: ")" +
         std::string(annotation_bytes, 'a') + R"("}}
  metrics: {shards: 1, instanceSelector: {matchLabels: {agent: alpha}}}
)";
}

RootState settled_alpha(const std::string& agent) {
  actors_test::Cluster c;
  c.apply_yaml(actors_test::kScenario);
  c.apply_yaml(agent, EventType::modified);
  Pipeline p;
  for (const auto& e : c.events()) p.feed(e);
  p.settle();
  return p.roots().at(kAlpha);
}

void update_agent(RootState& s, const std::string& agent) {
  apply(s, make_event(s.last_seq + 1, 0, EventType::modified, doc(agent)), Delivery::dirty);
}

const model::Value* find_kind(const std::vector<model::Value>& objs, const std::string& kind) {
  for (const auto& o : objs)
    if (o.find("kind")->as_string() == kind) return &o;
  return nullptr;
}

}  // namespace

TEST_CASE("an object over the annotation limit keeps its last good version", "[actors][size]") {
  RootState s = settled_alpha(agent_yaml(10));
  const model::Value good = *find_kind(*s.desired, "StatefulSet");
  update_agent(s, agent_yaml(300 * 1024));
  Effects fx = reconcile(s, {});
  REQUIRE(fx.rendered);
  CHECK(*find_kind(*fx.desired, "StatefulSet") == good);
  CHECK(fx.held.empty());
  REQUIRE(fx.problems.size() == 1);
  CHECK(fx.problems[0].kind == "StatefulSet");
  CHECK(fx.problems[0].path == "spec.template.metadata.annotations");
  CHECK(fx.problems[0].message.find("above the API server's limit of 262144 bytes; the last good version stays") !=
        std::string::npos);
  // Fixed, the new version is written and the problem is gone.
  update_agent(s, agent_yaml(20));
  fx = reconcile(s, {});
  CHECK(fx.problems.empty());
  CHECK(*find_kind(*fx.desired, "StatefulSet") != good);
}

TEST_CASE("an oversized object without a last good version is held, not pruned", "[actors][size]") {
  RootState s = settled_alpha(agent_yaml(300 * 1024));
  Effects fx = reconcile(s, {});  // a fresh root: the first render is already too large
  update_agent(s, agent_yaml(300 * 1024 + 1));
  fx = reconcile(s, {});
  CHECK_FALSE(find_kind(*fx.desired, "StatefulSet"));
  REQUIRE(fx.held.size() == 1);
  CHECK(std::get<2>(fx.held[0]) == "alpha");
  CHECK(fx.problems[0].message.find("the copy in the cluster is left as it is") != std::string::npos);
  // The planner leaves the cluster's copy alone.
  model::Value in_cluster = doc(R"(
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: alpha
  namespace: mon
  labels: {app.kubernetes.io/managed-by: grafana-agent-operator}
  ownerReferences: [{kind: GrafanaAgent, name: alpha, uid: uid-alpha}]
)");
  std::vector<model::Value> observed{in_cluster};
  Plan held = plan_writes({kAlpha, "uid-alpha", fx.desired.get(), &observed, true, nullptr, &fx.held});
  for (const auto& a : held.actions) CHECK(a.kind != "StatefulSet");
  Plan unheld = plan_writes({kAlpha, "uid-alpha", fx.desired.get(), &observed, true});
  CHECK(std::count_if(unheld.actions.begin(), unheld.actions.end(),
                      [](const Action& a) { return a.type == ActionType::remove; }) == 1);
}

// Incompressible relabel rules make a config Secret above 1 MiB even gzipped.
TEST_CASE("a config Secret over 1 MiB names the members that made it large", "[actors][size]") {
  RootState s = settled_alpha(agent_yaml(1));
  std::mt19937_64 rnd(7);
  std::string rules;
  for (int i = 0; i < 4000; ++i) {
    std::string noise(300, '\0');
    for (auto& ch : noise) ch = static_cast<char>(rnd());
    rules += "    - {targetLabel: l" + std::to_string(i) + ", replacement: '" + model::base64_encode(noise) + "'}\n";
  }
  std::string sm =
      "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\n"
      "metadata: {name: huge, namespace: app1, labels: {team: web}}\n"
      "spec:\n selector: {matchLabels: {app: huge}}\n endpoints:\n - port: http\n   relabelings:\n" +
      rules;
  apply(s, make_event(s.last_seq + 1, 0, EventType::added, doc(sm)), Delivery::dirty);
  Effects fx = reconcile(s, {});
  REQUIRE(fx.rendered);
  REQUIRE(fx.problems.size() == 1);
  const model::Problem& p = fx.problems[0];
  CHECK(p.kind == "Secret");
  CHECK(p.name == "alpha-config");
  CHECK(p.path == "data");
  CHECK(p.message.find("Largest parts of its") != std::string::npos);
  CHECK(p.message.find("MetricsInstance mon/alpha-mi") != std::string::npos);
  CHECK(p.message.find("ServiceMonitor app1/huge") != std::string::npos);
  // The Secret written stays the last good one: without the huge monitor.
  const model::Value* secret = nullptr;
  for (const auto& o : *fx.desired)
    if (o.find("metadata")->find("name")->as_string() == "alpha-config") secret = &o;
  REQUIRE(secret);
  CHECK(model::check_size(*secret) == std::nullopt);
}
