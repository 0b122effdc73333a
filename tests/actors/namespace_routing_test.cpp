// Namespaces reach a root only where it holds members: the router sends a
// Namespace event to those roots, hands a root the Namespace with its first
// member there, and the root drops it with its last. These tests check
// that, and that the outputs still equal a render over the whole cluster
// (the whole cluster holds every Namespace).
#include <catch2/catch.hpp>

#include <random>

#include "actors/core/pipeline.hpp"
#include "actors_fixtures.hpp"

using namespace actors::core;
using actors_test::doc;
using actors_test::kAlpha;
using actors_test::kBeta;
using actors_test::yaml_of;

namespace {

std::set<std::string> held_namespaces(const RootState& s) {
  std::set<std::string> out;
  for (const auto& [name, ns] : s.inventory.namespaces) out.insert(name);
  return out;
}

const Event& namespace_event(actors_test::Cluster& c, const std::string& name, const std::string& labels,
                             EventType t = EventType::modified) {
  return c.add(doc("{apiVersion: v1, kind: Namespace, metadata: {name: " + name + ", labels: {" + labels + "}}}"), t);
}

const Event& monitor_event(actors_test::Cluster& c, const std::string& ns, const std::string& name,
                           const std::string& team, EventType t = EventType::added) {
  return c.add(doc("{apiVersion: monitoring.coreos.com/v1, kind: ServiceMonitor, metadata: {name: " + name +
                   ", namespace: " + ns + ", labels: {team: " + team +
                   "}}, spec: {selector: {}, endpoints: " + "[{port: http}]}}"),
               t);
}

struct Settled {
  actors_test::Cluster c;
  Pipeline p;
  Settled() {
    c.apply_yaml(actors_test::kScenario);
    for (const auto& e : c.events()) p.feed(e);
    p.settle();
  }
  void feed(const Event& e) {
    p.feed(e);
    p.settle();
  }
  bool same_as_whole_cluster() const { return yaml_of(p.desired()) == yaml_of(c.reference()); }
};

}  // namespace

TEST_CASE("a root holds the Namespaces of its members and no other", "[actors][routing][namespaces]") {
  Settled s;
  // alpha selects web-a (app1); beta selects web-a and web-b (app2).
  CHECK(held_namespaces(s.p.roots().at(kAlpha)) == std::set<std::string>{"app1"});
  CHECK(held_namespaces(s.p.roots().at(kBeta)) == std::set<std::string>{"app1", "app2"});
  // app2 admits web-b into alpha: the Namespace comes with it, and goes with it.
  s.feed(namespace_event(s.c, "app2", "monitored: 'yes'"));
  CHECK(held_namespaces(s.p.roots().at(kAlpha)) == std::set<std::string>{"app1", "app2"});
  CHECK(s.p.roots().at(kAlpha).inventory.namespace_labels("app2").at("monitored") == "yes");
  CHECK(s.same_as_whole_cluster());
  s.feed(namespace_event(s.c, "app2", "monitored: 'no'"));
  CHECK(held_namespaces(s.p.roots().at(kAlpha)) == std::set<std::string>{"app1"});
  CHECK(s.same_as_whole_cluster());
  // beta's last member in app2 goes: so does app2.
  s.feed(monitor_event(s.c, "app2", "web-b", "web", EventType::deleted));
  CHECK(held_namespaces(s.p.roots().at(kBeta)) == std::set<std::string>{"app1"});
  CHECK(s.same_as_whole_cluster());
}

TEST_CASE("a Namespace event reaches only the roots holding members there", "[actors][routing][namespaces]") {
  Settled s;
  Routing empty = s.p.router().route(namespace_event(s.c, "app3", "monitored: 'yes'", EventType::added));
  CHECK(empty.roots.empty());
  CHECK(empty.quiet.empty());
  CHECK(held_namespaces(s.p.roots().at(kBeta)) == std::set<std::string>{"app1", "app2"});
  // A label no selector reads: both roots hold members in app1, neither renders.
  Routing quiet = s.p.router().route(namespace_event(s.c, "app1", "monitored: 'yes', owner: x"));
  CHECK(quiet.roots.empty());
  CHECK(quiet.quiet == std::set<RootKey>{kAlpha, kBeta});
  Routing only_beta = s.p.router().route(namespace_event(s.c, "app2", "monitored: 'no', owner: y"));
  CHECK(only_beta.roots.empty());
  CHECK(only_beta.quiet == std::set<RootKey>{kBeta});
}

