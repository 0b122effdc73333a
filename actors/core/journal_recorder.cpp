#include "actors/core/journal_recorder.hpp"

#include "actors/core/root_state.hpp"

namespace actors::core {

JournalRecorder::JournalRecorder(std::shared_ptr<JournalSink> sink, RedactionPolicy policy,
                                 std::chrono::milliseconds tombstone_grace)
    : sink_(std::move(sink)), policy_(std::move(policy)), tombstone_grace_(tombstone_grace) {}

void JournalRecorder::start(std::uint64_t last_seq, std::int64_t time_ms, std::int64_t pid) {
  last_seq_ = last_seq;
  JournalMarker m;
  m.type = MarkerType::start;
  m.seq = last_seq;
  m.time_ms = time_ms;
  m.pid = pid;
  sink_->append(encode_marker(m));
}

std::size_t JournalRecorder::record(const Event& e) {
  std::string line = encode_event(redact(e, policy_));
  if (sink_->needs_rotation(line.size())) {
    drop_stale_tombstones(e.time_ms);
    sink_->rotate([&](const JournalSink::LineWriter& write) { write_snapshot(write, e.time_ms); });
  }
  sink_->append(line);
  last_seq_ = e.seq;
  fold(e);
  return line.size();
}

// Mirrors the roots' store (root_state.cpp): a Secret or ConfigMap DELETED
// leaves a tombstone, its grace expiry removes it unless it was re-created.
void JournalRecorder::fold(const Event& e) {
  if (!e.object) return;
  model::Key key = object_key(*e.object);
  Id id{e.kind, key.first, key.second};
  if (e.type != EventType::deleted) {
    state_[id] = Folded{e, std::nullopt};
    return;
  }
  auto it = state_.find(id);
  if (it == state_.end()) return;
  bool member_data = e.kind == "Secret" || e.kind == "ConfigMap";
  if (!member_data || (is_grace_expiry(*e.object) && it->second.deletion))
    state_.erase(it);
  else if (!is_grace_expiry(*e.object))
    it->second.deletion = e;
}

// A tombstone whose expiry never came (no root referenced the object, so
// no selector scheduled one) must not stay in every snapshot forever.
void JournalRecorder::drop_stale_tombstones(std::int64_t now_ms) {
  for (auto it = state_.begin(); it != state_.end();) {
    const auto& d = it->second.deletion;
    if (d && now_ms - d->time_ms > 2 * tombstone_grace_.count())
      it = state_.erase(it);
    else
      ++it;
  }
}

void JournalRecorder::synced(std::int64_t time_ms) {
  synced_ = true;
  JournalMarker m;
  m.type = MarkerType::synced;
  m.seq = last_seq_;
  m.time_ms = time_ms;
  sink_->append(encode_marker(m));
}

// Namespaces first: a replay folding the snapshot routes members with
// their namespace labels known; tombstones' DELETED events last.
void JournalRecorder::write_snapshot(const JournalSink::LineWriter& write, std::int64_t time_ms) const {
  JournalMarker m;
  m.type = MarkerType::snapshot;
  m.seq = last_seq_;
  m.time_ms = time_ms;
  m.synced = synced_;
  for (const auto& [id, f] : state_) m.objects += f.deletion ? 2 : 1;
  write(encode_marker(m));
  auto emit = [&](const Folded& f) {
    Event e = f.latest;
    e.type = EventType::resync;
    write(encode_event(redact(e, policy_)));
  };
  for (const auto& [id, f] : state_)
    if (std::get<0>(id) == "Namespace") emit(f);
  for (const auto& [id, f] : state_)
    if (std::get<0>(id) != "Namespace") emit(f);
  // Deletions last, once every member that references them is there.
  for (const auto& [id, f] : state_)
    if (f.deletion) write(encode_event(redact(*f.deletion, policy_)));
}

}  // namespace actors::core
