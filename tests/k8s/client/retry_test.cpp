#include <catch2/catch.hpp>

#include "k8s/client/retry.hpp"

using namespace k8s;
using std::chrono::milliseconds;

namespace {

// Always returns the same value: makes jitter predictable.
class FixedRandom final : public RandomSource {
 public:
  explicit FixedRandom(std::uint64_t v) : v_(v) {}
  std::uint64_t next() override { return v_; }

 private:
  std::uint64_t v_;
};

TokenBucket::Time at(int ms) {
  return TokenBucket::Time{} + milliseconds(ms);
}

}  // namespace

TEST_CASE("API errors are classified into retry classes", "[client][retry]") {
  CHECK(classify(200) == ErrorClass::ok);
  CHECK(classify(201) == ErrorClass::ok);
  for (int s : {0, 408, 429, 500, 502, 503, 504}) CHECK(classify(s) == ErrorClass::retry_call);
  for (int s : {409, 410, 404}) CHECK(classify(s) == ErrorClass::retry_reconcile);
  for (int s : {400, 401, 403, 422}) CHECK(classify(s) == ErrorClass::terminal);
  CHECK(std::string(error_class_name(ErrorClass::retry_reconcile)) == "retry_reconcile");
}

TEST_CASE("backoff grows exponentially with bounded jitter", "[client][retry]") {
  Backoff b;  // 100 ms base, 30 s cap
  FixedRandom zero(0), max(~0ull);
  CHECK(b.delay(0, zero) == milliseconds(50));
  CHECK(b.delay(3, zero) == milliseconds(400));
  CHECK(b.delay(30, zero) == milliseconds(15'000));
  SplitMix64 rnd(42);
  for (unsigned attempt = 0; attempt < 12; ++attempt) {
    std::int64_t d = std::min<std::int64_t>(30'000, 100ll << attempt);
    for (int i = 0; i < 50; ++i) {
      auto ms = b.delay(attempt, rnd).count();
      CHECK(ms >= d / 2);
      CHECK(ms <= d);
    }
  }
  SplitMix64 a(7), c(7);
  CHECK(b.delay(5, a) == b.delay(5, c));  // seeded: reproducible
  CHECK(b.delay(2, max) <= milliseconds(400));
}

TEST_CASE("token bucket limits write rate with injected time", "[client][retry]") {
  TokenBucket tb(10.0, 2.0);
  CHECK(tb.try_take(at(0)));
  CHECK(tb.try_take(at(0)));
  CHECK_FALSE(tb.try_take(at(0)));
  CHECK(tb.wait(at(0)) == milliseconds(100));
  CHECK_FALSE(tb.try_take(at(50)));
  CHECK(tb.try_take(at(110)));
  CHECK(tb.try_take(at(10'000)));
  CHECK(tb.try_take(at(10'000)));
  CHECK_FALSE(tb.try_take(at(10'000)));  // burst caps the bucket
}
