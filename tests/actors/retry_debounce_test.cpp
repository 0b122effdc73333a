#include <catch2/catch.hpp>

#include "actors/core/debounce.hpp"
#include "actors/core/retry.hpp"

using namespace actors::core;
using std::chrono::milliseconds;

namespace {

Debouncer::Time at(int ms) {
  return Debouncer::Time{} + milliseconds(ms);
}

// Always returns the same value: makes jitter predictable.
class FixedRandom final : public RandomSource {
 public:
  explicit FixedRandom(std::uint64_t v) : v_(v) {}
  std::uint64_t next() override { return v_; }

 private:
  std::uint64_t v_;
};

}  // namespace

TEST_CASE("debouncer coalesces a burst into one reconcile", "[actors][debounce]") {
  Debouncer d;  // 100 ms, at most 1 s
  CHECK_FALSE(d.pending());
  CHECK(d.note(at(0)) == at(100));
  CHECK(d.note(at(30)) == at(130));
  CHECK(d.note(at(60)) == at(160));
  CHECK_FALSE(d.due(at(159)));
  CHECK(d.due(at(160)));
  CHECK(d.coalesced() == 2);
  d.fire();
  CHECK_FALSE(d.pending());
  CHECK_FALSE(d.due(at(1000)));
  CHECK(d.note(at(2000)) == at(2100));
}

TEST_CASE("debouncer never waits past max_wait under a steady stream", "[actors][debounce]") {
  Debouncer d(milliseconds(100), milliseconds(300));
  Debouncer::Time deadline{};
  for (int t = 0; t <= 1000; t += 50) {
    deadline = d.note(at(t));
    if (d.due(at(t))) break;
  }
  CHECK(deadline == at(300));
  CHECK(d.due(at(300)));
}

TEST_CASE("API errors are classified into retry classes", "[actors][retry]") {
  CHECK(classify(200) == ErrorClass::ok);
  CHECK(classify(201) == ErrorClass::ok);
  for (int s : {0, 408, 429, 500, 502, 503, 504}) CHECK(classify(s) == ErrorClass::retry_call);
  for (int s : {409, 410, 404}) CHECK(classify(s) == ErrorClass::retry_reconcile);
  for (int s : {400, 401, 403, 422}) CHECK(classify(s) == ErrorClass::terminal);
  CHECK(std::string(error_class_name(ErrorClass::retry_reconcile)) == "retry_reconcile");
}

TEST_CASE("backoff grows exponentially with bounded jitter", "[actors][retry]") {
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

TEST_CASE("token bucket limits write rate with injected time", "[actors][retry]") {
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
