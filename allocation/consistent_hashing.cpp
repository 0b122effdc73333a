// consistent-hashing: rendezvous (highest-random-weight) preferences with a
// two-sided load band. See allocation/README.md for the algorithm and its
// measured balance and churn.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "allocation/hash.hpp"
#include "allocation/strategy_impl.hpp"

namespace allocation {
namespace {

constexpr std::size_t kTopPrefs = 2;
constexpr std::size_t kLanes = 16;

inline std::uint32_t fold(std::uint64_t x) {
  return static_cast<std::uint32_t>(x ^ (x >> 32));
}

// The rendezvous score of (target, collector): a 32-bit mix, so a row of
// scores vectorises (8 or 16 lanes). Ties are broken by the 64-bit seed.
inline std::uint32_t score(std::uint32_t key, std::uint32_t seed) {
  std::uint32_t x = key ^ seed;
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// The indices of the two best collectors for `key`, or false when a tie or
// a zero score makes this fast path ambiguous (the caller then ranks
// exactly). Lane-wise top two first (GCC vectorises the lane loop: 8 or 16
// lanes; a lane flags any equality), then a merge of the lanes.
__attribute__((target_clones("avx512f", "avx2", "default"), optimize("O3"))) bool top_two(
    std::uint32_t key, const std::uint32_t* __restrict seeds, std::size_t n, std::size_t padded,
    std::uint32_t* __restrict best) {
  std::uint32_t b1[kLanes] = {}, b2[kLanes] = {}, i1[kLanes] = {}, i2[kLanes] = {}, tie[kLanes] = {};
  for (std::size_t base = 0; base < padded; base += kLanes) {
    for (std::size_t l = 0; l < kLanes; ++l) {
      const auto c = static_cast<std::uint32_t>(base + l);
      const std::uint32_t real = c < n ? 1u : 0u;
      const std::uint32_t x = score(key, seeds[c]) & (0u - real);  // padding lanes score 0
      tie[l] |= real & ((x == b1[l]) | (x == b2[l]));
      const std::uint32_t top = x > b1[l] ? ~0u : 0u, second = x > b2[l] ? ~0u : 0u;
      i2[l] = (top & i1[l]) | (~top & ((second & c) | (~second & i2[l])));
      b2[l] = std::max(b2[l], std::min(b1[l], x));
      i1[l] = (top & c) | (~top & i1[l]);
      b1[l] = std::max(b1[l], x);
    }
  }
  std::size_t lead = 0;
  std::uint32_t ties = 0;
  for (std::size_t l = 0; l < kLanes; ++l) {
    lead = b1[l] > b1[lead] ? l : lead;
    ties |= tie[l];
  }
  const std::uint32_t v1 = b1[lead];
  std::uint32_t v2 = b2[lead], j2 = i2[lead], equal_v1 = 0, equal_v2 = 0;
  for (std::size_t l = 0; l < kLanes; ++l) {
    if (l == lead) continue;
    equal_v1 += b1[l] == v1;
    if (b1[l] > v2) v2 = b1[l], j2 = i1[l];
  }
  // Second-best candidates: the leading lane's b2 and the other lanes' b1.
  for (std::size_t l = 0; l < kLanes; ++l) equal_v2 += (l == lead ? b2[l] : b1[l]) == v2;
  best[0] = i1[lead];
  best[1] = j2;
  return ties == 0 && equal_v1 == 0 && equal_v2 == 1 && v2 != 0;
}

// Collector-side ranking of a held target: higher score, then key, then hash.
struct Held {
  std::uint32_t score, target;
  std::uint64_t key, hash;
  // Heap order: the worst held target is on top.
  bool operator<(const Held& o) const {
    if (score != o.score) return score > o.score;
    if (key != o.key) return key > o.key;
    return hash > o.hash;
  }
};

class ConsistentHashing final : public Strategy {
 public:
  explicit ConsistentHashing(double tolerance) : tolerance_(tolerance) {}
  std::string_view name() const override { return "consistent-hashing"; }

  void assign(std::span<const StrategyTarget> targets, std::span<const StrategyCollector> collectors,
              std::span<const std::uint32_t>, std::vector<std::uint32_t>& out) override {
    out.assign(targets.size(), kUnassigned);
    if (collectors.empty() || targets.empty()) return;
    targets_ = targets;
    collectors_ = collectors;
    compute_bounds();
    compute_prefs();
    defer_acceptance(out);
    fill_deficits(out);
    extended_.clear();
  }

 private:
  Held held(std::uint32_t t, std::uint32_t c) const {
    return {score(fold(targets_[t].key), seeds_[c]), t, targets_[t].key, targets_[t].hash};
  }

  // Per-collector bounds: floor/ceil of (1±tolerance)·avg, with a per-collector
  // rounding offset so that a small change of avg moves few bounds at once.
  void compute_bounds() {
    const std::size_t n = collectors_.size();
    const double avg = static_cast<double>(targets_.size()) / static_cast<double>(n);
    const auto lo_floor = static_cast<std::int64_t>(std::floor(avg));
    const auto hi_ceil = static_cast<std::int64_t>(std::ceil(avg));
    upper_.resize(n);
    lower_.resize(n);
    for (std::size_t c = 0; c < n; ++c) {
      double f = unit_interval(mix64(collectors_[c].seed ^ 0x726f756e64ULL));
      auto up = static_cast<std::int64_t>(std::floor((1 + tolerance_) * avg - f));
      auto lo = static_cast<std::int64_t>(std::ceil((1 - tolerance_) * avg + f));
      upper_[c] = static_cast<std::uint32_t>(std::max(up, hi_ceil));
      lower_[c] = static_cast<std::uint32_t>(std::clamp<std::int64_t>(lo, 0, lo_floor));
    }
  }

  // Each target's two best collectors, best first.
  void compute_prefs() {
    const std::size_t n = collectors_.size();
    const std::size_t padded = (n + kLanes - 1) / kLanes * kLanes;
    width_ = std::min(kTopPrefs, n);
    seeds_.assign(padded, 0);
    for (std::size_t c = 0; c < n; ++c) seeds_[c] = fold(collectors_[c].seed);
    prefs_.resize(targets_.size() * width_);
    for (std::uint32_t t = 0; t < targets_.size(); ++t) {
      std::uint32_t* p = &prefs_[t * width_];
      if (n == 1) {
        p[0] = 0;
        continue;
      }
      if (top_two(fold(targets_[t].key), seeds_.data(), n, padded, p)) continue;
      for (std::size_t r = 0; r < width_; ++r) p[r] = ranked(t, r);
    }
  }

  // Target t's collectors ranked exactly (ties by seed), sorted lazily: only
  // as deep as rank r. Cached for the rest of this assign().
  std::uint32_t ranked(std::uint32_t t, std::size_t r) {
    auto [it, fresh] = extended_.try_emplace(t);
    auto& e = it->second;
    if (fresh) {
      const std::uint32_t key = fold(targets_[t].key);
      e.order.reserve(collectors_.size());
      for (std::uint32_t c = 0; c < collectors_.size(); ++c) e.order.emplace_back(score(key, seeds_[c]), c);
    }
    if (r >= e.order.size()) return kUnassigned;
    if (r >= e.sorted) {
      const std::size_t upto = std::min(e.order.size(), std::max<std::size_t>(8, 2 * (r + 1)));
      std::partial_sort(
          e.order.begin() + static_cast<std::ptrdiff_t>(e.sorted), e.order.begin() + static_cast<std::ptrdiff_t>(upto),
          e.order.end(), [&](const auto& a, const auto& b) {
            return a.first != b.first ? a.first > b.first : collectors_[a.second].seed > collectors_[b.second].seed;
          });
      e.sorted = upto;
    }
    return e.order[r].second;
  }

  std::uint32_t pref(std::uint32_t t, std::size_t r) { return r < width_ ? prefs_[t * width_ + r] : ranked(t, r); }

  // Target-proposing deferred acceptance with upper bounds: the unique
  // target-optimal stable matching, whatever the processing order. The first
  // round is done in bulk (bucket by first choice, keep the best `upper`),
  // later proposals go through per-collector heaps (worst held on top).
  void defer_acceptance(std::vector<std::uint32_t>& out) {
    const std::size_t n = collectors_.size();
    std::vector<std::vector<Held>> held_by(n);
    std::vector<std::uint32_t> count(n, 0), next(targets_.size(), 1), queue;
    for (std::uint32_t t = 0; t < targets_.size(); ++t) ++count[prefs_[t * width_]];
    for (std::size_t c = 0; c < n; ++c) held_by[c].reserve(std::max(count[c], upper_[c]) + 1);
    for (std::uint32_t t = 0; t < targets_.size(); ++t) {
      const std::uint32_t c = prefs_[t * width_];
      held_by[c].push_back(held(t, c));
    }
    for (std::size_t c = 0; c < n; ++c) {
      auto& h = held_by[c];
      if (h.size() > upper_[c]) {
        std::nth_element(h.begin(), h.begin() + upper_[c], h.end());  // best `upper` first
        for (auto it = h.begin() + upper_[c]; it != h.end(); ++it) queue.push_back(it->target);
        h.resize(upper_[c]);
      }
      std::make_heap(h.begin(), h.end());
    }
    while (!queue.empty()) {
      const std::uint32_t t = queue.back();
      queue.pop_back();
      const std::uint32_t c = pref(t, next[t]++);
      if (c == kUnassigned) continue;  // every collector full: impossible while sum(upper) >= T
      auto& h = held_by[c];
      h.push_back(held(t, c));
      std::push_heap(h.begin(), h.end());
      if (h.size() > upper_[c]) {
        std::pop_heap(h.begin(), h.end());
        queue.push_back(h.back().target);
        h.pop_back();
      }
    }
    for (std::uint32_t c = 0; c < n; ++c) {
      for (const auto& h : held_by[c]) out[h.target] = c;
    }
  }

  // Collectors below their lower bound take their best-ranked targets
  // (among targets that list them second) from collectors above their own
  // lower bound, in collector-seed order.
  void fill_deficits(std::vector<std::uint32_t>& out) {
    std::vector<std::uint32_t> load(collectors_.size(), 0);
    for (auto c : out) load[c] += c != kUnassigned;
    std::vector<std::uint32_t> short_of, slot(collectors_.size(), kUnassigned);
    for (std::uint32_t c = 0; c < load.size(); ++c) {
      if (load[c] < lower_[c]) slot[c] = static_cast<std::uint32_t>(short_of.size()), short_of.push_back(c);
    }
    if (short_of.empty()) return;
    std::vector<std::vector<Held>> cand(short_of.size());
    for (std::uint32_t t = 0; t < targets_.size(); ++t) {
      for (std::size_t r = 0; r < width_; ++r) {
        const std::uint32_t c = prefs_[t * width_ + r];
        if (c != out[t] && slot[c] != kUnassigned) cand[slot[c]].push_back(held(t, c));
      }
    }
    std::sort(short_of.begin(), short_of.end(),
              [&](std::uint32_t a, std::uint32_t b) { return collectors_[a].seed < collectors_[b].seed; });
    for (auto c : short_of) {
      auto& list = cand[slot[c]];
      std::sort(list.begin(), list.end());  // best first
      for (const auto& h : list) {
        if (load[c] >= lower_[c]) break;
        const std::uint32_t d = out[h.target];
        if (d == kUnassigned || d == c || load[d] <= lower_[d]) continue;
        out[h.target] = c;
        --load[d];
        ++load[c];
      }
    }
  }

  double tolerance_;
  std::span<const StrategyTarget> targets_;
  std::span<const StrategyCollector> collectors_;
  std::vector<std::uint32_t> seeds_, upper_, lower_, prefs_;
  std::size_t width_ = 0;
  struct Extended {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> order;  // (score, collector)
    std::size_t sorted = 0;
  };
  std::unordered_map<std::uint32_t, Extended> extended_;
};

}  // namespace

std::unique_ptr<Strategy> make_consistent_hashing(double tolerance) {
  return std::make_unique<ConsistentHashing>(tolerance);
}

}  // namespace allocation
