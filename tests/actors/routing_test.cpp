#include <catch2/catch.hpp>

#include "actors/core/pipeline.hpp"
#include "actors/core/router.hpp"
#include "actors_fixtures.hpp"

using namespace actors::core;
using actors_test::doc;

namespace {

using actors_test::kAlpha;
using actors_test::kBeta;

Pipeline settled_scenario(actors_test::Cluster& c) {
  c.apply_yaml(actors_test::kScenario);
  Pipeline p;
  for (const auto& e : c.events()) p.feed(e);
  p.settle();
  return p;
}

Event sm_event(std::uint64_t seq, const std::string& ns, const std::string& name, const std::string& team,
               EventType t = EventType::modified) {
  return make_event(
      seq, 0, t,
      doc("{apiVersion: monitoring.coreos.com/v1, kind: ServiceMonitor, metadata: {name: " + name +
          ", namespace: " + ns + ", labels: {team: " + team + "}}, spec: {selector: {}, endpoints: [{port: x}]}}"));
}

Subscriptions sm_subscription(const std::string& team, bool with_match_labels = true) {
  Subscriptions s;
  model::LabelSelector sel;
  if (with_match_labels)
    sel.match_labels["team"] = team;
  else
    sel.match_expressions.push_back({"team", "In", {team}});
  s.selectors.push_back({"ServiceMonitor", sel, model::LabelSelector{}, "mon"});
  return s;
}

}  // namespace

TEST_CASE("a monitor shared by two roots is routed to both", "[actors][routing]") {
  actors_test::Cluster c;
  Pipeline p = settled_scenario(c);
  Router& r = p.router();
  CHECK(r.route(sm_event(100, "app1", "web-a", "web")).roots == std::set<RootKey>{kAlpha, kBeta});
  // web-b lives in app2 (monitored=no): only beta selects every namespace.
  CHECK(r.route(sm_event(101, "app2", "web-b", "web")).roots == std::set<RootKey>{kBeta});
  CHECK(r.route(sm_event(102, "app1", "db", "db")).roots.empty());
  // A relabel away from team=web still reaches the roots that selected the old object.
  CHECK(r.route(sm_event(103, "app1", "web-a", "db")).roots == std::set<RootKey>{kAlpha, kBeta});
  CHECK(r.route(sm_event(104, "app1", "web-a", "db")).roots.empty());
  // The bearer-token Secret is referenced by both roots through web-a.
  auto secret = make_event(105, 0, EventType::modified,
                           doc("{apiVersion: v1, kind: Secret, metadata: {name: token, namespace: app1}}"));
  CHECK(r.route(secret).roots == std::set<RootKey>{kAlpha, kBeta});
}

TEST_CASE("a Namespace relabel moves monitors in and out", "[actors][routing]") {
  actors_test::Cluster c;
  Pipeline p = settled_scenario(c);
  auto relabel = [&](const std::string& value) {
    return c.add(doc("{apiVersion: v1, kind: Namespace, metadata: {name: app2, labels: {monitored: '" + value + "'}}}"),
                 EventType::modified);
  };
  Routing in = p.router().route(relabel("yes"));
  CHECK(in.roots == std::set<RootKey>{kAlpha});  // beta selects every namespace: unchanged
  CHECK(in.quiet == std::set<RootKey>{kBeta});   // beta holds web-b there: it keeps the Namespace current
  REQUIRE(in.deltas.count(kAlpha));
  REQUIRE(in.deltas.at(kAlpha).gained.size() == 1);  // web-b, the member alpha did not have
  CHECK(object_key(*in.deltas.at(kAlpha).gained[0].second) == model::Key{"app2", "web-b"});
  CHECK(in.deltas.at(kAlpha).lost.empty());
  Routing same = p.router().route(relabel("yes"));
  CHECK(same.roots.empty());
  Routing out = p.router().route(relabel("no"));
  CHECK(out.roots == std::set<RootKey>{kAlpha});
  REQUIRE(out.deltas.at(kAlpha).lost.size() == 1);
  CHECK(out.deltas.at(kAlpha).lost[0] == std::make_pair(std::string("ServiceMonitor"), model::Key{"app2", "web-b"}));
  // Through the whole pipeline: web-b enters alpha's config, then leaves.
  Pipeline live;
  for (const auto& e : c.events()) live.feed(e);
  live.settle();
  auto alpha_config = [&]() { return actors_test::yaml_of(*live.roots().at(kAlpha).desired); };
  CHECK(alpha_config().find("web-b") == std::string::npos);
  live.feed(relabel("yes"));
  live.settle();
  CHECK(live.roots().at(kAlpha).inventory.service_monitors.count({"app2", "web-b"}) == 1);
  CHECK(actors_test::yaml_of(live.desired()) == actors_test::yaml_of(c.reference()));
  live.feed(relabel("no"));
  live.settle();
  CHECK(live.roots().at(kAlpha).inventory.service_monitors.count({"app2", "web-b"}) == 0);
  CHECK(actors_test::yaml_of(live.desired()) == actors_test::yaml_of(c.reference()));
}

