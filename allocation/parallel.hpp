// Two-way fork/join for the allocator's memory-bound batch loops (label
// lookups, target items, rendezvous scores), which wait on cache misses far
// more than they compute, so a second core nearly halves them.
// Contract: run_both(a, b) runs `a` on the calling thread and `b` on a
// thread it starts and joins before returning; an exception from either is
// rethrown (the first one's wins) after both have finished. The callers
// split work into disjoint ranges, so results never depend on timing.
// kParallelMin is the batch size below which a thread costs more than it
// saves (about 50 µs to start and join).
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>

namespace allocation {

inline constexpr std::size_t kParallelMin = 16384;

// Lanes to use: 2 on a machine with at least 2 cores, else 1.
inline unsigned default_lanes() {
  return std::clamp(std::thread::hardware_concurrency(), 1u, 2u);
}

template <class A, class B>
void run_both(A&& first, B&& second) {
  std::exception_ptr second_failed;
  std::thread worker([&] {
    try {
      second();
    } catch (...) {
      second_failed = std::current_exception();
    }
  });
  try {
    first();
  } catch (...) {
    worker.join();
    throw;
  }
  worker.join();
  if (second_failed) std::rethrow_exception(second_failed);
}

}  // namespace allocation
