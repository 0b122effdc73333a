#include <algorithm>

#include <catch2/catch.hpp>

#include "actors/core/journal.hpp"
#include "actors/core/journal_file.hpp"
#include "actors/core/pipeline.hpp"
#include "actors/core/redact.hpp"
#include "actors_fixtures.hpp"
#include "model/yaml_emit.hpp"

using namespace actors::core;
using actors_test::doc;
using actors_test::yaml_of;

namespace {

using actors_test::kAlpha;
using actors_test::kBeta;

// The scenario, then edits: a monitor change, a Secret rotation, a relabel,
// a new MetricsInstance, a shard change and a deletion.
actors_test::Cluster scripted_cluster(std::vector<std::uint64_t>& checkpoints) {
  actors_test::Cluster c;
  c.apply_yaml(actors_test::kScenario);
  checkpoints.push_back(c.seq());
  c.apply_yaml(R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web-a, namespace: app1, labels: {team: web}}
spec:
  selector: {matchLabels: {app: web-a}}
  endpoints: [{port: http, interval: 15s, bearerTokenSecret: {name: token, key: t}}]
---
apiVersion: v1
kind: Secret
metadata: {name: token, namespace: app1}
stringData: {t: rotated}
)",
               EventType::modified);
  checkpoints.push_back(c.seq());
  c.apply_yaml("{apiVersion: v1, kind: Namespace, metadata: {name: app2, labels: {monitored: 'yes'}}}",
               EventType::modified);
  c.apply_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: alpha-db, namespace: mon, labels: {agent: alpha}}
spec:
  serviceMonitorSelector: {matchLabels: {team: db}}
  serviceMonitorNamespaceSelector: {}
)");
  checkpoints.push_back(c.seq());
  c.apply_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: alpha, namespace: mon, uid: uid-alpha}
spec:
  metrics: {shards: 1, instanceSelector: {matchLabels: {agent: alpha}}}
)",
               EventType::modified);
  c.add(doc("{apiVersion: monitoring.coreos.com/v1, kind: ServiceMonitor, metadata: {name: web-b, namespace: app2}}"),
        EventType::deleted);
  checkpoints.push_back(c.seq());
  return c;
}

std::string run(const std::vector<Event>& events, bool settle_each) {
  Pipeline p;
  for (const auto& e : events) {
    p.feed(e);
    if (settle_each) p.settle();
  }
  p.settle();
  return yaml_of(p.desired());
}

}  // namespace

TEST_CASE("the same events give byte-identical desired objects", "[actors][root]") {
  std::vector<std::uint64_t> checkpoints;
  actors_test::Cluster c = scripted_cluster(checkpoints);
  std::string once = run(c.events(), false);
  CHECK(once == run(c.events(), false));
  // Level-based: how often roots reconcile in between does not matter.
  CHECK(once == run(c.events(), true));
  CHECK(once == yaml_of(c.reference()));
  CHECK(once.find("web-b") == std::string::npos);  // deleted
}

TEST_CASE("the settled pipeline equals a render over the whole cluster at every checkpoint", "[actors][root]") {
  std::vector<std::uint64_t> checkpoints;
  actors_test::Cluster full = scripted_cluster(checkpoints);
  actors_test::Cluster partial;
  Pipeline p;
  std::size_t next = 0;
  for (const auto& e : full.events()) {
    p.feed(e);
    partial.add(*e.object, e.type);
    if (next < checkpoints.size() && e.seq == checkpoints[next]) {
      p.settle();
      INFO("seq " << e.seq);
      CHECK(yaml_of(p.desired()) == yaml_of(partial.reference()));
      ++next;
    }
  }
  CHECK(next == checkpoints.size());
  // Roots hold only what they select or reference, never the whole cluster.
  const RootState& beta = p.roots().at(kBeta);
  CHECK(beta.inventory.service_monitors.size() == 1);  // web-a (web-b was deleted, db is team=db)
  CHECK(beta.inventory.metrics_instances.size() == 1);
  CHECK(beta.inventory.secrets.size() == 1);
}

