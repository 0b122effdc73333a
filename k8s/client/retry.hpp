// How the writer reacts to API errors, as pure functions with the random
// source and the clock injected: error classes, exponential backoff with
// jitter, and a token-bucket rate limit for API writes.
// Contract: classify() maps an HTTP status (0 = transport error or timeout)
// to retry_call (retry the same request after a backoff: 408, 429, 5xx,
// transport), retry_reconcile (re-read and plan again: 409 conflict, 410
// gone, 404 on a stale read) or terminal (the request itself is wrong: other
// 4xx). Backoff delays lie in [d/2, d] for d = min(cap, base * 2^attempt).
#pragma once

#include <chrono>
#include <cstdint>

namespace k8s {

enum class ErrorClass { ok, retry_call, retry_reconcile, terminal };
const char* error_class_name(ErrorClass c);
ErrorClass classify(int http_status);

// The I/O seam for randomness.
class RandomSource {
 public:
  virtual ~RandomSource() = default;
  virtual std::uint64_t next() = 0;
};

// Deterministic, seedable (SplitMix64).
class SplitMix64 final : public RandomSource {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() override;

 private:
  std::uint64_t state_;
};

struct Backoff {
  std::chrono::milliseconds base{100};
  std::chrono::milliseconds cap{30'000};
  // "Equal jitter": half fixed, half random, so retries spread out but the
  // delay still grows with the attempt number (attempt 0 is the first retry).
  std::chrono::milliseconds delay(unsigned attempt, RandomSource& rnd) const;
};

class TokenBucket {
 public:
  using Time = std::chrono::steady_clock::time_point;
  TokenBucket(double per_second, double burst) : rate_(per_second), burst_(burst), tokens_(burst) {}
  // Takes one token at `now` if available.
  bool try_take(Time now);
  // How long until a token is available at `now` (zero when one is).
  std::chrono::milliseconds wait(Time now);

 private:
  void refill(Time now);
  double rate_, burst_, tokens_;
  Time last_{};
  bool started_ = false;
};

}  // namespace k8s
