// The writer's fence against acting as a stale leader. The elector records
// when it sent each Lease renew that succeeded; the writer asks holds()
// at the moment of every write and makes none once the last such renew is
// older than the renew deadline. A leader paused past its lease (SIGSTOP,
// a long GC, a frozen VM) therefore stops at its first write after waking,
// before the elector's own "lost leadership" message is even processed.
// close() is for shutdown: from then on it never holds again, whatever
// renew answers still arrive, so leadership won by an answer in flight
// while the process stops is never acted on.
// Contract: thread-safe; time is the injected monotonic clock (ms), the
// same one the elector stamps with, so tests drive it without sleeping.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>

namespace actors::core {

class LeaseFence {
 public:
  using Clock = std::function<std::int64_t()>;  // monotonic milliseconds

  explicit LeaseFence(std::chrono::milliseconds renew_deadline, Clock now = steady_ms)
      : deadline_ms_(renew_deadline.count()), now_(std::move(now)) {}

  std::int64_t now() const { return now_(); }
  // A renew sent at `sent_ms` succeeded. The send time, not the answer's
  // arrival, bounds when the API server last saw us.
  void renewed(std::int64_t sent_ms) {
    std::int64_t prev = renewed_ms_.load();
    while (sent_ms > prev && !renewed_ms_.compare_exchange_weak(prev, sent_ms)) {
    }
  }
  void revoke() { renewed_ms_.store(kNever); }
  void close() {
    closed_.store(true);
    revoke();
  }
  bool closed() const { return closed_.load(); }
  bool holds() const { return !closed_.load() && age_ms() <= deadline_ms_; }
  // Milliseconds since the last successful renew was sent.
  std::int64_t age_ms() const {
    std::int64_t r = renewed_ms_.load();
    return r == kNever ? std::numeric_limits<std::int64_t>::max() : now_() - r;
  }

  static std::int64_t steady_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
  }

 private:
  static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::min();
  std::int64_t deadline_ms_;
  Clock now_;
  std::atomic<std::int64_t> renewed_ms_{kNever};
  std::atomic<bool> closed_{false};
};

}  // namespace actors::core
