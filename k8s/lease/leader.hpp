// Leader election over a coordination.k8s.io/v1 Lease, as a pure decision
// function; callers (e.g. actors/elector_actor.cpp) do the API calls
// and own the clocks; depends on model/ only.
// Contract: a candidate takes the lease only when it is absent, released
// (empty holder) or expired; expiry is judged by the candidate's own clock
// from when it last saw the lease record change (observed_ms) plus
// leaseDurationSeconds, never by comparing clocks across machines. The
// holder renews every retry period; it must step down when it has not
// renewed successfully within renew_deadline.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "model/value.hpp"

namespace k8s::lease {

struct LeaderConfig {
  std::string identity;  // unique per process: hostname + pid
  std::string ns = "default", name = "agent-operator-leader";
  std::chrono::milliseconds lease_duration{15'000};
  std::chrono::milliseconds renew_deadline{10'000};
  std::chrono::milliseconds retry_period{2'000};
};

// What this candidate last saw of the lease.
struct LeaseObservation {
  std::string holder;
  std::string renew_time;        // the record's spec.renewTime, verbatim
  std::int64_t observed_ms = 0;  // local monotonic time when holder/renewTime last changed
};

enum class LeaseStep { wait, create, acquire, renew };

struct LeaseDecision {
  LeaseStep step = LeaseStep::wait;
  model::Value lease;  // the object to create or PUT (with resourceVersion)
};

// Updates `seen` from the lease just read (absent: nullopt) and decides.
LeaseDecision decide_lease(const LeaderConfig& cfg, const std::optional<model::Value>& lease, LeaseObservation& seen,
                           std::int64_t now_mono_ms, const std::string& now_micro_time);

// The Lease to PUT when the holder steps down on shutdown: no holder, a
// one-second duration, renewed now, so a standby takes it on its next
// round instead of waiting out the full duration. nullopt when `lease` is
// not held by cfg.identity (then there is nothing to release).
std::optional<model::Value> release_lease(const LeaderConfig& cfg, const model::Value& lease,
                                          const std::string& now_micro_time);

// "2024-05-01T12:00:00.000000Z" (metav1.MicroTime) for a Unix-epoch ms.
std::string micro_time(std::int64_t unix_ms);

}  // namespace k8s::lease
