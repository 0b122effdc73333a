#include "actors/journal_actor.hpp"

#include "actors/messages.hpp"

namespace actors {

namespace {

struct JournalState {
  JournalConfig cfg;
  core::RedactionPolicy policy;
  std::uint64_t next_seq = 1;
  bool flush_pending = false;
  JournalRoutes routes;
};

using JournalActor = caf::stateful_actor<JournalState>;

void record(JournalActor* self, const core::Event& e) {
  JournalState& st = self->state;
  if (!st.cfg.sink) return;
  std::string line = core::encode_event(core::redact(e, st.policy));
  st.cfg.sink->append(line);
  if (st.cfg.on_append) st.cfg.on_append(line.size());
  if (!st.flush_pending) {
    st.flush_pending = true;
    // Queued behind everything already in the mailbox: one flush per batch.
    self->send(self, flush_atom::value);
  }
}

void forward(JournalActor* self, const EventPtr& e) {
  const JournalRoutes& r = self->state.routes;
  if (e->kind == "Namespace") {
    for (const caf::actor& a : r.all) self->send(a, event_atom::value, e);
  } else if (auto it = r.by_kind.find(e->kind); it != r.by_kind.end()) {
    self->send(it->second, event_atom::value, e);
  }
}

caf::behavior journal_behavior(JournalActor* self, JournalConfig cfg, JournalRoutes routes) {
  self->state.cfg = std::move(cfg);
  if (!self->state.cfg.redaction_key.empty()) self->state.policy.key = self->state.cfg.redaction_key;
  self->state.cfg.redaction_key.clear();  // one copy, in the policy
  self->state.policy.include_secrets = self->state.cfg.include_secrets;
  self->state.next_seq = self->state.cfg.first_seq;
  self->state.routes = std::move(routes);
  return {
      [=](ingest_atom, const std::string& kind, core::EventType type, core::ObjectPtr obj) {
        JournalState& st = self->state;
        auto e = std::make_shared<core::Event>();
        e->seq = st.next_seq++;
        e->time_ms = st.cfg.now_ms ? st.cfg.now_ms() : 0;
        e->kind = kind;
        e->type = type;
        e->object = std::move(obj);
        record(self, *e);
        forward(self, EventPtr(std::move(e)));
      },
      [=](redact_atom, KeySet config_maps) { self->state.policy.secret_config_maps = *config_maps; },
      [=](flush_atom) {
        self->state.flush_pending = false;
        if (self->state.cfg.sink) self->state.cfg.sink->flush();
      },
      [=](synced_atom) {
        for (const caf::actor& a : self->state.routes.all) self->send(a, synced_atom::value);
      },
      [=](stats_atom) -> std::uint64_t { return self->state.next_seq - 1; },
  };
}

}  // namespace

caf::actor spawn_journal(caf::actor_system& sys, JournalConfig cfg, JournalRoutes routes) {
  return sys.spawn<caf::detached>(journal_behavior, std::move(cfg), std::move(routes));
}

}  // namespace actors
