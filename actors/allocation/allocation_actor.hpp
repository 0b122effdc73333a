// The target allocator's actors: the allocation journal (stamps each input
// with a seq and a time, records it, forwards it) and the allocation actor,
// a thin shell around allocation::runtime::State.
// Contract: the allocation actor takes every input as a message from the
// journal, so it runs the same fold a replay runs, and it never reads
// global state: it could as well be fed by the operator's informers. After
// each input it performs the effects: hooks.sources when the wanted
// discovery changed, hooks.publish after a reallocate. It asks the journal
// for a reallocate once after a burst of inputs (one request in flight;
// inputs already queued are folded first, so a burst costs one
// reallocation) and again when a readiness grace period ends.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "actors/core/redact.hpp"
#include "actors/protocol.hpp"
#include "model/log.hpp"

namespace actors {

struct AllocationHooks {
  // After a reallocate: its input's seq, and what it followed (describe()
  // of the first input folded since the previous reallocate, and how many
  // more; the reallocate itself when it followed none: a grace period ended).
  std::function<void(const allocation::runtime::State&, std::uint64_t seq, const std::string& cause)> publish;
  // The wanted watches and http_sd sources changed.
  std::function<void(const allocation::runtime::State&)> sources;
  model::Log log;
  // A reallocation step ("SetCollectors", "SetTargets") and its duration.
  std::function<void(const char* method, std::string_view strategy, double seconds)> allocated;
  std::function<void(const std::string& name)> discovery_event;
  // A config input was applied (true) or rejected (false), at the input's time.
  std::function<void(bool applied, std::int64_t time_ms)> config;
  // The fold threw (a bug or memory exhaustion): the state cannot be
  // trusted. The runtime logs and exits 1 so the pod restarts.
  std::function<void(const model::LogEntry&)> fatal;
};

struct AllocationJournalConfig {
  allocation_actor target;
  std::string path;                                  // "" = no file: stamp and forward only
  std::function<std::int64_t()> wall_ms;             // default: the system clock
  std::shared_ptr<core::RedactionPolicy> redaction;  // Secret and ConfigMap data in recorded watch inputs
  model::Log log;                                    // component journal: a write that failed
};

// A journal at `path` ("" = none) that redacts Secret data and the data of
// every ConfigMap (a monitor may take credentials from any ConfigMap).
AllocationJournalConfig redacting_journal(std::string path, model::Log log);

// Detached (it writes the file). Throws std::system_error when the file
// cannot be created.
allocation_journal_actor spawn_allocation_journal(caf::actor_system& sys, AllocationJournalConfig cfg);

// Reallocate requests go to the sender of the inputs (the journal).
allocation_actor spawn_allocation_actor(caf::actor_system& sys, AllocationHooks hooks);

struct AllocationPipeline {
  allocation_journal_actor journal;
  allocation_actor allocator;
};

// The allocation actor and its journal, wired to each other.
AllocationPipeline spawn_allocation_pipeline(caf::actor_system& sys, AllocationHooks hooks,
                                             AllocationJournalConfig journal);

}  // namespace actors