TEST_CASE("replacing a root's subscriptions reports what it gains and loses", "[actors][routing]") {
  Router r;
  for (int i = 0; i < 3; ++i) r.route(sm_event(i + 1, "ns" + std::to_string(i), "sm", i == 2 ? "b" : "a"));
  const RootKey root{"mon", "x"};
  SubscriptionDelta d = r.set_subscriptions(root, sm_subscription("a"));
  CHECK(d.gained.size() == 2);
  CHECK(d.lost.empty());
  CHECK(r.set_subscriptions(root, sm_subscription("a")).empty());  // unchanged
  d = r.set_subscriptions(root, sm_subscription("b"));
  REQUIRE(d.gained.size() == 1);
  CHECK(object_key(*d.gained[0].second) == model::Key{"ns2", "sm"});
  CHECK(d.lost.size() == 2);
  CHECK(r.route(sm_event(10, "ns0", "sm", "a")).roots.empty());
  CHECK(r.route(sm_event(11, "ns2", "sm", "b")).roots == std::set<RootKey>{root});
  r.remove_root(root);
  CHECK(r.route(sm_event(12, "ns2", "sm", "b")).roots.empty());
  CHECK(r.index("ServiceMonitor").subscription_count() == 0);
}

TEST_CASE("routing examines only the candidate subscriptions", "[actors][routing]") {
  Router r;
  for (int i = 0; i < 1000; ++i)
    r.set_subscriptions({"mon", "root-" + std::to_string(i)}, sm_subscription("t" + std::to_string(i)));
  // matchExpressions-only selectors: `In` is indexed by its values...
  for (int i = 0; i < 5; ++i)
    r.set_subscriptions({"mon", "expr-" + std::to_string(i)}, sm_subscription("e" + std::to_string(i), false));
  // ...while Exists (like NotIn and DoesNotExist) must always be checked.
  for (int i = 0; i < 3; ++i) {
    Subscriptions s;
    model::LabelSelector sel;
    sel.match_expressions.push_back({"tier-" + std::to_string(i), "Exists", {}});
    s.selectors.push_back({"ServiceMonitor", sel, model::LabelSelector{}, "mon"});
    r.set_subscriptions({"mon", "exists-" + std::to_string(i)}, s);
  }
  const auto& index = r.index("ServiceMonitor");
  CHECK(index.subscription_count() == 1008);
  CHECK(index.always_check_count() == 3);

  r.reset_examined();
  Routing hit = r.route(sm_event(1, "app", "sm-7", "t7", EventType::added));
  CHECK(hit.roots == std::set<RootKey>{{"mon", "root-7"}});
  CHECK(r.examined() == 1 + 3);

  r.reset_examined();
  CHECK(r.route(sm_event(2, "app", "sm-7", "e3")).roots == std::set<RootKey>{{"mon", "root-7"}, {"mon", "expr-3"}});
  CHECK(r.examined() == (1 + 3) + (1 + 3));  // the old object's candidates, then the new one's

  r.reset_examined();
  for (int i = 0; i < 100; ++i)
    r.route(sm_event(10 + i, "app", "other-" + std::to_string(i), "nobody", EventType::added));
  CHECK(r.examined() == 100 * 3);
}

TEST_CASE("deleting a GrafanaAgent drops its root and its subscriptions", "[actors][routing]") {
  actors_test::Cluster c;
  c.apply_yaml(actors_test::kScenario);
  c.apply_yaml(R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web-a, namespace: app1, labels: {team: web}}
spec:
  selector: {matchLabels: {app: web-a}}
  endpoints: [{port: http, tlsConfig: {ca: {configMap: {name: ca, key: ca.crt}}}}]
)",
               EventType::modified);
  Pipeline p;
  for (const auto& e : c.events()) p.feed(e);
  p.settle();
  // The journal redacts ConfigMaps some root reads as a secret.
  CHECK(p.router().secret_config_maps() == std::set<model::Key>{{"app1", "ca"}});
  p.feed(c.add(doc("{apiVersion: monitoring.grafana.com/v1alpha1, kind: GrafanaAgent, "
                   "metadata: {name: beta, namespace: mon}}"),
               EventType::deleted));
  p.settle();
  CHECK(p.roots().count(kBeta) == 0);
  CHECK(p.router().route(sm_event(c.seq() + 1, "app1", "web-a", "web")).roots == std::set<RootKey>{kAlpha});
  CHECK(p.router().route(sm_event(c.seq() + 2, "app2", "web-b", "web")).roots.empty());
  CHECK(actors_test::yaml_of(p.desired()) == actors_test::yaml_of(c.reference()));
}

