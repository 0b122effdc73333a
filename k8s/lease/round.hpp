// One leader-election round as a pure state machine, run by the elector
// actor (the operator's and the target allocator's): the shell only makes
// the API calls, keeps the timers and reports changes of `leading`. A round
// is: read the Lease, decide (decide_lease), and when the decision is to
// create, acquire or renew, write it and record the result.
// Contract: time is passed in (monotonic ms for expiry and deadlines, wall
// ms for renewTime). `last_renew_ms` is the send time of the last write that
// succeeded: the API server saw us no later than that, so the renew
// deadline is measured from it. A leader whose reads or writes fail steps
// down once last_renew_ms is older than renew_deadline; one that reads
// another live holder steps down at once.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "k8s/lease/leader.hpp"
#include "model/value.hpp"

namespace k8s::lease {

struct RoundState {
  LeaseObservation seen;
  bool leading = false;
  std::int64_t last_renew_ms = 0;     // send time of the last successful write
  std::int64_t sent_ms = 0;           // send time of the write in flight
  std::optional<model::Value> lease;  // as last read or written: its resourceVersion
};

enum class LeaseWrite { none, create, update };

struct RoundStep {
  LeaseWrite write = LeaseWrite::none;
  model::Value body;  // the Lease to create or PUT
};

// The GET answered with `status` (200 with the Lease, 404 without, anything
// else a failure) and `body`.
RoundStep after_read(const LeaderConfig& cfg, RoundState& st, int status, std::string_view body,
                     std::int64_t now_mono_ms, std::int64_t now_wall_ms);
// The create or PUT from after_read answered; `ok` for 2xx, `body` the
// stored Lease.
void after_write(const LeaderConfig& cfg, RoundState& st, bool ok, std::string_view body, std::int64_t now_mono_ms);
// Steps down when the last successful renew is older than renew_deadline.
void check_deadline(const LeaderConfig& cfg, RoundState& st, std::int64_t now_mono_ms);
// On shutdown: steps down and returns the Lease to PUT to hand it back
// (release_lease), or nullopt when this replica does not hold it.
std::optional<model::Value> step_down(const LeaderConfig& cfg, RoundState& st, std::int64_t now_wall_ms);

}  // namespace k8s::lease
