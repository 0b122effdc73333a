// The selector actors under CAF's deterministic test coordinator. Scoped
// actors stand in for roots and for the writer, so every message a
// selector sends is checked in order with expect().
#define CAF_SUITE selector_shell
#include "actors/selector_actor.hpp"
#include "shell_fixture.hpp"

using namespace actors;
using core::EventType;
using shells::event;
using shells::yaml;

namespace {

const core::RootKey kBeta{"mon", "beta"};

model::Value monitor(const std::string& name, const std::string& app) {
  return yaml("apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: " + name +
              ", namespace: app, labels: {app: " + app + "}}\nspec: {selector: {}}\n");
}

SubscriptionsPtr watching(const std::string& app) {
  core::Subscriptions s;
  core::SelectorSubscription sub;
  sub.kind = "ServiceMonitor";
  sub.selector.match_labels = {{"app", app}};
  sub.namespace_selector = model::LabelSelector{};  // every namespace
  sub.parent_ns = "mon";
  s.selectors.push_back(sub);
  return std::make_shared<const core::Subscriptions>(std::move(s));
}

struct fixture : shells::api_fixture {
  caf::scoped_actor writer{sys}, alpha{sys}, beta{sys};
  member_selector_actor monitors;

  fixture() { monitors = spawn_member_selector(sys, MemberSelectorConfig{{"ServiceMonitor"}, writer_handle(), {}}); }
  ~fixture() override {
    caf::anon_send_exit(monitors, caf::exit_reason::user_shutdown);
    run();
  }
  writer_actor writer_handle() { return caf::actor_cast<writer_actor>(writer); }

  // The root `who` replaces its subscriptions; returns the delta's kinds/names.
  std::vector<std::string> subscribe(caf::scoped_actor& who, const core::RootKey& key, SubscriptionsPtr subs) {
    std::vector<std::string> out;
    auto h = who->request(monitors, caf::infinite, subscribe_atom::value, key, std::move(subs));
    consume_messages();
    h.receive(
        [&](const DeltaPtr& d, std::uint64_t) {
          for (const auto& [kind, obj] : d->gained) out.push_back("+" + core::object_key(*obj).second);
          for (const auto& [kind, key] : d->lost) out.push_back("-" + key.second);
          for (const auto& ns : d->namespaces) out.push_back("ns:" + core::object_key(*ns.object).second);
        },
        [](caf::error&) { CAF_FAIL("no subscribe reply"); });
    return out;
  }
  void feed(EventType t, const model::Value& obj) {
    inject((event_atom, EventPtr), from(self).to(monitors).with(event_atom::value, event(t, obj)));
  }
  // The names of the events waiting in `who`'s mailbox ("(quiet)" marks
  // quiet deliveries when `flags`).
  std::vector<std::string> delivered(caf::scoped_actor& who, bool flags = false) {
    std::vector<std::string> out;
    bool more = true;
    while (more)
      who->receive(
          [&](routed_atom, const EventPtr& e, bool quiet) {
            out.push_back(core::object_key(*e->object).second + (flags && quiet ? " (quiet)" : ""));
          },
          caf::after(std::chrono::seconds(0)) >> [&] { more = false; });
    return out;
  }
};

}  // namespace

CAF_TEST_FIXTURE_SCOPE(selector_shell_tests, fixture)

CAF_TEST(an event goes to every subscribed root and no other) {
  CAF_CHECK(subscribe(alpha, shells::kAlpha, watching("web")).empty());
  CAF_CHECK(subscribe(beta, kBeta, watching("web")).empty());
  feed(EventType::added, monitor("web-1", "web"));
  expect((routed_atom, EventPtr, bool), from(monitors).to(alpha).with(routed_atom::value, _, false));
  expect((routed_atom, EventPtr, bool), from(monitors).to(beta).with(routed_atom::value, _, false));
  feed(EventType::added, monitor("db-1", "db"));
  CAF_CHECK(delivered(alpha).empty());
  CAF_CHECK(delivered(beta).empty());
}

CAF_TEST(replacing a subscription hands over what is gained and lost) {
  subscribe(alpha, shells::kAlpha, watching("web"));
  feed(EventType::added, monitor("web-1", "web"));
  feed(EventType::added, monitor("db-1", "db"));
  CAF_CHECK_EQUAL(delivered(alpha), std::vector<std::string>{"web-1"});
  CAF_CHECK_EQUAL(subscribe(alpha, shells::kAlpha, watching("db")), (std::vector<std::string>{"+db-1", "-web-1"}));
  feed(EventType::modified, monitor("web-1", "web"));
  feed(EventType::modified, monitor("db-1", "db"));
  CAF_CHECK_EQUAL(delivered(alpha), std::vector<std::string>{"db-1"});
}

