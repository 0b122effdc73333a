#include "actors/selector_actor.hpp"

namespace actors {

namespace {

// What both selector roles hold: their kinds' index and the roots they
// deliver to.
struct Routes {
  core::Router router;
  std::map<core::RootKey, root_actor> roots;
  writer_actor writer;
  SelectorStats stats;
  std::uint64_t last_seq = 0;  // of the last event routed
};

// The order matters to a root: the Namespace before its first member
// there, the event (as a deletion to the roots that no longer select the
// object) before the relabel's delta. The replay Pipeline delivers alike.
template <class Self>
void deliver(Self* self, Routes& st, const EventPtr& e, const core::Routing& r) {
  if (!r.attach.empty()) {
    auto ns = std::make_shared<const core::Event>(*r.ns_event);
    for (const core::RootKey& key : r.attach)
      if (auto it = st.roots.find(key); it != st.roots.end()) self->send(it->second, routed_atom::value, ns, true);
  }
  EventPtr dropped = r.as_deleted ? std::make_shared<const core::Event>(*r.as_deleted) : nullptr;
  for (const core::RootKey& key : r.roots) {
    auto it = st.roots.find(key);
    if (it == st.roots.end()) continue;
    self->send(it->second, routed_atom::value, r.dropped.count(key) ? dropped : e, false);
    if (auto d = r.deltas.find(key); d != r.deltas.end())
      self->send(it->second, absorb_atom::value, DeltaPtr(std::make_shared<const core::SubscriptionDelta>(d->second)));
    ++st.stats.deliveries;
  }
  for (const core::RootKey& key : r.quiet)
    if (auto it = st.roots.find(key); it != st.roots.end()) self->send(it->second, routed_atom::value, e, true);
  if (!r.owners.empty() && !core::is_grace_expiry(*e->object)) {
    auto owners = std::make_shared<const std::set<model::Key>>(r.owners);
    self->send(st.writer, observed_atom::value, e, KeySet(std::move(owners)));
  }
}

SelectorStats stats_of(Routes& st) {
  st.stats.roots = st.roots.size();
  st.stats.examined = st.router.examined();
  return st.stats;
}

// --- member selector -------------------------------------------------------

struct MemberState {
  Routes routes;
  MemberSelectorConfig cfg;
  journal_actor journal;
  std::set<model::Key> redacted_cms;
};

using MemberSelector = member_selector_actor::stateful_pointer<MemberState>;

void update_redaction(MemberSelector self) {
  auto& st = self->state;
  std::set<model::Key> cms = st.routes.router.secret_config_maps();
  if (cms == st.redacted_cms || !st.journal) return;
  st.redacted_cms = cms;
  self->send(st.journal, redact_atom::value, KeySet(std::make_shared<const std::set<model::Key>>(std::move(cms))));
}

void on_member_event(MemberSelector self, const EventPtr& e) {
  Routes& st = self->state.routes;
  // Namespace events reach every selector; the GrafanaAgent selector counts them.
  if (e->kind != "Namespace") ++st.stats.events;
  st.last_seq = std::max(st.last_seq, e->seq);
  core::Routing r = st.router.route(*e);
  bool member_data = e->kind == "Secret" || e->kind == "ConfigMap";
  if (member_data && e->type == core::EventType::deleted && !r.roots.empty() && !core::is_grace_expiry(*e->object))
    self->delayed_send(self, self->state.cfg.grace, expire_atom::value, e);
  deliver(self, st, e, r);
}

// The reply carries the seq of the last routed event: the gained objects
// are current as of that point of the journal. The sender is the root: a
// member selector learns roots this way.
std::tuple<DeltaPtr, std::uint64_t> on_subscribe(MemberSelector self, const core::RootKey& key,
                                                 const SubscriptionsPtr& shared) {
  const core::Subscriptions& subs = *shared;
  Routes& st = self->state.routes;
  auto sender = caf::actor_cast<root_actor>(self->current_sender());
  auto known = st.roots.find(key);
  bool clearing = subs.selectors.empty() && subs.secrets.empty() && subs.config_maps.empty();
  // A deleted agent's last "forget me" must not undo its successor's
  // subscriptions under the same name.
  bool successor = known != st.roots.end() && known->second != sender;
  if (clearing && successor) return {std::make_shared<const core::SubscriptionDelta>(), st.last_seq};
  // A successor (its agent deleted and created again) starts with an empty
  // store: answered relative to its predecessor's subscriptions, it would
  // not gain what both select, and would never hold it.
  if (successor && sender) st.router.remove_root(key);
  auto delta = std::make_shared<const core::SubscriptionDelta>(st.router.set_subscriptions(key, shared));
  if (clearing)
    st.roots.erase(key);
  else if (sender)
    st.roots[key] = sender;
  update_redaction(self);
  return {delta, st.last_seq};
}

member_selector_actor::behavior_type member_behavior(MemberSelector self, MemberSelectorConfig cfg) {
  self->state.routes.writer = cfg.writer;
  self->state.routes.router = core::Router(cfg.kinds);
  self->state.cfg = std::move(cfg);
  return {
      [=](event_atom, const EventPtr& e) { on_member_event(self, e); },
      [=](synced_atom) { self->send(self->state.routes.writer, synced_atom::value); },
      [=](journal_atom, const journal_actor& journal) { self->state.journal = journal; },
      [=](expire_atom, const EventPtr& e) {
        if (!self->state.journal) return;
        self->send(self->state.journal, ingest_atom::value, e->kind, core::EventType::deleted,
                   core::make_object(core::grace_expiry(*e->object)));
      },
      [=](subscribe_atom, const core::RootKey& key, const SubscriptionsPtr& subs)
          -> std::tuple<DeltaPtr, std::uint64_t> { return on_subscribe(self, key, subs); },
      [=](stats_atom) { return stats_of(self->state.routes); },
  };
}

// --- GrafanaAgent selector -------------------------------------------------

struct AgentState {
  Routes routes;
  RootConfig root_cfg;
  bool synced = false;  // roots started from now on render at once
};

using AgentSelector = agent_selector_actor::stateful_pointer<AgentState>;

void ensure_root(AgentSelector self, const core::RootKey& key) {
  Routes& st = self->state.routes;
  if (st.roots.count(key)) return;
  root_actor root = spawn_root(self->system(), key, self->state.root_cfg, self->state.synced);
  // Roots stop with the selector (shutdown), not only when their agent goes.
  // A new root holds no Namespace: the member selectors hand it those of
  // the members it subscribes to.
  self->link_to(root);
  st.roots.emplace(key, root);
}

void on_agent_event(AgentSelector self, const EventPtr& e) {
  Routes& st = self->state.routes;
  ++st.stats.events;
  st.last_seq = std::max(st.last_seq, e->seq);
  const core::RootLifecycle life = core::root_lifecycle(*e);
  if (life.action == core::RootLifecycle::Action::stop) {
    // The writer stops writing for this agent now (the API server's GC
    // removes what it owned); the root learns it is gone and stops.
    self->send(st.writer, gone_atom::value, e);
    if (auto it = st.roots.find(life.key); it != st.roots.end()) self->send(it->second, routed_atom::value, e, false);
    st.router.remove_root(life.key);
    st.roots.erase(life.key);
    core::Routing r = st.router.route(*e);
    r.roots.erase(life.key);
    return deliver(self, st, e, r);
  }
  if (life.action == core::RootLifecycle::Action::ensure) {
    ensure_root(self, life.key);
    // A status-only change renders nothing, so the writer hears of the
    // status another leader wrote only from here.
    self->send(st.writer, observed_atom::value, e,
               KeySet(std::make_shared<const std::set<model::Key>>(std::set{life.key})));
  }
  deliver(self, st, e, st.router.route(*e));
}

caf::typed_response_promise<std::string> explain(AgentSelector self, const core::RootKey& key) {
  auto rp = self->make_response_promise<std::string>();
  auto it = self->state.routes.roots.find(key);
  if (it == self->state.routes.roots.end()) {
    rp.deliver(std::string());
    return rp;
  }
  self->request(it->second, std::chrono::seconds(10), explain_atom::value, key)
      .then([rp](const std::string& json) mutable { rp.deliver(json); },
            [rp](caf::error&) mutable { rp.deliver(std::string()); });
  return rp;
}

agent_selector_actor::behavior_type agent_behavior(AgentSelector self, AgentSelectorConfig cfg) {
  self->state.routes.writer = cfg.writer;
  self->state.root_cfg = std::move(cfg.root);
  return {
      [=](event_atom, const EventPtr& e) { on_agent_event(self, e); },
      [=](synced_atom) {
        Routes& st = self->state.routes;
        self->state.synced = true;
        for (auto& [key, root] : st.roots) self->send(root, synced_atom::value);
        self->send(st.writer, synced_atom::value);
      },
      [=](explain_atom, const core::RootKey& key) { return explain(self, key); },
      [=](stats_atom) { return stats_of(self->state.routes); },
  };
}

}  // namespace

member_selector_actor spawn_member_selector(caf::actor_system& sys, MemberSelectorConfig cfg) {
  return sys.spawn(member_behavior, std::move(cfg));
}

agent_selector_actor spawn_agent_selector(caf::actor_system& sys, AgentSelectorConfig cfg) {
  return sys.spawn(agent_behavior, std::move(cfg));
}

}  // namespace actors
