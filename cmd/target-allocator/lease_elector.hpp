// Leader election for the target allocator (--leader-elect): one thread
// that runs k8s::lease's election round (the same one the operator's
// elector actor runs), making its calls through the libcurl client, and
// reports leadership changes.
// Contract: step() runs one round synchronously and returns whether this
// replica leads afterwards; start() runs step() every retry period on its
// own thread until stop() (also the destructor). on_change(false) is called
// as soon as a round sees another holder, or when renewals have failed for
// longer than renew_deadline; on_change(true) after a successful write.
// release() on shutdown hands the Lease back (client-go's ReleaseOnCancel).
// Times come from the injected clock, so tests drive rounds without sleeping.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "k8s/client/client.hpp"
#include "k8s/lease/leader.hpp"
#include "k8s/lease/round.hpp"

namespace target_allocator {

struct ElectorClock {
  std::function<std::int64_t()> mono_ms;  // monotonic, for expiry and deadlines
  std::function<std::int64_t()> wall_ms;  // Unix epoch, for renewTime
  static ElectorClock system();
};

class LeaseElector {
 public:
  LeaseElector(k8s::Client& client, k8s::lease::LeaderConfig cfg, std::function<void(bool)> on_change,
               ElectorClock clock = ElectorClock::system());
  ~LeaseElector();
  LeaseElector(const LeaseElector&) = delete;
  LeaseElector& operator=(const LeaseElector&) = delete;

  bool step();
  void start();
  void stop();
  // After stop(): steps down and hands the Lease back when this replica
  // holds it (no holder, renewed now), so a standby takes it on its next
  // round instead of waiting out the lease. Returns whether it did.
  bool release();
  bool leading() const { return leading_.load(); }

 private:
  k8s::Result call(const std::function<void(k8s::Callback)>& request);
  void report();  // on_change when the round's verdict differs from the last

  k8s::Client& client_;
  k8s::lease::LeaderConfig cfg_;
  std::function<void(bool)> on_change_;
  ElectorClock clock_;
  k8s::lease::RoundState round_;
  std::atomic<bool> leading_{false};
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace target_allocator