TEST_CASE("a GrafanaAgent event ensures or stops its root, other kinds leave the roots alone", "[actors][routing]") {
  const std::string ga =
      "{apiVersion: monitoring.grafana.com/v1alpha1, kind: GrafanaAgent, "
      "metadata: {name: beta, namespace: mon}}";
  using Action = RootLifecycle::Action;
  for (EventType t : {EventType::added, EventType::modified, EventType::resync}) {
    RootLifecycle life = root_lifecycle(make_event(1, 0, t, doc(ga)));
    CHECK(life.action == Action::ensure);
    CHECK(life.key == kBeta);
  }
  RootLifecycle gone = root_lifecycle(make_event(2, 0, EventType::deleted, doc(ga)));
  CHECK(gone.action == Action::stop);
  CHECK(gone.key == kBeta);
  CHECK(root_lifecycle(sm_event(3, "mon", "beta", "web", EventType::deleted)).action == Action::none);
}

// A selector actor's Router indexes only its own kinds: the subscriptions a
// root hands every selector must not be indexed again in each of them.
TEST_CASE("a router restricted to some kinds indexes and answers only those kinds", "[actors][routing]") {
  Router all;
  Router secrets_only(std::set<std::string>{"Secret"});
  Router monitors_only(std::set<std::string>{"ServiceMonitor"});
  Event secret = make_event(1, 0, EventType::added, doc("{kind: Secret, metadata: {name: s, namespace: mon}}"));
  Event sm = sm_event(2, "mon", "m", "a");
  for (Router* r : {&all, &secrets_only, &monitors_only}) {
    r->route(secret);
    r->route(sm);
  }
  Subscriptions subs = sm_subscription("a");
  subs.secrets.insert({"mon", "s"});
  auto kinds = [](const SubscriptionDelta& d) {
    std::multiset<std::string> out;
    for (const auto& [kind, obj] : d.gained) out.insert(kind);
    return out;
  };
  CHECK(kinds(all.set_subscriptions(kAlpha, subs)) == std::multiset<std::string>{"Secret", "ServiceMonitor"});
  CHECK(kinds(secrets_only.set_subscriptions(kAlpha, subs)) == std::multiset<std::string>{"Secret"});
  CHECK(kinds(monitors_only.set_subscriptions(kAlpha, subs)) == std::multiset<std::string>{"ServiceMonitor"});
  CHECK(monitors_only.secrets().size() == 1);  // the object is stored, but no root references it here
  CHECK(secrets_only.route(secret).roots == std::set<RootKey>{kAlpha});
  CHECK(monitors_only.route(secret).roots.empty());
  CHECK(secrets_only.route(sm).roots.empty());
  CHECK(monitors_only.route(sm).roots == std::set<RootKey>{kAlpha});
  // The Secret index holds a root's references as the subscriptions it was
  // handed, not as a copy; a change lets the old ones go.
  auto shared = std::make_shared<const Subscriptions>(subs);
  Router secrets(std::set<std::string>{"Secret"});
  secrets.route(secret);
  CHECK(kinds(secrets.set_subscriptions(kAlpha, shared)) == std::multiset<std::string>{"Secret"});
  CHECK(shared.use_count() == 2);
  CHECK(secrets.route(secret).roots == std::set<RootKey>{kAlpha});
  CHECK(secrets.set_subscriptions(kAlpha, Subscriptions{}).lost.size() == 1);
  CHECK(shared.use_count() == 1);
  CHECK(secrets.route(secret).roots.empty());
}

