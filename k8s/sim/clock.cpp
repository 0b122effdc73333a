#include "k8s/sim/clock.hpp"

#include <cstdio>
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

std::string rfc3339_micro(Clock::time_point t) {
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count() % 1000000;
  std::string s = rfc3339(t);
  char frac[16];
  std::snprintf(frac, sizeof frac, ".%06lldZ", static_cast<long long>(micros < 0 ? micros + 1000000 : micros));
  return s.substr(0, s.size() - 1) + frac;
}

}  // namespace k8s::sim