CAF_TEST(an owned object goes to the writer with its owner) {
  model::Value sm = monitor("web-1", "web");
  sm.find("metadata")
      ->set("ownerReferences", yaml("- {apiVersion: monitoring.grafana.com/v1alpha1, kind: "
                                    "GrafanaAgent, name: alpha, uid: u}\n"));
  feed(EventType::added, sm);
  expect((observed_atom, EventPtr, KeySet), from(monitors).to(writer).with(observed_atom::value, _, _));
}

CAF_TEST(an empty subscription from a successor root does not drop the live one) {
  subscribe(alpha, shells::kAlpha, watching("web"));
  caf::scoped_actor stale{sys};
  subscribe(stale, shells::kAlpha, std::make_shared<const core::Subscriptions>());
  feed(EventType::added, monitor("web-1", "web"));
  CAF_CHECK_EQUAL(delivered(alpha), std::vector<std::string>{"web-1"});
}

CAF_TEST(a successor root under the same name gets all its subscriptions select) {
  subscribe(alpha, shells::kAlpha, watching("web"));
  feed(EventType::added, monitor("web-1", "web"));
  CAF_CHECK_EQUAL(delivered(alpha), std::vector<std::string>{"web-1"});
  // alpha's agent was deleted and created again: a new root actor with the
  // same subscriptions, before the old one's "forget me" arrives.
  caf::scoped_actor successor{sys};
  CAF_CHECK_EQUAL(subscribe(successor, shells::kAlpha, watching("web")), std::vector<std::string>{"+web-1"});
  CAF_CHECK(subscribe(alpha, shells::kAlpha, std::make_shared<const core::Subscriptions>()).empty());
  feed(EventType::modified, monitor("web-1", "web"));
  CAF_CHECK_EQUAL(delivered(successor), std::vector<std::string>{"web-1"});
  CAF_CHECK(delivered(alpha).empty());
}

CAF_TEST(a Namespace reaches only the roots holding members there) {
  auto ns = [](const std::string& team) {
    return yaml("apiVersion: v1\nkind: Namespace\nmetadata: {name: app, labels: {team: " + team + "}}\n");
  };
  subscribe(alpha, shells::kAlpha, watching("web"));
  subscribe(beta, kBeta, watching("db"));
  feed(EventType::added, ns("a"));
  CAF_CHECK(delivered(alpha).empty());
  CAF_CHECK(delivered(beta).empty());
  // alpha's first member in `app` comes after the Namespace.
  feed(EventType::added, monitor("web-1", "web"));
  CAF_CHECK_EQUAL(delivered(alpha, true), (std::vector<std::string>{"app (quiet)", "web-1"}));
  feed(EventType::added, monitor("web-2", "web"));
  CAF_CHECK_EQUAL(delivered(alpha, true), std::vector<std::string>{"web-2"});
  feed(EventType::modified, ns("b"));
  CAF_CHECK_EQUAL(delivered(alpha, true), std::vector<std::string>{"app (quiet)"});
  CAF_CHECK(delivered(beta).empty());
  // A subscription that gains beta its first members there hands it `app` too.
  CAF_CHECK_EQUAL(subscribe(beta, kBeta, watching("web")), (std::vector<std::string>{"+web-1", "+web-2", "ns:app"}));
  // The members leave both roots' selection: each root is told to forget
  // them (a deletion), and hears no more of `app`.
  feed(EventType::modified, monitor("web-1", "db"));
  feed(EventType::modified, monitor("web-2", "db"));
  for (auto* root : {&alpha, &beta}) {
    bool deleted = true;
    bool more = true;
    std::vector<std::string> names;
    while (more)
      (*root)->receive(
          [&](routed_atom, const EventPtr& e, bool) {
            names.push_back(core::object_key(*e->object).second);
            deleted = deleted && e->type == EventType::deleted;
          },
          caf::after(std::chrono::seconds(0)) >> [&] { more = false; });
    CAF_CHECK_EQUAL(names, (std::vector<std::string>{"web-1", "web-2"}));
    CAF_CHECK(deleted);
  }
  feed(EventType::modified, ns("c"));
  CAF_CHECK(delivered(alpha).empty());
  CAF_CHECK(delivered(beta).empty());
}

