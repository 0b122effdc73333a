#include "actors/root_actor.hpp"

#include "actors/core/debounce.hpp"
#include "model/hierarchy.hpp"
#include "model/yaml_emit.hpp"

namespace actors {

namespace {

struct RootActorState {
  core::RootState root;
  core::Debouncer debounce;
  RootConfig cfg;
  bool tick_scheduled = false;
  bool awaiting_router = false;
  // Fan-in of one subscription change across the selector actors.
  std::size_t replies_left = 0;
  core::SubscriptionDelta combined;
  std::uint64_t combined_seq = 0;
  bool synced = false;
  std::optional<core::Debouncer::Time> queued_since;
  // The uid of the GrafanaAgent last rendered: the final output, sent once
  // it is deleted, names it so the writer forgets that one and not a
  // newer GrafanaAgent of the same name.
  std::string agent_uid;
};

using RootActor = root_actor::stateful_pointer<RootActorState>;

core::Debouncer::Time now(RootActor self) {
  return self->clock().now();
}

void schedule(RootActor self) {
  auto& st = self->state;
  if (!st.root.dirty) return;
  if (!st.queued_since) {
    st.queued_since = now(self);
    if (st.cfg.on_queued) st.cfg.on_queued();
  }
  auto deadline = st.debounce.note(now(self));
  if (st.tick_scheduled) return;
  st.tick_scheduled = true;
  auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now(self));
  self->delayed_send(self, std::max(wait, std::chrono::milliseconds(0)), tick_atom::value);
}

std::shared_ptr<RootOutput> make_output(const core::RootState& s, core::Effects fx) {
  auto out = std::make_shared<RootOutput>();
  out->root = s.root;
  out->seq = s.last_seq;
  const core::ObjectPtr* held = core::held_object(s, {"GrafanaAgent", s.root});
  if (held && *held) {
    const model::Value& ga = **held;
    if (const model::Value* md = ga.find("metadata")) {
      if (const model::Value* uid = md->find("uid"); uid && uid->is_string()) out->uid = uid->as_string();
      if (const model::Value* g = md->find("generation"); g && g->is_int()) out->generation = g->as_int();
    }
    if (const model::Value* st = ga.find("status")) out->previous_status = *st;
  }
  out->effects = std::move(fx);
  return out;
}

void reconcile_now(RootActor self);

// Every selector answered: take what the root gains and loses, render again.
void acknowledge_all(RootActor self, const std::shared_ptr<const core::Subscriptions>& subs) {
  auto& st = self->state;
  st.awaiting_router = false;
  core::acknowledge(st.root, subs, st.combined);
  st.root.last_seq = std::max(st.root.last_seq, st.combined_seq);
  st.combined = {};
  reconcile_now(self);
}

void reconcile_now(RootActor self) {
  auto& st = self->state;
  if (st.awaiting_router) return;  // reconciles again when the answer arrives
  if (st.queued_since) {
    std::chrono::duration<double> waited = now(self) - *st.queued_since;
    st.queued_since.reset();
    if (st.cfg.on_dequeued) st.cfg.on_dequeued(waited.count());
  }
  auto started = now(self);
  core::Effects fx = core::reconcile(st.root, st.cfg.render);
  std::chrono::duration<double> took = now(self) - started;
  if (fx.subscribe) {
    st.awaiting_router = true;
    auto subs = std::make_shared<const core::Subscriptions>(std::move(*fx.subscribe));
    st.replies_left = st.cfg.selectors.size();
    st.combined = {};
    st.combined_seq = 0;
    if (st.replies_left == 0) return acknowledge_all(self, subs);
    for (const member_selector_actor& sel : st.cfg.selectors)
      self->request(sel, caf::infinite, subscribe_atom::value, st.root.root, SubscriptionsPtr(subs))
          .then([=](DeltaPtr delta, std::uint64_t seq) {
            auto& s = self->state;
            s.combined.gained.insert(s.combined.gained.end(), delta->gained.begin(), delta->gained.end());
            s.combined.lost.insert(s.combined.lost.end(), delta->lost.begin(), delta->lost.end());
            s.combined.namespaces.insert(s.combined.namespaces.end(), delta->namespaces.begin(),
                                         delta->namespaces.end());
            s.combined_seq = std::max(s.combined_seq, seq);
            if (--s.replies_left == 0) acknowledge_all(self, subs);
          });
    return;
  }
  bool present = fx.root_present;
  auto out = make_output(st.root, std::move(fx));
  if (out->uid.empty())
    out->uid = st.agent_uid;
  else
    st.agent_uid = out->uid;
  out->render_seconds = took.count();
  if (st.cfg.on_render) st.cfg.on_render(*out);
  // The verdicts (one per selected monitor) are the bindings actor's alone:
  // the writer keeps every root's last output, and never reads them.
  core::RootVerdicts verdicts = core::take_verdicts(out->root, out->effects);
  if (st.cfg.bindings)
    self->send(st.cfg.bindings, verdicts_atom::value,
               core::RootVerdictsPtr(std::make_shared<const core::RootVerdicts>(std::move(verdicts))));
  self->send(st.cfg.writer, desired_atom::value, RootOutputPtr(std::move(out)));
  if (!present) self->quit();
}

std::string explain_json(const core::RootState& s) {
  model::Value out = model::Value::obj({{"agent", s.root.first + "/" + s.root.second},
                                        {"lastSeq", static_cast<std::int64_t>(s.last_seq)},
                                        {"renders", static_cast<std::int64_t>(s.renders)}});
  auto agent = s.inventory.agents.find(s.root);
  model::Value lines = model::Value::array();
  if (agent != s.inventory.agents.end())
    for (const auto& line : model::explain_hierarchy(s.inventory, agent->second.obj)) lines.push(line);
  out.set("members", std::move(lines));
  model::Value problems = model::Value::array();
  for (const auto& p : s.problems) problems.push((p.warning ? "warning: " : "") + p.str());
  out.set("problems", std::move(problems));
  return model::to_json(out);
}

root_actor::behavior_type root_behavior(RootActor self, core::RootKey key, RootConfig cfg, bool synced) {
  self->state.synced = synced;
  self->state.root = core::make_root(key);
  self->state.debounce = core::Debouncer(cfg.debounce, cfg.max_wait);
  self->state.cfg = std::move(cfg);
  return {
      [=](routed_atom, const EventPtr& e, bool quiet) {
        core::apply(self->state.root, *e, quiet ? core::Delivery::quiet : core::Delivery::dirty);
        schedule(self);
      },
      [=](explain_atom, const core::RootKey&) -> std::string { return explain_json(self->state.root); },
      [=](synced_atom) {
        self->state.synced = true;
        self->state.root.dirty = true;
        schedule(self);
      },
      [=](absorb_atom, const DeltaPtr& delta) {
        core::absorb(self->state.root, *delta);
        schedule(self);
      },
      [=](tick_atom) {
        auto& st = self->state;
        st.tick_scheduled = false;
        if (!st.debounce.due(now(self))) {
          if (st.debounce.pending()) {
            st.tick_scheduled = true;
            auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(*st.debounce.deadline() - now(self));
            self->delayed_send(self, std::max(wait, std::chrono::milliseconds(1)), tick_atom::value);
          }
          return;
        }
        st.debounce.fire();
        if (st.root.dirty && st.synced) reconcile_now(self);
      },
  };
}

}  // namespace

root_actor spawn_root(caf::actor_system& sys, const core::RootKey& key, const RootConfig& cfg, bool synced) {
  return sys.spawn(root_behavior, key, cfg, synced);
}

}  // namespace actors
