#include "k8s/sim/clock.hpp"

#include <ctime>

namespace k8s::sim {

Clock::time_point ManualClock::now() const {
  std::lock_guard lock(mutex_);
  return now_;
}

void ManualClock::set(time_point t) {
  std::lock_guard lock(mutex_);
  now_ = t;
}

void ManualClock::advance(std::chrono::seconds d) {
  std::lock_guard lock(mutex_);
  now_ += d;
}

std::string rfc3339(Clock::time_point t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace k8s::sim
