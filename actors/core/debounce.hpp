// Coalescing bursts of events into one reconcile, with time injected by the
// caller (the root actor passes its clock; tests pass fixed instants).
// Trailing-edge debounce: each event pushes the deadline to now + delay,
// but never past first-pending-event + max_wait, so a steady stream of
// events cannot starve reconciliation.
// Contract: pure state machine; no clock reads, no sleeping.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace actors::core {

class Debouncer {
 public:
  using Clock = std::chrono::steady_clock;
  using Time = Clock::time_point;
  using Duration = std::chrono::milliseconds;

  explicit Debouncer(Duration delay = Duration(100), Duration max_wait = Duration(1000))
      : delay_(delay), max_wait_(max_wait < delay ? delay : max_wait) {}

  // Records an event at `now`; returns the (possibly moved) deadline.
  Time note(Time now);
  bool pending() const { return deadline_.has_value(); }
  std::optional<Time> deadline() const { return deadline_; }
  // True when a reconcile is due at `now`.
  bool due(Time now) const { return deadline_ && now >= *deadline_; }
  // Call when the reconcile runs: clears the pending burst.
  void fire();

  std::uint64_t coalesced() const { return coalesced_; }  // events absorbed into a pending burst
  Duration delay() const { return delay_; }

 private:
  Duration delay_, max_wait_;
  std::optional<Time> first_, deadline_;
  std::uint64_t coalesced_ = 0;
};

}  // namespace actors::core
