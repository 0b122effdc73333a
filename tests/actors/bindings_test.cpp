// Per-monitor status (issue 19): one root's scenario_verdicts from its hierarchy
// and problems, the merge across roots, the patch plan (other controllers'
// entries kept, nothing written when nothing changed, lastTransitionTime
// kept), and whether an installed CRD admits our entries.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "actors/core/bindings.hpp"
#include "actors/core/pipeline.hpp"
#include "actors_fixtures.hpp"
#include "model/object_fields.hpp"
#include "model/yaml_emit.hpp"

using namespace actors::core;
using actors_test::doc;
using actors_test::kAlpha;
using actors_test::kBeta;
using model::Value;

namespace {

const MonitorId kWebA{"ServiceMonitor", {"app1", "web-a"}}, kWebB{"ServiceMonitor", {"app2", "web-b"}},
    kDb{"ServiceMonitor", {"app1", "db"}};

// Every agent's scenario_verdicts over the scenario, optionally without the Secret
// web-a's bearer token reads.
std::map<RootKey, RootBindings> scenario_verdicts(bool with_secret) {
  model::Inventory inv;
  for (const Value& d : actors_test::docs(actors_test::kScenario))
    if (with_secret || model::meta_string(d, "name") != "token") inv.add(d);
  std::map<RootKey, RootBindings> out;
  for (const auto& [key, entry] : inv.agents) {
    model::Hierarchy h = model::build_hierarchy(inv, entry.obj);
    model::AgentRender r = model::render_agent(inv, entry.obj, {});
    out[key] = root_bindings(h, r.problems, {});
  }
  return out;
}

const MonitorBinding* find_verdict(const RootBindings& rb, const MonitorId& id) {
  for (const auto& b : rb)
    if (b.monitor == id) return &b;
  return nullptr;
}

Value foreign_binding() {
  return doc(R"(
group: monitoring.coreos.com
resource: prometheuses
namespace: monitoring
name: k8s
conditions: [{type: Accepted, status: "True", lastTransitionTime: "2024-01-01T00:00:00Z", observedGeneration: 1}]
)");
}

ObservedMonitor observed_with(Value bindings, std::int64_t generation = 3) {
  return ObservedMonitor{"42", generation, std::move(bindings)};
}

std::string yaml_of_value(const Value& v) {
  return model::to_yaml(v);
}

}  // namespace

TEST_CASE("a root's scenario_verdicts: the monitors its instances select, accepted, naming the instances",
          "[actors][bindings]") {
  auto all = scenario_verdicts(true);
  REQUIRE(all[kAlpha].size() == 1);  // web-b's namespace is not monitored=yes; db is team db
  CHECK(all[kAlpha][0] == MonitorBinding{kWebA, true, "selected by MetricsInstance mon/alpha-mi"});
  REQUIRE(all[kBeta].size() == 2);
  CHECK(find_verdict(all[kBeta], kWebA)->accepted);
  CHECK(find_verdict(all[kBeta], kWebB)->message == "selected by MetricsInstance mon/beta-mi");
  CHECK_FALSE(find_verdict(all[kBeta], kDb));
}

TEST_CASE("a monitor the render leaves out is rejected with its problem, in every root", "[actors][bindings]") {
  auto all = scenario_verdicts(false);
  for (const RootKey& root : {kAlpha, kBeta}) {
    const MonitorBinding* b = find_verdict(all[root], kWebA);
    REQUIRE(b);
    CHECK_FALSE(b->accepted);
    CHECK(b->message.find("left out of the config: ") == 0);
    CHECK(b->message.find("token") != std::string::npos);  // names the missing Secret
  }
  CHECK(find_verdict(all[kBeta], kWebB)->accepted);  // the other monitor is unaffected
}

TEST_CASE("an undecodable monitor routed to a root is rejected, and warnings do not reject", "[actors][bindings]") {
  model::Hierarchy empty;
  std::vector<model::Problem> problems = {
      {"ServiceMonitor", "app1", "bad", "spec.endpoints[0].interval", "not a duration"},
      {"ServiceMonitor", "app1", "other", "spec.x", "ignored", true}};
  RootBindings rb = root_bindings(empty, problems, {{"ServiceMonitor", {"app1", "bad"}}});
  REQUIRE(rb.size() == 1);
  CHECK_FALSE(rb[0].accepted);
  CHECK(rb[0].message == "left out of the config: spec.endpoints[0].interval: not a duration");
}

