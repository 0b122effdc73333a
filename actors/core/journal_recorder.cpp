#include "actors/core/journal_recorder.hpp"

namespace actors::core {

JournalRecorder::JournalRecorder(std::shared_ptr<JournalSink> sink, RedactionPolicy policy)
    : sink_(std::move(sink)), policy_(std::move(policy)) {}

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
  if (sink_->needs_rotation(line.size()))
    sink_->rotate([&](const JournalSink::LineWriter& write) { write_snapshot(write, e.time_ms); });
  sink_->append(line);
  last_seq_ = e.seq;
  if (!e.object) return line.size();
  model::Key key = object_key(*e.object);
  Id id{e.kind, key.first, key.second};
  if (e.type == EventType::deleted)
    state_.erase(id);
  else
    state_[id] = e;
  return line.size();
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
// their namespace labels known.
void JournalRecorder::write_snapshot(const JournalSink::LineWriter& write, std::int64_t time_ms) const {
  JournalMarker m;
  m.type = MarkerType::snapshot;
  m.seq = last_seq_;
  m.time_ms = time_ms;
  m.objects = state_.size();
  m.synced = synced_;
  write(encode_marker(m));
  auto emit = [&](const Event& latest) {
    Event e = latest;
    e.type = EventType::resync;
    write(encode_event(redact(e, policy_)));
  };
  for (const auto& [id, e] : state_)
    if (std::get<0>(id) == "Namespace") emit(e);
  for (const auto& [id, e] : state_)
    if (std::get<0>(id) != "Namespace") emit(e);
}

}  // namespace actors::core