TEST_CASE("replaying the journal up to seq N equals the live state at N", "[actors][root][journal]") {
  std::vector<std::uint64_t> checkpoints;
  actors_test::Cluster c = scripted_cluster(checkpoints);
  for (bool include_secrets : {true, false}) {
    JournalHeader header{1, "0.1.0", {{"secrets", include_secrets ? "include" : "redacted"}}};
    MemoryJournal journal(header);
    RedactionPolicy policy;
    policy.include_secrets = include_secrets;
    Pipeline live;
    std::map<std::uint64_t, std::string> live_at;
    std::map<std::uint64_t, std::size_t> live_size;
    for (const auto& e : c.events()) {
      journal.append(encode_event(redact(e, policy)));
      live.feed(e);
      if (std::find(checkpoints.begin(), checkpoints.end(), e.seq) != checkpoints.end()) {
        live.settle();
        live_at[e.seq] = yaml_of(live.desired());
        live_size[e.seq] = live.desired().size();
      }
    }
    for (const auto& [seq, expected] : live_at) {
      JournalContents read = read_journal(journal.text(), seq);
      CHECK(read.events.back().seq == seq);
      std::string replayed = run(read.events, false);
      INFO("seq " << seq << (include_secrets ? " (secrets included)" : " (redacted)"));
      CHECK(replayed == run(read.events, false));
      if (include_secrets) {
        CHECK(replayed == expected);
      } else {
        // web-a's bearer token is inlined into both configs, so a redacted
        // replay renders its placeholder instead: same objects, other bytes.
        CHECK(replayed != expected);
        Pipeline redacted;
        for (const auto& e : read.events) redacted.feed(e);
        redacted.settle();
        CHECK(redacted.desired().size() == live_size.at(seq));
      }
    }
  }
}

TEST_CASE("apply is level-based and ignores metadata-only changes", "[actors][root]") {
  Pipeline p = actors_test::settled_scenario();
  RootState s = p.roots().at(kBeta);
  CHECK_FALSE(s.dirty);
  model::Value mi = doc(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: beta-mi, namespace: mon, labels: {agent: beta}, resourceVersion: "999"}
spec:
  serviceMonitorSelector: {matchLabels: {team: web}}
  serviceMonitorNamespaceSelector: {}
status: {anything: 1}
)");
  s = apply(std::move(s), make_event(50, 0, EventType::resync, mi));
  CHECK_FALSE(s.dirty);
  mi.find("spec")->set("serviceMonitorNamespaceSelector",
                       model::Value::obj({{"matchLabels", model::Value::obj({{"x", "y"}})}}));
  s = apply(std::move(s), make_event(51, 0, EventType::modified, mi));
  CHECK(s.dirty);
  CHECK(s.last_seq == 51);
  Effects fx = reconcile(s, {});
  REQUIRE(fx.subscribe);  // the namespace selector changed: resubscribe before rendering
  CHECK_FALSE(fx.rendered);
  CHECK(s.dirty);
}

TEST_CASE("a root holds monitors and Secrets once, as the inventory's own trees", "[actors][root]") {
  Pipeline p = actors_test::settled_scenario();
  RootState s = p.roots().at(kBeta);
  REQUIRE_FALSE(s.inventory.service_monitors.empty());
  REQUIRE_FALSE(s.inventory.secrets.empty());
  for (const auto& [key, m] : s.inventory.service_monitors) {
    const ObjectId id{"ServiceMonitor", key};
    REQUIRE(held_object(s, id));
    CHECK(*held_object(s, id) == m.tree);
    CHECK_FALSE(s.other_objects.count(id));
  }
  for (const auto& [key, secret] : s.inventory.secrets) CHECK(*held_object(s, {"Secret", key}) == secret.tree);
  // The GrafanaAgent is not one of those kinds: it is kept aside.
  CHECK(s.other_objects.count({"GrafanaAgent", kBeta}));

  // A resync with the same content moves the root to the new tree, and
  // keeps nothing aside.
  const model::Key web_a{"app1", "web-a"};
  model::Value again = **held_object(s, {"ServiceMonitor", web_a});
  again.find("metadata")->set("resourceVersion", "777");
  s = apply(std::move(s), make_event(60, 0, EventType::resync, again));
  const ObjectPtr* now = held_object(s, {"ServiceMonitor", web_a});
  REQUIRE(now);
  CHECK(model::meta_string(**now, "resourceVersion") == "777");
  CHECK(*now == s.inventory.service_monitors.at(web_a).tree);
  CHECK_FALSE(s.other_objects.count({"ServiceMonitor", web_a}));

  // An object without a namespace is the inventory's "default/<name>" (a
  // normalised copy there, so the root keeps what it was given aside), and
  // its deletion finds it under either name.
  model::Value bare = doc(R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: bare, labels: {team: web}, uid: u-bare, resourceVersion: "5"}
spec: {selector: {}, endpoints: [{port: http}]}
)");
  s = apply(std::move(s), make_event(61, 0, EventType::added, bare));
  CHECK(object_id("ServiceMonitor", {"", "bare"}) == ObjectId{"ServiceMonitor", {"default", "bare"}});
  REQUIRE(held_object(s, {"ServiceMonitor", {"default", "bare"}}));
  CHECK(s.inventory.service_monitors.count({"default", "bare"}));
  CHECK(s.other_objects.count({"ServiceMonitor", {"default", "bare"}}));
  s = apply(std::move(s), make_event(62, 0, EventType::deleted, bare));
  CHECK_FALSE(held_object(s, {"ServiceMonitor", {"default", "bare"}}));
  CHECK_FALSE(s.inventory.service_monitors.count({"default", "bare"}));
  CHECK_FALSE(s.other_objects.count({"ServiceMonitor", {"default", "bare"}}));
}