TEST_CASE("merged entries: one per agent, sorted, in prometheus-operator's shape", "[actors][bindings]") {
  auto all = scenario_verdicts(true);
  std::map<RootKey, const MonitorBinding*> v{{kBeta, find_verdict(all[kBeta], kWebA)},
                                             {kAlpha, find_verdict(all[kAlpha], kWebA)}};
  Value ours = merged_entries(v, observed_with(Value()), {}, "2024-05-01T12:00:00Z");
  CHECK(yaml_of_value(ours) == R"(- conditions:
  - lastTransitionTime: 2024-05-01T12:00:00Z
    message: selected by MetricsInstance mon/alpha-mi
    observedGeneration: 3
    status: 'True'
    type: Accepted
  group: monitoring.grafana.com
  name: alpha
  namespace: mon
  resource: grafanaagents
- conditions:
  - lastTransitionTime: 2024-05-01T12:00:00Z
    message: selected by MetricsInstance mon/beta-mi
    observedGeneration: 3
    status: 'True'
    type: Accepted
  group: monitoring.grafana.com
  name: beta
  namespace: mon
  resource: grafanaagents
)");
  auto rejected = scenario_verdicts(false);
  Value r = merged_entries({{kAlpha, find_verdict(rejected[kAlpha], kWebA)}}, observed_with(Value()), {}, "t1");
  const Value& cond = r.as_array()[0].find("conditions")->as_array()[0];
  CHECK(model::string_at(cond, {"status"}) == "False");
  CHECK(model::string_at(cond, {"reason"}) == kRejectedReason);
}

TEST_CASE("the plan keeps other controllers' entries and writes nothing when ours are unchanged",
          "[actors][bindings]") {
  auto all = scenario_verdicts(true);
  std::map<RootKey, const MonitorBinding*> v{{kAlpha, find_verdict(all[kAlpha], kWebA)}};
  ObservedMonitor before = observed_with(Value::arr({foreign_binding()}));
  Value ours = merged_entries(v, before, {}, "t1");
  std::optional<Value> patch = plan_bindings(before, ours);
  REQUIRE(patch);
  CHECK(model::string_at(*patch, {"metadata", "resourceVersion"}) == "42");
  const Value& list = *model::find_path(*patch, {"status", "bindings"});
  REQUIRE(list.size() == 2);
  CHECK(list.as_array()[0] == foreign_binding());  // first, as read
  CHECK(our_entry(list.as_array()[1]));

  // Read back (with another order of keys, as a server may return them):
  // same verdict, a later clock, no write; the transition time stays.
  ObservedMonitor after = observed_with(model::parse_json(model::to_json(list)));
  Value again = merged_entries(v, after, {}, "t2");
  CHECK_FALSE(plan_bindings(after, again));
  CHECK(model::to_json(again).find("t1") != std::string::npos);

  // A new generation updates observedGeneration but not the transition time.
  ObservedMonitor edited = observed_with(after.bindings, 4);
  Value gen4 = merged_entries(v, edited, {}, "t3");
  REQUIRE(plan_bindings(edited, gen4));
  CHECK(model::to_json(gen4).find("\"lastTransitionTime\":\"t1\"") != std::string::npos);
  CHECK(model::to_json(gen4).find("\"observedGeneration\":4") != std::string::npos);

  // Rejected: the status flips, so the transition time is the new one.
  auto rejected = scenario_verdicts(false);
  Value flipped = merged_entries({{kAlpha, find_verdict(rejected[kAlpha], kWebA)}}, after, {}, "t4");
  CHECK(model::to_json(flipped).find("\"lastTransitionTime\":\"t4\"") != std::string::npos);
}

TEST_CASE("an unselected monitor loses our entry and keeps the others", "[actors][bindings]") {
  auto all = scenario_verdicts(true);
  ObservedMonitor read = observed_with(Value::arr({foreign_binding()}));
  Value ours = merged_entries({{kAlpha, find_verdict(all[kAlpha], kWebA)}}, read, {}, "t1");
  read.bindings = *model::find_path(*plan_bindings(read, ours), {"status", "bindings"});
  Value none = merged_entries({}, read, {}, "t2");
  std::optional<Value> patch = plan_bindings(read, none);
  REQUIRE(patch);
  CHECK(*model::find_path(*patch, {"status", "bindings"}) == Value::arr({foreign_binding()}));
  // An agent that has not rendered yet keeps its entry as read.
  CHECK_FALSE(plan_bindings(read, merged_entries({}, read, {kAlpha}, "t2")));
  // No entries of ours before or after: nothing to write.
  CHECK_FALSE(plan_bindings(observed_with(Value()), Value::array()));
}

