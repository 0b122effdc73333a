#include "actors/router_actor.hpp"

namespace actors {

namespace {

struct RouterState {
  core::Router router;
  RouterConfig cfg;
  std::map<core::RootKey, caf::actor> roots;
  caf::actor journal;
  std::set<model::Key> redacted_cms;
  RouterStats stats;
  bool synced = false;
  std::uint64_t last_seq = 0;  // of the last event routed
};

using RouterActor = caf::stateful_actor<RouterState>;

caf::actor ensure_root(RouterActor* self, const core::RootKey& key) {
  auto& st = self->state;
  if (auto it = st.roots.find(key); it != st.roots.end()) return it->second;
  caf::actor root = spawn_root(self->system(), key, st.cfg.root, st.synced);
  // Roots stop with the router (shutdown), not only when their agent goes.
  self->link_to(root);
  // A new root starts with the Namespace labels its selectors read.
  for (const core::ObjectPtr& ns : st.router.namespaces()) {
    auto e = std::make_shared<core::Event>(core::Event{0, 0, "Namespace", core::EventType::resync, ns});
    self->send(root, event_atom::value, EventPtr(std::move(e)), true);
  }
  st.roots.emplace(key, root);
  return root;
}

void update_redaction(RouterActor* self) {
  auto& st = self->state;
  std::set<model::Key> cms = st.router.secret_config_maps();
  if (cms == st.redacted_cms || !st.journal) return;
  st.redacted_cms = cms;
  self->send(st.journal, redact_atom::value, KeySet(std::make_shared<const std::set<model::Key>>(std::move(cms))));
}

void deliver(RouterActor* self, const EventPtr& e, const core::Routing& r) {
  auto& st = self->state;
  for (const core::RootKey& key : r.roots) {
    auto it = st.roots.find(key);
    if (it == st.roots.end()) continue;
    self->send(it->second, event_atom::value, e, false);
    if (auto d = r.deltas.find(key); d != r.deltas.end())
      self->send(it->second, absorb_atom::value, DeltaPtr(std::make_shared<const core::SubscriptionDelta>(d->second)));
    ++st.stats.deliveries;
  }
  if (r.broadcast && st.cfg.spawns_roots)
    for (auto& [key, root] : st.roots)
      if (!r.roots.count(key)) self->send(root, event_atom::value, e, true);
  if (!r.owners.empty() && !core::is_grace_expiry(*e->object)) {
    auto owners = std::make_shared<const std::set<model::Key>>(r.owners);
    self->send(st.cfg.writer, observed_atom::value, e, KeySet(std::move(owners)));
  }
}

void on_event(RouterActor* self, const EventPtr& e) {
  auto& st = self->state;
  // Namespace events reach every selector; count them once.
  if (e->kind != "Namespace" || st.cfg.spawns_roots) ++st.stats.events;
  st.last_seq = std::max(st.last_seq, e->seq);
  if (e->kind == "GrafanaAgent" && st.cfg.spawns_roots) {
    core::RootKey key = core::object_key(*e->object);
    if (e->type == core::EventType::deleted) {
      // The writer stops writing for this agent now (the API server's GC
      // removes what it owned); the root learns it is gone and stops.
      self->send(st.cfg.writer, gone_atom::value, e);
      if (auto it = st.roots.find(key); it != st.roots.end()) self->send(it->second, event_atom::value, e, false);
      st.router.remove_root(key);
      st.roots.erase(key);
      core::Routing r = st.router.route(*e);
      r.roots.erase(key);
      deliver(self, e, r);
      return;
    }
    ensure_root(self, key);
  }
  core::Routing r = st.router.route(*e);
  bool member_data = e->kind == "Secret" || e->kind == "ConfigMap";
  if (member_data && e->type == core::EventType::deleted && !r.roots.empty() && !core::is_grace_expiry(*e->object))
    self->delayed_send(self, st.cfg.grace, expire_atom::value, e);
  deliver(self, e, r);
}

caf::behavior router_behavior(RouterActor* self, RouterConfig cfg) {
  self->state.cfg = std::move(cfg);
  return {
      [=](journal_atom, caf::actor journal) { self->state.journal = std::move(journal); },
      [=](event_atom, EventPtr e) { on_event(self, e); },
      [=](expire_atom, EventPtr e) {
        if (!self->state.journal) return;
        self->send(self->state.journal, ingest_atom::value, e->kind, core::EventType::deleted,
                   core::make_object(core::grace_expiry(*e->object)));
      },
      // The reply carries the seq of the last routed event: the gained
      // objects are current as of that point of the journal.
      // The sender is the root: a member selector learns roots this way.
      [=](subscribe_atom, const core::RootKey& key, SubscriptionsPtr subs) -> std::tuple<DeltaPtr, std::uint64_t> {
        auto& st = self->state;
        auto sender = caf::actor_cast<caf::actor>(self->current_sender());
        auto known = st.roots.find(key);
        bool clearing = subs->selectors.empty() && subs->secrets.empty() && subs->config_maps.empty();
        // A deleted agent's last "forget me" must not undo its successor's
        // subscriptions under the same name.
        if (clearing && known != st.roots.end() && known->second != sender)
          return {std::make_shared<const core::SubscriptionDelta>(), st.last_seq};
        auto delta = std::make_shared<const core::SubscriptionDelta>(st.router.set_subscriptions(key, *subs));
        if (clearing)
          st.roots.erase(key);
        else if (sender)
          st.roots[key] = sender;
        update_redaction(self);
        return {delta, st.last_seq};
      },
      [=](synced_atom) {
        self->state.synced = true;
        if (self->state.cfg.spawns_roots)
          for (auto& [key, root] : self->state.roots) self->send(root, synced_atom::value);
        self->send(self->state.cfg.writer, synced_atom::value);
      },
      [=](explain_atom, const core::RootKey& key) -> caf::typed_response_promise<std::string> {
        auto rp = self->make_response_promise<std::string>();
        auto it = self->state.roots.find(key);
        if (it == self->state.roots.end()) {
          rp.deliver(std::string());
          return rp;
        }
        self->request(it->second, std::chrono::seconds(10), explain_atom::value, key)
            .then([rp](const std::string& json) mutable { rp.deliver(json); },
                  [rp](caf::error&) mutable { rp.deliver(std::string()); });
        return rp;
      },
      [=](stats_atom) -> RouterStats {
        auto& st = self->state;
        st.stats.roots = st.roots.size();
        st.stats.examined = st.router.examined();
        return st.stats;
      },
  };
}

}  // namespace

caf::actor spawn_router(caf::actor_system& sys, RouterConfig cfg) {
  return sys.spawn(router_behavior, std::move(cfg));
}

}  // namespace actors