// A subscription change visits only the namespaces its selectors can reach;
// the objects gained must be exactly those a scan of every object finds,
// including namespaces without a Namespace object.
TEST_CASE("a subscription change gains exactly what a scan of every object would", "[actors][routing]") {
  Router r(std::set<std::string>{"ServiceMonitor"});
  std::vector<Event> namespaces = {
      make_event(1, 0, EventType::added, doc("{kind: Namespace, metadata: {name: a, labels: {team: x}}}")),
      make_event(2, 0, EventType::added, doc("{kind: Namespace, metadata: {name: b, labels: {team: y}}}")),
      make_event(3, 0, EventType::added, doc("{kind: Namespace, metadata: {name: mon}}"))};
  for (const auto& e : namespaces) r.route(e);
  std::uint64_t seq = 10;
  for (const char* ns : {"a", "b", "mon", "ghost"})  // "ghost" has no Namespace object
    for (const char* team : {"a", "b"}) r.route(sm_event(++seq, ns, std::string("m-") + team, team));
  model::LabelSelector team_x, not_y;
  team_x.match_labels["team"] = "x";
  not_y.match_expressions.push_back({"team", "NotIn", {"y"}});
  struct Case {
    const char* name;
    std::optional<model::LabelSelector> ns;
    std::vector<std::string> want;  // "ns/name", in key order
  };
  std::vector<Case> cases = {
      {"nil: the parent's namespace", std::nullopt, {"mon/m-a"}},
      {"empty: every namespace", model::LabelSelector{}, {"a/m-a", "b/m-a", "ghost/m-a", "mon/m-a"}},
      {"by label", team_x, {"a/m-a"}},
      {"matching no labels reaches unknown namespaces", not_y, {"a/m-a", "ghost/m-a", "mon/m-a"}},
  };
  for (const auto& c : cases) {
    SECTION(c.name) {
      Subscriptions subs;
      model::LabelSelector sel;
      sel.match_labels["team"] = "a";
      subs.selectors.push_back({"ServiceMonitor", sel, c.ns, "mon"});
      std::vector<std::string> got;
      for (const auto& [kind, obj] : r.set_subscriptions(kAlpha, subs).gained)
        got.push_back(object_key(*obj).first + "/" + object_key(*obj).second);
      CHECK(got == c.want);
      // Dropping the subscription loses the same objects.
      std::vector<std::string> lost;
      for (const auto& [kind, key] : r.set_subscriptions(kAlpha, Subscriptions{}).lost)
        lost.push_back(key.first + "/" + key.second);
      CHECK(lost == c.want);
    }
  }
}

TEST_CASE("a Secret referenced by several roots reaches exactly the roots that reference it", "[actors][routing]") {
  Router router(std::set<std::string>{"Secret"});
  const RootKey kGamma{"mon", "gamma"};
  Event secret = make_event(1, 0, EventType::added, doc("{kind: Secret, metadata: {name: s, namespace: mon}}"));
  Event other = make_event(2, 0, EventType::added, doc("{kind: Secret, metadata: {name: t, namespace: mon}}"));
  router.route(secret);
  router.route(other);
  Subscriptions s_only, s_and_t;
  s_only.secrets = {{"mon", "s"}};
  s_and_t.secrets = {{"mon", "s"}, {"mon", "t"}};
  CHECK(router.set_subscriptions(kAlpha, s_only).gained.size() == 1);
  CHECK(router.set_subscriptions(kBeta, s_and_t).gained.size() == 2);
  CHECK(router.set_subscriptions(kGamma, s_only).gained.size() == 1);
  CHECK(router.route(secret).roots == std::set<RootKey>{kAlpha, kBeta, kGamma});
  CHECK(router.route(other).roots == std::set<RootKey>{kBeta});
  // Beta lets s go, alpha goes altogether: s is gamma's alone, t still beta's.
  Subscriptions t_only;
  t_only.secrets = {{"mon", "t"}};
  CHECK(router.set_subscriptions(kBeta, t_only).lost ==
        std::vector<std::pair<std::string, model::Key>>{{"Secret", {"mon", "s"}}});
  router.remove_root(kAlpha);
  CHECK(router.route(secret).roots == std::set<RootKey>{kGamma});
  CHECK(router.route(other).roots == std::set<RootKey>{kBeta});
  CHECK(router.secret_config_maps().empty());
  // A root that comes back is routed again; one with no references is not kept.
  CHECK(router.set_subscriptions(kAlpha, s_and_t).gained.size() == 2);
  CHECK(router.set_subscriptions(kGamma, Subscriptions{}).lost.size() == 1);
  CHECK(router.route(secret).roots == std::set<RootKey>{kAlpha});
  CHECK(router.route(other).roots == std::set<RootKey>{kAlpha, kBeta});
  CHECK(router.secrets().referenced() == std::set<model::Key>{{"mon", "s"}, {"mon", "t"}});
  // A deleted Secret still reaches the roots that reference it, and is no
  // longer stored; a root referencing it meanwhile gains nothing until it
  // comes back.
  Event gone = make_event(3, 0, EventType::deleted, doc("{kind: Secret, metadata: {name: s, namespace: mon}}"));
  CHECK(router.secrets().size() == 2);
  CHECK(router.route(gone).roots == std::set<RootKey>{kAlpha});
  CHECK(router.secrets().size() == 1);
  CHECK(router.set_subscriptions(kGamma, s_only).gained.empty());
  CHECK(router.route(secret).roots == std::set<RootKey>{kAlpha, kGamma});
  CHECK(router.secrets().size() == 2);
  // Unreferenced and deleted: nothing is left of it.
  router.remove_root(kAlpha);
  router.remove_root(kGamma);
  CHECK(router.route(gone).roots.empty());
  CHECK(router.secrets().size() == 1);
  CHECK(router.secrets().referenced() == std::set<model::Key>{{"mon", "t"}});
}
