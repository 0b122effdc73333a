// Shared fixtures for the allocation tests: synthetic targets and
// collectors, and helpers that run a strategy and compare assignments by
// collector name.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "allocation/hash.hpp"
#include "allocation/strategy.hpp"

namespace alloc_test {

// `n` targets with distinct keys derived from `salt`.
inline std::vector<allocation::StrategyTarget> synthetic_targets(std::size_t n, std::uint64_t salt = 1) {
  std::vector<allocation::StrategyTarget> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i].key = allocation::hash_bytes("10.0." + std::to_string(i) + ":9100", salt);
    out[i].hash = allocation::mix64(out[i].key + salt);
  }
  return out;
}

// Zero-padded, so name order is index order.
inline std::vector<std::string> collector_names(std::size_t from, std::size_t to) {
  std::vector<std::string> out;
  for (std::size_t i = from; i < to; ++i) {
    std::string digits = std::to_string(i);
    out.push_back("collector-" + std::string(5 - std::min<std::size_t>(5, digits.size()), '0') + digits);
  }
  return out;
}

inline std::vector<allocation::StrategyCollector> strategy_collectors(const std::vector<std::string>& names) {
  std::vector<allocation::StrategyCollector> out;
  for (const auto& n : names) out.push_back({n, "", allocation::collector_seed(n)});
  return out;
}

// Runs `s` and returns each target's collector name ("" when unassigned).
inline std::vector<std::string> run(allocation::Strategy& s, const std::vector<allocation::StrategyTarget>& targets,
                                    const std::vector<std::string>& names,
                                    const std::vector<std::string>& previous = {}) {
  auto cols = strategy_collectors(names);
  std::vector<std::uint32_t> prev(targets.size(), allocation::kUnassigned), out;
  for (std::size_t i = 0; i < previous.size(); ++i) {
    auto it = std::find(names.begin(), names.end(), previous[i]);
    if (it != names.end()) prev[i] = static_cast<std::uint32_t>(it - names.begin());
  }
  s.assign(targets, cols, prev, out);
  std::vector<std::string> result(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) result[i] = out[i] == allocation::kUnassigned ? "" : names[out[i]];
  return result;
}

struct Balance {
  double max_over_avg = 0, min_over_avg = 0;
  std::size_t unassigned = 0;
};

inline Balance balance(const std::vector<std::string>& assigned, const std::vector<std::string>& names) {
  std::vector<std::size_t> load(names.size(), 0);
  Balance b;
  for (const auto& a : assigned) {
    auto it = std::lower_bound(names.begin(), names.end(), a);
    if (a.empty() || it == names.end() || *it != a) {
      ++b.unassigned;
      continue;
    }
    ++load[it - names.begin()];
  }
  const double avg = static_cast<double>(assigned.size()) / static_cast<double>(names.size());
  b.max_over_avg = static_cast<double>(*std::max_element(load.begin(), load.end())) / avg;
  b.min_over_avg = static_cast<double>(*std::min_element(load.begin(), load.end())) / avg;
  return b;
}

inline double moved_fraction(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::size_t moved = 0;
  for (std::size_t i = 0; i < a.size(); ++i) moved += a[i] != b[i];
  return static_cast<double>(moved) / static_cast<double>(a.size());
}

}  // namespace alloc_test
