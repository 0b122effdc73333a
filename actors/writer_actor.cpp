#include "actors/writer_actor.hpp"

#include "actors/api_call.hpp"
#include "model/yaml_emit.hpp"

namespace actors {

namespace {

struct WriterShell {
  WriterConfig cfg;
  core::WriterState machine;
};

using Writer = writer_actor::stateful_pointer<WriterShell>;

// Answers arrive on the client's I/O thread; each becomes a message.
void call(Writer self, const core::WriterEffect& fx) {
  auto me = caf::actor_cast<writer_actor>(self);
  send_action(*self->state.cfg.client, fx.action, [me, key = fx.root, batch = fx.batch](k8s::Result r) {
    caf::anon_send(me, done_atom::value, key, batch, share_result(std::move(r)));
  });
}

void reread(Writer self, const core::WriterEffect& fx) {
  auto me = caf::actor_cast<writer_actor>(self);
  const auto& [kind, ns, name] = fx.id;
  self->state.cfg.client->get(*k8s::resource_for_kind(kind), ns, name, [me, key = fx.root, id = fx.id](k8s::Result r) {
    caf::anon_send(me, reread_atom::value, key, id, share_result(std::move(r)));
  });
}

void confirm_owner(Writer self, const core::RootKey& key, const std::string& uid) {
  auto me = caf::actor_cast<writer_actor>(self);
  self->state.cfg.client->get(
      *k8s::resource_for_kind("GrafanaAgent"), key.first, key.second,
      [me, key, uid](k8s::Result r) { caf::anon_send(me, owner_atom::value, key, uid, share_result(std::move(r))); });
}

void patch_status(Writer self, const core::WriterEffect& fx) {
  auto on_write = self->state.cfg.on_write;
  auto me = caf::actor_cast<writer_actor>(self);
  self->state.cfg.client->patch(
      *k8s::resource_for_kind("GrafanaAgent"), fx.root.first, fx.root.second, k8s::PatchType::merge,
      model::to_json(fx.body),
      [on_write, me, key = fx.root, tag = fx.batch](k8s::Result r) {
        if (on_write) on_write("GrafanaAgent", "status", r.status);
        caf::anon_send(me, status_atom::value, key, tag, r.ok());
      },
      "status");
}

void emit_event(Writer self, const core::WriterEffect& fx) {
  auto on_write = self->state.cfg.on_write;
  self->state.cfg.client->create(*k8s::resource_for_kind("Event"), fx.root.first, model::to_json(fx.body),
                                 [on_write](k8s::Result r) {
                                   if (on_write) on_write("Event", "event", r.status);
                                 });
}

void perform(Writer self, core::WriterEffects effects) {
  const WriterConfig& cfg = self->state.cfg;
  for (const core::WriterEffect& fx : effects) {
    using T = core::WriterEffect::Type;
    switch (fx.type) {
      case T::call:
        call(self, fx);
        break;
      case T::reread:
        reread(self, fx);
        break;
      case T::confirm_owner:
        confirm_owner(self, fx.root, fx.uid);
        break;
      case T::retry:
        self->delayed_send(self, fx.delay, retry_atom::value, fx.root);
        break;
      case T::status_patch:
        patch_status(self, fx);
        break;
      case T::event:
        emit_event(self, fx);
        break;
      case T::wrote:
        if (cfg.on_write) cfg.on_write(fx.action.kind, core::action_name(fx.action.type), fx.status);
        break;
      case T::log:
        cfg.log(fx.entry);
        break;
      case T::reconciled:
        if (cfg.on_reconcile) cfg.on_reconcile(fx.outcome, fx.seconds);
        break;
    }
  }
}

writer_actor::behavior_type writer_behavior(Writer self, WriterConfig cfg) {
  core::WriterSettings s{.leader = cfg.leader,
                         .sync_sources = cfg.sync_sources,
                         .write_status = cfg.write_status,
                         .emit_events = cfg.emit_events,
                         .fence = cfg.fence,
                         .now_rfc3339 = cfg.now_rfc3339,
                         .backoff = cfg.backoff};
  self->state.machine = core::make_writer(std::move(s));
  self->state.cfg = std::move(cfg);
  auto& m = self->state.machine;
  return {
      [=, &m](desired_atom, RootOutputPtr out) { perform(self, core::on_desired(m, std::move(out))); },
      [=, &m](observed_atom, const EventPtr& e, const KeySet& owners) {
        perform(self, core::on_observed(m, *e, *owners));
      },
      [=, &m](gone_atom, const EventPtr& e) { perform(self, core::on_gone(m, *e)); },
      [=, &m](synced_atom) { perform(self, core::on_synced(m)); },
      [=, &m](leader_atom, bool leading) { perform(self, core::on_leader(m, leading)); },
      [=, &m](done_atom, const core::RootKey& key, std::uint64_t batch, const ResultPtr& r) {
        perform(self, core::on_call_done(m, key, batch, answer_of(*r)));
      },
      [=, &m](reread_atom, const core::RootKey& key, const core::Identity& id, const ResultPtr& r) {
        perform(self, core::on_reread(m, key, id, answer_of(*r)));
      },
      [=, &m](owner_atom, const core::RootKey& key, const std::string& uid, const ResultPtr& r) {
        perform(self, core::on_owner(m, key, uid, answer_of(*r)));
      },
      [=, &m](status_atom, const core::RootKey& key, std::uint64_t tag, bool ok) {
        perform(self, core::on_status(m, key, tag, ok));
      },
      [=, &m](retry_atom, const core::RootKey& key) { perform(self, core::on_retry(m, key)); },
      [=, &m](stats_atom) { return core::writer_stats(m); },
  };
}

}  // namespace

writer_actor spawn_writer(caf::actor_system& sys, WriterConfig cfg) {
  return sys.spawn(writer_behavior, std::move(cfg));
}

}  // namespace actors
