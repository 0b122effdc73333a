// Collectors (the pods that scrape) and the clock that decides when a newly
// Ready collector has served its grace period.
// Contract: a collector is eligible for targets only while Ready and only
// once `grace` has passed since it became Ready; the clock is the single
// source of time, so tests drive it with ManualClock.
#pragma once

#include <chrono>
#include <string>

namespace allocation {

using TimePoint = std::chrono::system_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
};

class SystemClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::system_clock::now(); }
};

class ManualClock final : public Clock {
 public:
  explicit ManualClock(TimePoint t = TimePoint{}) : now_(t) {}
  TimePoint now() const override { return now_; }
  void set(TimePoint t) { now_ = t; }
  void advance(std::chrono::nanoseconds d) { now_ += d; }

 private:
  TimePoint now_;
};

struct Collector {
  std::string name;  // pod name; the collector_id of the HTTP API
  std::string node;  // spec.nodeName; may be empty
  bool ready = false;
  TimePoint ready_since{};  // when the Ready condition last turned true
};

// True when `c` may receive targets at `now`.
inline bool eligible(const Collector& c, TimePoint now, std::chrono::nanoseconds grace) {
  return c.ready && now - c.ready_since >= grace;
}

}  // namespace allocation