CAF_TEST_FIXTURE_SCOPE_END()

namespace {

model::Value agent(const std::string& uid) {
  return yaml(
      "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: alpha, "
      "namespace: mon, uid: " +
      uid + "}\nspec: {}\n");
}

struct agent_fixture : shells::api_fixture {
  caf::scoped_actor writer{sys};
  agent_selector_actor agents;

  agent_fixture() {
    RootConfig rc;
    rc.writer = caf::actor_cast<writer_actor>(writer);
    rc.debounce = std::chrono::milliseconds(100);
    agents = spawn_agent_selector(sys, AgentSelectorConfig{rc, rc.writer});
    inject((synced_atom), from(self).to(agents).with(synced_atom::value));
    expect((synced_atom), from(agents).to(writer).with(synced_atom::value));
  }
  ~agent_fixture() override {
    caf::anon_send_exit(agents, caf::exit_reason::user_shutdown);
    run();
  }
  void feed(EventType t, const model::Value& obj) {
    inject((event_atom, EventPtr), from(self).to(agents).with(event_atom::value, event(t, obj)));
  }
  std::uint64_t roots() {
    std::uint64_t n = 0;
    auto h = self->request(agents, caf::infinite, stats_atom::value);
    consume_messages();
    h.receive([&](const SelectorStats& s) { n = s.roots; }, [](caf::error&) { CAF_FAIL("no stats"); });
    return n;
  }
  // Lets the root's debounce fire, then returns what it handed the writer.
  RootOutputPtr rendered() {
    consume_messages();
    advance_time(std::chrono::seconds(1));
    consume_messages();
    RootOutputPtr out;
    writer->receive([&](desired_atom, const RootOutputPtr& o) { out = o; },
                    caf::after(std::chrono::seconds(0)) >> [] { CAF_FAIL("the root rendered nothing"); });
    return out;
  }
};

}  // namespace

CAF_TEST_FIXTURE_SCOPE(agent_selector_shell_tests, agent_fixture)

CAF_TEST(a GrafanaAgent deleted and created again gets a fresh root) {
  feed(EventType::added, agent("uid-1"));
  // The writer hears of every live GrafanaAgent: its status is the base of a new leader's report.
  expect((observed_atom, EventPtr, KeySet), from(agents).to(writer).with(observed_atom::value, _, _));
  CAF_CHECK_EQUAL(roots(), 1u);
  RootOutputPtr first = rendered();
  CAF_REQUIRE(first != nullptr);
  CAF_CHECK_EQUAL(first->uid, "uid-1");
  CAF_CHECK(first->effects.root_present);

  feed(EventType::deleted, agent("uid-1"));
  expect((gone_atom, EventPtr), from(agents).to(writer).with(gone_atom::value, _));
  CAF_CHECK_EQUAL(roots(), 0u);
  RootOutputPtr last = rendered();
  CAF_REQUIRE(last != nullptr);
  CAF_CHECK(!last->effects.root_present);

  feed(EventType::added, agent("uid-2"));
  expect((observed_atom, EventPtr, KeySet), from(agents).to(writer).with(observed_atom::value, _, _));
  CAF_CHECK_EQUAL(roots(), 1u);
  RootOutputPtr again = rendered();
  CAF_REQUIRE(again != nullptr);
  CAF_CHECK_EQUAL(again->uid, "uid-2");
  CAF_CHECK(again->effects.root_present);
}

CAF_TEST(explain reaches the root of the agent and is empty for an unknown agent) {
  feed(EventType::added, agent("uid-1"));
  std::string known, unknown = "x";
  auto h1 = self->request(agents, caf::infinite, explain_atom::value, shells::kAlpha);
  consume_messages();
  h1.receive([&](const std::string& json) { known = json; }, [](caf::error&) {});
  auto h2 = self->request(agents, caf::infinite, explain_atom::value, core::RootKey{"mon", "nobody"});
  consume_messages();
  h2.receive([&](const std::string& json) { unknown = json; }, [](caf::error&) {});
  CAF_CHECK(known.find("\"agent\":\"mon/alpha\"") != std::string::npos);
  CAF_CHECK_EQUAL(unknown, "");
}

CAF_TEST_FIXTURE_SCOPE_END()
