// The clock seam of the simulated API server: every timestamp it writes
// (creationTimestamp, deletionTimestamp) comes from a Clock, so tests can
// pin time. Contract: now() is thread-safe; ManualClock only moves when told.
#pragma once

#include <chrono>
#include <mutex>
#include <string>

namespace k8s::sim {

class Clock {
 public:
  using time_point = std::chrono::system_clock::time_point;
  virtual ~Clock() = default;
  virtual time_point now() const = 0;
};

class SystemClock : public Clock {
 public:
  time_point now() const override { return std::chrono::system_clock::now(); }
};

// A clock for tests: starts at `start` and changes only through set/advance.
class ManualClock : public Clock {
 public:
  explicit ManualClock(time_point start) : now_(start) {}
  time_point now() const override;
  void set(time_point t);
  void advance(std::chrono::seconds d);

 private:
  mutable std::mutex mutex_;
  time_point now_;
};

// Formats as Kubernetes does: RFC 3339 in UTC with second precision,
// e.g. "2024-05-01T12:00:00Z".
std::string rfc3339(Clock::time_point t);
// The same with microseconds (metav1.MicroTime, e.g. audit timestamps):
// "2024-05-01T12:00:00.123456Z".
std::string rfc3339_micro(Clock::time_point t);

}  // namespace k8s::sim
