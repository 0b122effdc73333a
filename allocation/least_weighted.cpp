// least-weighted: each unplaced target goes to the collector holding the
// fewest targets (ties: lowest collector seed), existing placements stay.
// With rebalance_on_scale_out, a collector that joins empty gets targets
// moved from the most loaded collectors until max-min <= 1.
#include <algorithm>
#include <queue>
#include <tuple>

#include "allocation/strategy_impl.hpp"

namespace allocation {
namespace {

class LeastWeighted final : public Strategy {
 public:
  explicit LeastWeighted(bool rebalance) : rebalance_(rebalance) {}
  std::string_view name() const override { return "least-weighted"; }

  void assign(std::span<const StrategyTarget> targets, std::span<const StrategyCollector> collectors,
              std::span<const std::uint32_t> previous, std::vector<std::uint32_t>& out) override {
    out.assign(targets.size(), kUnassigned);
    if (collectors.empty()) return;
    std::vector<std::uint32_t> load(collectors.size(), 0), pending;
    for (std::uint32_t t = 0; t < targets.size(); ++t) {
      const std::uint32_t p = t < previous.size() ? previous[t] : kUnassigned;
      if (p < collectors.size()) {
        out[t] = p;
        ++load[p];
      } else {
        pending.push_back(t);
      }
    }
    const bool joined = std::find(load.begin(), load.end(), 0u) != load.end();
    std::sort(pending.begin(), pending.end(), [&](std::uint32_t a, std::uint32_t b) {
      return targets[a].hash != targets[b].hash ? targets[a].hash < targets[b].hash : a < b;
    });
    place(pending, collectors, load, out);
    if (rebalance_ && joined) rebalance(targets, collectors, load, out);
  }

 private:
  static void place(const std::vector<std::uint32_t>& pending, std::span<const StrategyCollector> collectors,
                    std::vector<std::uint32_t>& load, std::vector<std::uint32_t>& out) {
    using Entry = std::tuple<std::uint32_t, std::uint64_t, std::uint32_t>;  // load, seed, index
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
    for (std::uint32_t c = 0; c < collectors.size(); ++c) heap.emplace(load[c], collectors[c].seed, c);
    for (auto t : pending) {
      auto [l, seed, c] = heap.top();
      heap.pop();
      out[t] = c;
      load[c] = l + 1;
      heap.emplace(l + 1, seed, c);
    }
  }

  // Moves the fewest targets that make every load floor(T/N) or ceil(T/N);
  // the collectors already holding the most keep the ceil shares.
  static void rebalance(std::span<const StrategyTarget> targets, std::span<const StrategyCollector> collectors,
                        std::vector<std::uint32_t>& load, std::vector<std::uint32_t>& out) {
    const std::size_t n = collectors.size();
    std::vector<std::uint32_t> order(n);
    for (std::uint32_t c = 0; c < n; ++c) order[c] = c;
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return load[a] != load[b] ? load[a] > load[b] : collectors[a].seed < collectors[b].seed;
    });
    std::size_t total = 0;
    for (auto l : load) total += l;
    std::vector<std::uint32_t> want(n);
    for (std::size_t i = 0; i < n; ++i) want[order[i]] = total / n + (i < total % n ? 1 : 0);
    std::vector<std::vector<std::uint32_t>> held(n);
    for (std::uint32_t t = 0; t < out.size(); ++t) {
      if (out[t] != kUnassigned) held[out[t]].push_back(t);
    }
    std::vector<std::uint32_t> pool;
    for (std::uint32_t c = 0; c < n; ++c) {
      auto& h = held[c];
      std::sort(h.begin(), h.end(), [&](auto a, auto b) { return targets[a].hash < targets[b].hash; });
      for (; load[c] > want[c]; --load[c]) {
        pool.push_back(h.back());
        h.pop_back();
      }
    }
    for (std::size_t i = n; i-- > 0 && !pool.empty();) {
      const std::uint32_t c = order[i];
      for (; load[c] < want[c] && !pool.empty(); ++load[c]) {
        out[pool.back()] = c;
        pool.pop_back();
      }
    }
  }

  bool rebalance_;
};

}  // namespace

std::unique_ptr<Strategy> make_least_weighted(bool rebalance_on_scale_out) {
  return std::make_unique<LeastWeighted>(rebalance_on_scale_out);
}

}  // namespace allocation
