#include "actors/journal_actor.hpp"

#include <unistd.h>

#include "actors/core/journal_recorder.hpp"
#include "model/object_fields.hpp"

namespace actors {

namespace {

struct JournalState {
  JournalConfig cfg;
  std::unique_ptr<core::JournalRecorder> recorder;  // null without a sink
  std::uint64_t next_seq = 1;
  bool synced = false;
  bool flush_pending = false;
  JournalRoutes routes;
};

using JournalActor = journal_actor::stateful_pointer<JournalState>;

std::int64_t now(const JournalState& st) {
  return st.cfg.now_ms ? st.cfg.now_ms() : 0;
}

// Queued behind everything already in the mailbox: one flush per batch.
void schedule_flush(JournalActor self) {
  if (self->state.flush_pending) return;
  self->state.flush_pending = true;
  self->send(self, flush_atom::value);
}

// At debug level, one entry per event: what arrived, never its contents.
void log_event(const JournalState& st, const core::Event& e) {
  if (!st.cfg.log.enabled(model::LogLevel::debug) || !e.object) return;
  st.cfg.log(model::log_debug("journal", "event")
                 .object(e.kind, model::string_at(*e.object, {"metadata", "namespace"}),
                         model::string_at(*e.object, {"metadata", "name"}))
                 .with("type", model::change_name(e.type))
                 .with("seq", e.seq));
}

void record(JournalActor self, const core::Event& e) {
  JournalState& st = self->state;
  if (!st.recorder) return;
  std::size_t bytes = st.recorder->record(e);
  if (st.cfg.on_append) st.cfg.on_append(bytes);
  schedule_flush(self);
}

void forward(JournalActor self, const EventPtr& e) {
  const JournalRoutes& r = self->state.routes;
  if (e->kind == "Namespace") {
    for (const event_sink_actor& a : r.all) self->send(a, event_atom::value, e);
  } else if (auto it = r.by_kind.find(e->kind); it != r.by_kind.end()) {
    for (const event_sink_actor& a : it->second) self->send(a, event_atom::value, e);
  }
}

void init(JournalActor self, JournalConfig cfg, JournalRoutes routes) {
  JournalState& st = self->state;
  st.cfg = std::move(cfg);
  st.next_seq = st.cfg.first_seq;
  st.routes = std::move(routes);
  if (!st.cfg.sink) return;
  core::RedactionPolicy policy;
  if (!st.cfg.redaction_key.empty()) policy.key = st.cfg.redaction_key;
  st.cfg.redaction_key.clear();  // one copy, in the policy
  policy.include_secrets = st.cfg.include_secrets;
  st.recorder = std::make_unique<core::JournalRecorder>(st.cfg.sink, std::move(policy), st.cfg.tombstone_grace);
  st.recorder->start(st.next_seq - 1, now(st), ::getpid());
  schedule_flush(self);
}

journal_actor::behavior_type journal_behavior(JournalActor self, JournalConfig cfg, JournalRoutes routes) {
  init(self, std::move(cfg), std::move(routes));
  return {
      [=](ingest_atom, const std::string& kind, core::EventType type, const core::ObjectPtr& obj) {
        JournalState& st = self->state;
        auto e = std::make_shared<core::Event>();
        e->seq = st.next_seq++;
        e->time_ms = now(st);
        e->kind = kind;
        // Before the sync, ADDED comes from an initial list: the snapshot
        // of this start, which replaces whatever a replay folded before.
        e->type = !st.synced && type == core::EventType::added ? core::EventType::resync : type;
        e->object = obj;
        log_event(st, *e);
        record(self, *e);
        forward(self, EventPtr(std::move(e)));
      },
      [=](redact_atom, const KeySet& config_maps) {
        if (self->state.recorder) self->state.recorder->policy().secret_config_maps = *config_maps;
      },
      [=](flush_atom) {
        self->state.flush_pending = false;
        if (self->state.recorder) self->state.recorder->flush();
      },
      [=](synced_atom) {
        JournalState& st = self->state;
        if (st.recorder && !st.synced) {
          st.recorder->synced(now(st));
          schedule_flush(self);
        }
        st.synced = true;
        for (const event_sink_actor& a : st.routes.all) self->send(a, synced_atom::value);
      },
      [=](stats_atom) -> std::uint64_t { return self->state.next_seq - 1; },
  };
}

}  // namespace

journal_actor spawn_journal(caf::actor_system& sys, JournalConfig cfg, JournalRoutes routes) {
  return sys.spawn<caf::detached>(journal_behavior, std::move(cfg), std::move(routes));
}

}  // namespace actors