namespace {

// same_content as first written: copy both, strip the noise, compare.
bool stripped_equal(const model::Value& a, const model::Value& b) {
  auto strip = [](model::Value v) {
    v.erase("status");
    if (model::Value* meta = v.find("metadata"))
      for (std::string_view k : {"resourceVersion", "generation", "managedFields"}) meta->erase(k);
    return v;
  };
  return strip(a) == strip(b);
}

// A small object whose members are drawn from `bits`, so pairs of them
// differ in noise, in content, in member order or in shape.
model::Value variant_object(std::uint32_t bits) {
  model::Value meta = model::Value::object();
  if (bits & 1) meta.set("name", "a");
  if (bits & 2) meta.set("resourceVersion", (bits & 4) ? "1" : "2");
  if (bits & 8) meta.set("generation", (bits & 4) ? 1 : 2);
  if (bits & 16) meta.set("labels", model::Value::obj({{"x", (bits & 32) ? "1" : "2"}}));
  model::Value v = model::Value::object();
  if (bits & 64) v.set("status", model::Value::obj({{"s", (bits & 4) ? 1 : 2}}));
  if (bits & 128) v.set("metadata", (bits & 256) ? model::Value("not an object") : std::move(meta));
  if (bits & 512) v.set("spec", model::Value::obj({{"k", (bits & 1024) ? 1 : 2}}));
  if (bits & 2048) v.set("kind", "Secret");
  if (bits & 4096) return model::Value::arr({1});                             // not an object at all
  if (bits & 8192) std::reverse(v.as_object().begin(), v.as_object().end());  // order is not content
  return v;
}

}  // namespace

TEST_CASE("same_content equals comparing copies stripped of noise and status", "[actors][root]") {
  std::uint64_t state = 7;
  auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(state >> 33);
  };
  std::size_t equal = 0;
  for (int i = 0; i < 20000; ++i) {
    std::uint32_t x = next() & 16383, y = (next() & 1) ? x ^ (1u << (next() % 14)) : next() & 16383;
    model::Value a = variant_object(x), b = variant_object(y);
    INFO(model::to_json(a) << " vs " << model::to_json(b));
    REQUIRE(same_content(a, b) == stripped_equal(a, b));
    REQUIRE(same_content(b, a) == stripped_equal(a, b));
    equal += stripped_equal(a, b) ? 1 : 0;
  }
  CHECK(equal > 1000);  // both answers are well represented
  CHECK(equal < 19000);
}

TEST_CASE("an invalid root renders nothing and asks the writer not to prune", "[actors][root]") {
  actors_test::Cluster c;
  c.apply_yaml(actors_test::kScenario);
  c.apply_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: beta, namespace: mon, uid: uid-beta}
spec:
  metrics: {shards: many, instanceSelector: {matchLabels: {agent: beta}}}
)",
               EventType::modified);
  Pipeline p;
  for (const auto& e : c.events()) p.feed(e);
  p.settle();
  RootState beta = p.roots().at(kBeta);
  beta.dirty = true;
  Effects fx = reconcile(beta, {});
  CHECK(fx.rendered);
  CHECK(fx.root_present);
  CHECK_FALSE(fx.root_valid);
  CHECK(fx.desired->empty());
  REQUIRE_FALSE(fx.problems.empty());
  CHECK(fx.problems.front().str().find("GrafanaAgent mon/beta: spec.metrics.shards") == 0);
  CHECK_FALSE(p.roots().at(kAlpha).desired->empty());  // the other root is untouched
}
