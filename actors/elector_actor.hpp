// The leader elector actor: reads the Lease every retry period, takes it
// when free or expired, renews it while leading, and tells the writer (and
// the other leader sinks) when leadership is gained or lost (only the
// leader writes). Decisions are core::decide_lease; this actor only does
// the calls and the timers.
// Contract: a leader that cannot renew within renew_deadline steps down
// (leader_atom false) before its lease can expire for the others. Every
// successful renew re-sends leader_atom true, so a writer that fenced itself
// resumes once leadership is confirmed.
#pragma once

#include <functional>
#include <vector>

#include "actors/core/leader.hpp"
#include "actors/core/lease_fence.hpp"
#include "actors/protocol.hpp"
#include "k8s/client/client.hpp"
#include "model/log.hpp"

namespace actors {

struct ElectorConfig {
  core::LeaderConfig leader;
  k8s::Client* client = nullptr;
  writer_actor writer;  // may be unset (the target allocator has none): on_change only
  // Told exactly what the writer is told (the kubelet Service controller).
  std::vector<leader_sink_actor> leader_sinks = {};
  std::function<void(bool leading)> on_change = {};
  model::Log log = {};  // component leader-election
  // Stamped with the send time of every renew that succeeds; its clock is
  // the elector's clock.
  std::shared_ptr<core::LeaseFence> fence;
  // Wall clock (ms since the epoch) for the Lease's acquire and renew
  // times; the default reads the system clock.
  std::function<std::int64_t()> wall_ms = {};
};

elector_actor spawn_elector(caf::actor_system& sys, ElectorConfig cfg);

}  // namespace actors
