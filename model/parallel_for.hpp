// A parallel loop for pure per-item work in rendering (a root's monitors
// turned into jobs), so a one-shot `render` can use every core.
// Contract: parallel_for(n, threads, f) calls f(i) once for each i in
// [0, n), on up to `threads` threads counting the caller's (1 or 0: all on
// the calling thread, no thread started), and returns when every call has
// finished. Threads take the next index from a shared counter, so f must
// write only to what item i owns; results then never depend on timing. An
// exception from f stops the remaining indices and is rethrown (the first
// one) after every thread has joined.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace model {

template <class F>
void parallel_for(std::size_t n, unsigned threads, F&& f) {
  const std::size_t lanes = std::min<std::size_t>(std::max(threads, 1u), n);
  if (lanes <= 1) {
    for (std::size_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr failed;
  std::mutex failed_mu;
  auto lane = [&] {
    for (std::size_t i = next++; i < n && !stop; i = next++) {
      try {
        f(i);
      } catch (...) {
        std::lock_guard lock(failed_mu);
        if (!failed) failed = std::current_exception();
        stop = true;
      }
    }
  };
  std::vector<std::thread> workers;
  workers.reserve(lanes - 1);
  for (std::size_t t = 1; t < lanes; ++t) {
    try {
      workers.emplace_back(lane);
    } catch (const std::system_error&) {
      break;  // no thread to be had: fewer lanes, same results
    }
  }
  lane();
  for (auto& w : workers) w.join();
  if (failed) std::rethrow_exception(failed);
}

}  // namespace model
