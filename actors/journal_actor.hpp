// The journal actor: the single point where inputs become events. It assigns
// `seq` and time, appends the (redacted) event to the journal sink, and only
// then forwards the event to the actors of its kind (Namespace events to
// every selector): nothing takes effect unjournaled.
// Contract: runs detached (it does file I/O); writes a start marker when
// spawned, journals (and forwards) the events that arrive before the
// synced_atom, the informers' initial lists, as RESYNC, and a synced
// marker with the synced_atom, so a replay forgets what vanished while no
// operator ran; rotations start each file with a snapshot (see
// core::JournalRecorder). Flushes (and fsyncs, per the sink's policy) once
// per mailbox batch; forwards the unredacted event, so in-memory state
// sees real Secret values while the file holds hashes. A synced_atom is
// forwarded after every event received before it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actors/core/journal_file.hpp"
#include "actors/core/redact.hpp"
#include "actors/protocol.hpp"
#include "model/log.hpp"

namespace actors {

struct JournalConfig {
  std::shared_ptr<core::JournalSink> sink;  // null: events are not recorded
  bool include_secrets = false;
  std::string redaction_key;  // HMAC key for redacted values ("" = a random one)
  std::uint64_t first_seq = 1;
  // The selectors' --secret-grace-period: how long snapshots keep a deleted
  // Secret/ConfigMap as a tombstone awaiting its expiry event.
  std::chrono::milliseconds tombstone_grace{std::chrono::minutes(5)};
  std::function<std::int64_t()> now_ms;                   // wall clock, injected
  std::function<void(std::size_t bytes)> on_append = {};  // metrics hook
  model::Log log = {};  // component journal: each event at debug level (kind, name, type, seq)
};

// Where journaled events go: the actors of each kind (a selector, and for
// Services and Endpoints also the kubelet Service controller); Namespace
// events and synced_atom go to all of them.
struct JournalRoutes {
  std::map<std::string, std::vector<event_sink_actor>> by_kind;
  std::vector<event_sink_actor> all;
};

journal_actor spawn_journal(caf::actor_system& sys, JournalConfig cfg, JournalRoutes routes);

}  // namespace actors