TEST_CASE("a root's first member in a namespace brings the Namespace along", "[actors][routing][namespaces]") {
  Settled s;
  s.feed(namespace_event(s.c, "app3", "monitored: 'yes'", EventType::added));
  Routing first = s.p.router().route(monitor_event(s.c, "app3", "web-c", "web"));
  CHECK(first.roots == std::set<RootKey>{kAlpha, kBeta});
  CHECK(first.attach == std::set<RootKey>{kAlpha, kBeta});
  REQUIRE(first.ns_event);
  CHECK(object_key(*first.ns_event->object).second == "app3");
  Routing second = s.p.router().route(monitor_event(s.c, "app3", "web-d", "web"));
  CHECK(second.roots == std::set<RootKey>{kAlpha, kBeta});
  CHECK(second.attach.empty());
  // Through the pipeline, with a subscription change: a new instance of
  // alpha's selects team=db everywhere, so alpha gains db (app1) and the
  // new db-3 of app3, and holds app3 already.
  Settled t;
  t.feed(namespace_event(t.c, "app3", "monitored: 'no'", EventType::added));
  t.feed(monitor_event(t.c, "app3", "db-3", "db"));
  CHECK(held_namespaces(t.p.roots().at(kAlpha)) == std::set<std::string>{"app1"});
  t.feed(t.c.add(doc(R"({apiVersion: monitoring.grafana.com/v1alpha1, kind: MetricsInstance,
    metadata: {name: alpha-db, namespace: mon, labels: {agent: alpha}},
    spec: {serviceMonitorSelector: {matchLabels: {team: db}}, serviceMonitorNamespaceSelector: {}}})")));
  CHECK(held_namespaces(t.p.roots().at(kAlpha)) == std::set<std::string>{"app1", "app3"});
  CHECK(t.same_as_whole_cluster());
}

// alpha has two instances selecting team=web: one everywhere, one only in
// monitored namespaces. Relabelling app2 changes which instance scrapes
// web-b, not whether alpha holds it: alpha must still render again.
TEST_CASE("a relabel that moves a member between a root's instances re-renders it", "[actors][routing][namespaces]") {
  Settled s;
  s.feed(s.c.add(doc(R"({apiVersion: monitoring.grafana.com/v1alpha1, kind: MetricsInstance,
    metadata: {name: alpha-all, namespace: mon, labels: {agent: alpha}},
    spec: {serviceMonitorSelector: {matchLabels: {team: web}}, serviceMonitorNamespaceSelector: {}}})")));
  CHECK(s.same_as_whole_cluster());
  std::string before = yaml_of(*s.p.roots().at(kAlpha).desired);
  Routing r = s.p.router().route(namespace_event(s.c, "app2", "monitored: 'yes'"));
  CHECK(r.roots == std::set<RootKey>{kAlpha});
  REQUIRE(r.deltas.count(kAlpha));
  CHECK(r.deltas.at(kAlpha).gained.empty());
  CHECK(r.deltas.at(kAlpha).lost.empty());
  Pipeline live;
  for (const auto& e : s.c.events()) live.feed(e);
  live.settle();
  CHECK(yaml_of(*live.roots().at(kAlpha).desired) != before);  // alpha-mi now scrapes web-b too
  CHECK(yaml_of(live.desired()) == yaml_of(s.c.reference()));
}

// Before roots forgot objects relabelled out of their selection, such a
// copy stayed in the root unrouted: its deletion never reached the root,
// and a later selector change brought the deleted monitor back.
TEST_CASE("a monitor relabelled out of a root and deleted stays gone", "[actors][routing][namespaces]") {
  Settled routed;
  Routing out = routed.p.router().route(monitor_event(routed.c, "app1", "web-a", "ops", EventType::modified));
  CHECK(out.roots == std::set<RootKey>{kAlpha, kBeta});
  CHECK(out.dropped == std::set<RootKey>{kAlpha, kBeta});
  Settled s;
  s.feed(monitor_event(s.c, "app1", "web-a", "ops", EventType::modified));
  CHECK(s.p.roots().at(kBeta).inventory.service_monitors.count({"app1", "web-a"}) == 0);
  s.feed(monitor_event(s.c, "app1", "web-a", "ops", EventType::deleted));
  s.feed(s.c.add(doc(R"({apiVersion: monitoring.grafana.com/v1alpha1, kind: MetricsInstance,
    metadata: {name: beta-mi, namespace: mon, labels: {agent: beta}},
    spec: {serviceMonitorSelector: {matchLabels: {team: ops}}, serviceMonitorNamespaceSelector: {}}})"),
                 EventType::modified));
  CHECK(s.same_as_whole_cluster());
  CHECK(yaml_of(s.p.desired()).find("web-a") == std::string::npos);
}

TEST_CASE("a Namespace older than the one a root holds is ignored", "[actors][root][namespaces]") {
  RootState s = make_root(kAlpha);
  auto ns = [](std::uint64_t seq, const std::string& team) {
    return make_event(seq, 0, EventType::modified,
                      doc("{apiVersion: v1, kind: Namespace, metadata: {name: app1, labels: {team: " + team + "}}}"));
  };
  apply(s, ns(10, "new"), Delivery::quiet);
  apply(s, ns(5, "old"), Delivery::quiet);  // a slower selector's copy
  CHECK(s.inventory.namespace_labels("app1").at("team") == "new");
  apply(s, ns(12, "newer"), Delivery::quiet);
  CHECK(s.inventory.namespace_labels("app1").at("team") == "newer");
}

namespace {

// A seeded mix of Namespace relabels and deletions, monitor relabels and
// deletions, and instance selector changes over two agents.
struct RandomCluster {
  std::mt19937 rng;
  actors_test::Cluster c;
  explicit RandomCluster(unsigned seed) : rng(seed) {}

  std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); }
  std::string ns_name() { return "n" + std::to_string(pick(4)); }
  void relabel_namespace() {
    std::string name = ns_name();
    if (pick(5) == 0) {
      namespace_event(c, name, "", EventType::deleted);
      return;
    }
    std::string labels = "tier: " + std::string(pick(2) ? "a" : "b");
    if (pick(2)) labels += ", env: " + std::string(pick(2) ? "x" : "y");
    namespace_event(c, name, labels);
  }
  void touch_monitor() {
    std::string name = "sm" + std::to_string(pick(8));
    // A monitor keeps its namespace: the name decides it.
    std::string ns = "n" + std::to_string(std::stoi(name.substr(2)) % 4);
    monitor_event(c, ns, name, pick(2) ? "web" : "db", pick(4) == 0 ? EventType::deleted : EventType::modified);
  }
  void change_instance() {
    static const char* ns_selectors[] = {"", "serviceMonitorNamespaceSelector: {}, ",
                                         "serviceMonitorNamespaceSelector: {matchLabels: {tier: a}}, ",
                                         "serviceMonitorNamespaceSelector: {matchExpressions: [{key: env, "
                                         "operator: In, values: [x]}]}, "};
    std::string agent = pick(2) ? "alpha" : "beta";
    std::string name = agent + "-" + std::to_string(pick(2));
    c.add(doc("{apiVersion: monitoring.grafana.com/v1alpha1, kind: MetricsInstance, metadata: {name: " + name +
              ", namespace: n0, labels: {agent: " + agent + "}}, spec: {" + ns_selectors[pick(4)] +
              "serviceMonitorSelector: {matchLabels: {team: " + (pick(2) ? "web" : "db") + "}}}}"),
          EventType::modified);
  }
  void step() {
    switch (pick(3)) {
      case 0:
        return relabel_namespace();
      case 1:
        return touch_monitor();
      default:
        return change_instance();
    }
  }
};

