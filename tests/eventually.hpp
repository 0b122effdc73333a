// The tests' one poller: waits for a condition that another thread or
// process makes true (a server answering, a watch delivering), checking
// often and giving up after a generous timeout, since the tests run on a
// loaded 2-core machine. Not for actors: those are tested deterministically.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace testutil {

inline bool eventually(const std::function<bool()>& cond, std::chrono::milliseconds timeout = std::chrono::seconds(30),
                       std::chrono::milliseconds poll = std::chrono::milliseconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!cond()) {
    if (std::chrono::steady_clock::now() >= deadline) return cond();
    std::this_thread::sleep_for(poll);
  }
  return true;
}

}  // namespace testutil
