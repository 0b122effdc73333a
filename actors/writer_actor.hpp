// The writer actor: a thin shell over the writer's state machine
// (actors/core/writer_machine.hpp), which decides every write, re-read,
// retry, status patch and Event; this actor performs them with the API
// client, turns each answer into a message, and keeps the backoff timers.
// Contract: as the machine's (no writes before the initial sync, while not
// the leader, or with a stale fence); never blocks: answers arrive on the
// client's I/O thread and are sent to the actor. Error classes: 409/410/404
// re-read and replan (retry_reconcile); 5xx, 429 and timeouts are retried
// by the client, then here with backoff (retry_call); other 4xx are
// terminal and reported on the status without a retry loop.
#pragma once

#include <functional>
#include <string>

#include "actors/core/lease_fence.hpp"
#include "actors/protocol.hpp"
#include "k8s/client/client.hpp"
#include "model/log.hpp"

namespace actors {

struct WriterConfig {
  k8s::Client* client = nullptr;
  bool leader = true;  // false: wait for leader_atom
  // With leader election: checked at every write; a stale renew stops the
  // writer until the elector confirms leadership again.
  std::shared_ptr<core::LeaseFence> fence;
  std::size_t sync_sources = 1;  // synced_atom messages (one per selector) that mean "initial sync done"
  k8s::Backoff backoff{std::chrono::milliseconds(500), std::chrono::milliseconds(60'000)};
  bool write_status = true;
  bool emit_events = true;
  std::function<std::string()> now_rfc3339;
  // One entry per write (component writer: msg created|updated|recreated|
  // deleted, the object and the reason) and per failed call.
  model::Log log = {};
  // Metrics hook: kind, action ("create", "update", "recreate", "remove",
  // "status", "event"), HTTP status (0 = transport error).
  std::function<void(const std::string&, const std::string&, int)> on_write = {};
  // Metrics hook: a reconcile settled (core::ReconcileOutcome) and the
  // seconds its render took.
  std::function<void(core::ReconcileOutcome, double)> on_reconcile = {};
};

writer_actor spawn_writer(caf::actor_system& sys, WriterConfig cfg);

}  // namespace actors
