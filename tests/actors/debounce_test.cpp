#include <catch2/catch.hpp>

#include "actors/core/debounce.hpp"

using namespace actors::core;
using std::chrono::milliseconds;

namespace {

Debouncer::Time at(int ms) {
  return Debouncer::Time{} + milliseconds(ms);
}

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