TEST_CASE("prometheus-operator's CRDs do not admit our entries, and a CRD that does is used", "[actors][bindings]") {
  std::ifstream in("deploy/prometheus-operator-crds/monitoring.coreos.com_servicemonitors.yaml");
  std::stringstream text;
  text << in.rdbuf();
  Value crd = actors_test::doc(text.str());
  CrdAdmission upstream = crd_admits_bindings(crd, "v1");
  CHECK_FALSE(upstream.admitted);
  CHECK(upstream.reason.find("group") != std::string::npos);
  CHECK_FALSE(crd_admits_bindings(crd, "v2").admitted);

  // The same CRD with our group and resource added to its enums.
  Value* item = const_cast<Value*>(model::find_path(
      crd.find("spec")->find("versions")->as_array()[0],
      {"schema", "openAPIV3Schema", "properties", "status", "properties", "bindings", "items", "properties"}));
  REQUIRE(item);
  item->find("group")->find("enum")->push(kBindingGroup);
  CHECK(crd_admits_bindings(crd, "v1").reason.find("resource") != std::string::npos);
  item->find("resource")->find("enum")->push(kBindingResource);
  CHECK(crd_admits_bindings(crd, "v1").admitted);
  crd.find("spec")->find("versions")->as_array()[0].erase("subresources");
  CHECK(crd_admits_bindings(crd, "v1").reason == "the CRD has no status subresource");
}

TEST_CASE("our IntegrationMonitor CRD admits our entries", "[actors][bindings]") {
  std::ifstream in("deploy/crds/monitoring.grafana.com_integrationmonitors.yaml");
  std::stringstream text;
  text << in.rdbuf();
  Value crd;
  for (Value& d : actors_test::docs(text.str()))
    if (d.is_object() && model::string_at(d, {"kind"}) == "CustomResourceDefinition") crd = std::move(d);
  REQUIRE(crd.is_object());
  CrdAdmission ours = crd_admits_bindings(crd, "v1alpha1");
  INFO(ours.reason);
  CHECK(ours.admitted);
  // It is the schema that admits them: without the status subresource, or
  // with bindings dropped from the status schema, it would not.
  Value& version = crd.find("spec")->find("versions")->as_array()[0];
  Value* status_props = const_cast<Value*>(
      model::find_path(version, {"schema", "openAPIV3Schema", "properties", "status", "properties"}));
  REQUIRE(status_props);
  Value no_subresource = crd;
  status_props->erase("bindings");
  CHECK(crd_admits_bindings(crd, "v1alpha1").reason.find("no bindings") != std::string::npos);
  no_subresource.find("spec")->find("versions")->as_array()[0].erase("subresources");
  CHECK(crd_admits_bindings(no_subresource, "v1alpha1").reason == "the CRD has no status subresource");
}

// What replay --bindings prints: the Pipeline keeps each root's verdicts
// from its last valid render, as the live writer merges them.
TEST_CASE("the replay pipeline keeps every root's verdicts and drops a deleted root's", "[actors][bindings]") {
  actors_test::Cluster c;
  c.apply_yaml(actors_test::kScenario);
  Pipeline p;
  for (const auto& e : c.events()) p.feed(e);
  p.settle();
  CHECK(p.bindings() == scenario_verdicts(true));
  // An invalid edit of beta keeps its last verdicts, as the writer does.
  p.feed(c.add(doc(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: beta, namespace: mon, uid: uid-beta}
spec: {metrics: {shards: "three"}}
)"),
               EventType::modified));
  p.settle();
  CHECK(p.bindings() == scenario_verdicts(true));
  p.feed(c.add(doc("{apiVersion: monitoring.grafana.com/v1alpha1, kind: GrafanaAgent, "
                   "metadata: {name: beta, namespace: mon, uid: uid-beta}}"),
               EventType::deleted));
  p.settle();
  REQUIRE(p.bindings().size() == 1);
  CHECK(p.bindings().begin()->first == kAlpha);
}