// The Namespaces a root must hold: those of its members that exist.
std::set<std::string> needed_namespaces(const RootState& s, const std::set<std::string>& existing) {
  std::set<std::string> out;
  auto note = [&](const model::Key& key) {
    if (existing.count(key.first)) out.insert(key.first);
  };
  for (const auto& [id, obj] : s.other_objects)
    if (id.first != "Namespace" && id.first != "GrafanaAgent") note(id.second);
  for (const auto& [key, m] : s.inventory.service_monitors) note(key);
  for (const auto& [key, m] : s.inventory.pod_monitors) note(key);
  for (const auto& [key, m] : s.inventory.probes) note(key);
  for (const auto& [key, m] : s.inventory.secrets) note(key);
  return out;
}

}  // namespace

TEST_CASE("random relabels: outputs equal a render over the whole cluster", "[actors][routing][namespaces]") {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    RandomCluster r(seed);
    r.c.apply_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: alpha, namespace: mon, uid: uid-alpha}
spec: {metrics: {instanceSelector: {matchLabels: {agent: alpha}}, instanceNamespaceSelector: {}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: beta, namespace: mon, uid: uid-beta}
spec: {metrics: {instanceSelector: {matchLabels: {agent: beta}}, instanceNamespaceSelector: {matchLabels: {tier: a}}}}
)");
    Pipeline p;
    std::size_t fed = 0;
    std::set<std::string> existing;
    for (int step = 0; step < 120; ++step) {
      r.step();
      for (; fed < r.c.events().size(); ++fed) {
        const Event& e = r.c.events()[fed];
        if (e.kind == "Namespace") {
          if (e.type == EventType::deleted)
            existing.erase(object_key(*e.object).second);
          else
            existing.insert(object_key(*e.object).second);
        }
        p.feed(e);
      }
      if (step % 4 != 3) continue;
      p.settle();
      INFO("seed " << seed << ", step " << step);
      REQUIRE(yaml_of(p.desired()) == yaml_of(r.c.reference()));
      for (const auto& [key, root] : p.roots()) REQUIRE(held_namespaces(root) == needed_namespaces(root, existing));
    }
  }
}
