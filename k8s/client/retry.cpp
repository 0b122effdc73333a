#include "k8s/client/retry.hpp"

#include <algorithm>
#include <cmath>

namespace k8s {

const char* error_class_name(ErrorClass c) {
  switch (c) {
    case ErrorClass::ok:
      return "ok";
    case ErrorClass::retry_call:
      return "retry_call";
    case ErrorClass::retry_reconcile:
      return "retry_reconcile";
    case ErrorClass::terminal:
      return "terminal";
  }
  return "?";
}

ErrorClass classify(int status) {
  if (status >= 200 && status < 300) return ErrorClass::ok;
  if (status == 0 || status == 408 || status == 429 || status >= 500) return ErrorClass::retry_call;
  if (status == 409 || status == 410 || status == 404) return ErrorClass::retry_reconcile;
  return ErrorClass::terminal;
}

std::uint64_t SplitMix64::next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::chrono::milliseconds Backoff::delay(unsigned attempt, RandomSource& rnd) const {
  std::int64_t d = base.count();
  for (unsigned i = 0; i < attempt && d < cap.count(); ++i) d *= 2;
  d = std::min<std::int64_t>(d, cap.count());
  std::int64_t half = d / 2;
  std::int64_t jitter = static_cast<std::int64_t>(rnd.next() % static_cast<std::uint64_t>(d - half + 1));
  return std::chrono::milliseconds(half + jitter);
}

void TokenBucket::refill(Time now) {
  if (!started_) {
    started_ = true;
    last_ = now;
    return;
  }
  if (now <= last_) return;
  double seconds = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min(burst_, tokens_ + seconds * rate_);
  last_ = now;
}

bool TokenBucket::try_take(Time now) {
  refill(now);
  if (tokens_ < 1.0) return false;
  tokens_ -= 1.0;
  return true;
}

std::chrono::milliseconds TokenBucket::wait(Time now) {
  refill(now);
  if (tokens_ >= 1.0 || rate_ <= 0) return std::chrono::milliseconds(0);
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil((1.0 - tokens_) / rate_ * 1000.0)));
}

}  // namespace k8s
