// What the journal actor does with each event, as a plain class: redact,
// encode and append it, and keep the folded state of every input object
// (its latest version, by kind, namespace and name) so that a rotation can
// start the new file with a snapshot of it. Each process writes a start
// marker first; its informers' initial lists follow (the actor journals
// them as RESYNC events), then a synced marker.
// Contract: record() appends before the caller lets the event take effect;
// when the sink asks for a rotation, the new file gets a snapshot marker
// and the folded state as of the previous event (RESYNC events keeping the
// seq and time of the change that produced them, redacted under the
// current policy; Namespaces first) before the event. A deleted Secret or
// ConfigMap stays in the state as a tombstone until its grace expiry event
// (root_state.hpp), written as its RESYNC and, after every RESYNC, its
// DELETED, so a replay of the snapshot holds the same tombstones as the
// live roots; a tombstone no
// expiry came for (nothing referenced the object) is dropped after twice
// the grace period. The folded state shares the events' objects (no
// copies). Not thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

#include "actors/core/journal_file.hpp"
#include "actors/core/redact.hpp"

namespace actors::core {

class JournalRecorder {
 public:
  JournalRecorder(std::shared_ptr<JournalSink> sink, RedactionPolicy policy,
                  std::chrono::milliseconds tombstone_grace = std::chrono::minutes(5));

  RedactionPolicy& policy() { return policy_; }
  // `last_seq`: the last seq assigned before this process (first seq - 1).
  void start(std::uint64_t last_seq, std::int64_t time_ms, std::int64_t pid);
  // Returns the bytes of the event's line (snapshots not counted).
  std::size_t record(const Event& e);
  void synced(std::int64_t time_ms);
  void flush() { sink_->flush(); }

  std::size_t objects() const { return state_.size(); }  // tombstones included
  std::uint64_t last_seq() const { return last_seq_; }

 private:
  using Id = std::tuple<std::string, std::string, std::string>;  // kind, namespace, name
  struct Folded {
    Event latest;                   // never DELETED
    std::optional<Event> deletion;  // set: a tombstone awaiting its grace expiry
  };
  void fold(const Event& e);
  void drop_stale_tombstones(std::int64_t now_ms);
  void write_snapshot(const JournalSink::LineWriter& write, std::int64_t time_ms) const;

  std::shared_ptr<JournalSink> sink_;
  RedactionPolicy policy_;
  std::chrono::milliseconds tombstone_grace_;
  std::map<Id, Folded> state_;
  std::uint64_t last_seq_ = 0;
  bool synced_ = false;
};

}  // namespace actors::core
