// consistent-hashing: rendezvous (highest-random-weight) preferences with a
// two-sided load band; a fresh stable matching into the inner band, then
// incremental changes that repair only outside the outer band. See
// allocation/README.md for the algorithm and its measured balance and churn.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "allocation/hash.hpp"
#include "allocation/parallel.hpp"
#include "allocation/rendezvous.hpp"
#include "allocation/strategy_impl.hpp"

namespace allocation {
namespace {

constexpr std::size_t kTopPrefs = 2;
// Fresh placements aim at this share of the tolerance; the rest of the band
// absorbs later changes without extra moves.
constexpr double kInnerShare = 0.5;

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

// Per-collector bounds: floor/ceil of (1±tolerance)·avg, with a per-collector
// rounding offset so that a small change of avg moves few bounds at once.
void compute_bounds(std::size_t targets, std::span<const StrategyCollector> collectors, double tolerance,
                    std::vector<std::uint32_t>& upper, std::vector<std::uint32_t>& lower) {
  const std::size_t n = collectors.size();
  const double avg = static_cast<double>(targets) / static_cast<double>(n);
  const auto lo_floor = static_cast<std::int64_t>(std::floor(avg));
  const auto hi_ceil = static_cast<std::int64_t>(std::ceil(avg));
  upper.resize(n);
  lower.resize(n);
  for (std::size_t c = 0; c < n; ++c) {
    double f = unit_interval(mix64(collectors[c].seed ^ 0x726f756e64ULL));
    auto up = static_cast<std::int64_t>(std::floor((1 + tolerance) * avg - f));
    auto lo = static_cast<std::int64_t>(std::ceil((1 - tolerance) * avg + f));
    upper[c] = static_cast<std::uint32_t>(std::max(up, hi_ceil));
    lower[c] = static_cast<std::uint32_t>(std::clamp<std::int64_t>(lo, 0, lo_floor));
  }
}

// A target's ranking of two collectors: higher score first, ties by seed.
bool ranks_before(std::uint32_t score_a, std::uint64_t seed_a, std::uint32_t score_b, std::uint64_t seed_b) {
  return score_a != score_b ? score_a > score_b : seed_a > seed_b;
}

class ConsistentHashing final : public Strategy {
 public:
  explicit ConsistentHashing(double tolerance) : tolerance_(tolerance) {}
  std::string_view name() const override { return "consistent-hashing"; }

  void assign(std::span<const StrategyTarget> targets, std::span<const StrategyCollector> collectors,
              std::span<const std::uint32_t> previous, std::vector<std::uint32_t>& out) override {
    out.assign(targets.size(), kUnassigned);
    if (collectors.empty() || targets.empty()) return;
    targets_ = targets;
    collectors_ = collectors;
    compute_bounds(targets.size(), collectors, tolerance_ * kInnerShare, upper_, lower_);
    compute_bounds(targets.size(), collectors, tolerance_, outer_upper_, outer_lower_);
    compute_prefs();
    load_.assign(collectors.size(), 0);
    const bool fresh = std::none_of(previous.begin(), previous.end(), [](auto p) { return p != kUnassigned; });
    if (!fresh) keep(previous, out);
    defer_acceptance(out);
    if (fresh) fill_deficits(out, lower_, false);
    evict_excess(out);
    fill_deficits(out, outer_lower_, true);
    extended_.clear();
  }

  // With every collector keeping a target (no joiner takes first-rank
  // targets in keep()), assign() places only the targets without a
  // collector, by deferred acceptance, then repairs nothing unless a load
  // leaves the outer band; deferred acceptance depends only on the unplaced
  // targets and the loads, so running it on `added` alone is exact.
  bool assign_added(std::span<const StrategyTarget> added, std::size_t total,
                    std::span<const StrategyCollector> collectors, std::span<const std::uint32_t> loads,
                    std::vector<std::uint32_t>& out) override {
    out.assign(added.size(), kUnassigned);
    if (collectors.empty() || std::find(loads.begin(), loads.end(), 0u) != loads.end()) return false;
    targets_ = added;
    collectors_ = collectors;
    compute_bounds(total, collectors, tolerance_ * kInnerShare, upper_, lower_);
    compute_bounds(total, collectors, tolerance_, outer_upper_, outer_lower_);
    compute_prefs();
    load_.assign(loads.begin(), loads.end());
    defer_acceptance(out);
    extended_.clear();
    if (std::find(out.begin(), out.end(), kUnassigned) != out.end()) return false;
    for (std::size_t c = 0; c < load_.size(); ++c)
      if (load_[c] > outer_upper_[c] || load_[c] < outer_lower_[c]) return false;
    return true;
  }

 private:
  Held held(std::uint32_t t, std::uint32_t c) const {
    return {score(fold(targets_[t].key), seeds_[c]), t, targets_[t].key, targets_[t].hash};
  }

  void place(std::vector<std::uint32_t>& out, std::uint32_t t, std::uint32_t c) {
    if (out[t] != kUnassigned) --load_[out[t]];
    out[t] = c;
    ++load_[c];
  }

  // Each target's two best collectors, best first.
  void compute_prefs() {
    const std::size_t n = collectors_.size(), count = targets_.size();
    width_ = std::min(kTopPrefs, n);
    seeds_.resize(n);
    for (std::size_t c = 0; c < n; ++c) seeds_[c] = fold(collectors_[c].seed);
    prefs_.resize(count * width_);
    if (n == 1) return std::fill(prefs_.begin(), prefs_.end(), 0u);
    // Scores are independent per target: the two halves run on two cores.
    // Ties need ranked(), which caches, so they are resolved afterwards.
    std::vector<std::uint32_t> tied[2];
    auto scores = [&](std::size_t from, std::size_t to, std::vector<std::uint32_t>& ties) {
      std::uint32_t keys[kLanes], first[kLanes], second[kLanes], ambiguous[kLanes];
      for (std::size_t base = from; base < to; base += kLanes) {
        const std::size_t lanes = std::min(kLanes, to - base);
        for (std::size_t l = 0; l < kLanes; ++l) keys[l] = fold(targets_[base + std::min(l, lanes - 1)].key);
        top_two(keys, seeds_.data(), n, first, second, ambiguous);
        for (std::size_t l = 0; l < lanes; ++l) {
          const auto t = static_cast<std::uint32_t>(base + l);
          if (ambiguous[l] != 0) ties.push_back(t);
          prefs_[t * width_] = first[l], prefs_[t * width_ + 1] = second[l];
        }
      }
    };
    if (count * n < kParallelMin * 64 || default_lanes() < 2) {
      scores(0, count, tied[0]);
    } else {
      const std::size_t mid = count / 2 / kLanes * kLanes;
      run_both([&] { scores(0, mid, tied[0]); }, [&] { scores(mid, count, tied[1]); });
    }
    for (const auto& ties : tied) {
      for (std::uint32_t t : ties) {
        for (std::size_t r = 0; r < width_; ++r) prefs_[t * width_ + r] = ranked(t, r);
      }
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
      std::partial_sort(e.order.begin() + static_cast<std::ptrdiff_t>(e.sorted),
                        e.order.begin() + static_cast<std::ptrdiff_t>(upto), e.order.end(),
                        [&](const auto& a, const auto& b) {
                          return ranks_before(a.first, collectors_[a.second].seed, b.first, collectors_[b.second].seed);
                        });
      e.sorted = upto;
    }
    return e.order[r].second;
  }

  std::uint32_t pref(std::uint32_t t, std::size_t r) { return r < width_ ? prefs_[t * width_ + r] : ranked(t, r); }

  // A placed target stays where it was, except that a collector holding
  // nothing (one that just joined) takes, best score first and up to its
  // inner upper bound, the targets that rank it first.
  void keep(std::span<const std::uint32_t> previous, std::vector<std::uint32_t>& out) {
    const std::size_t n = collectors_.size();
    std::vector<std::uint32_t> kept(n, 0);
    for (auto p : previous) {
      if (p != kUnassigned) ++kept[p];
    }
    std::vector<std::vector<Held>> joining(n);
    for (std::uint32_t t = 0; t < targets_.size(); ++t) {
      const std::uint32_t p = previous[t], first = prefs_[t * width_];
      if (p == kUnassigned) continue;
      if (kept[first] == 0) {
        joining[first].push_back(held(t, first));
      } else {
        place(out, t, p);
      }
    }
    for (std::uint32_t c = 0; c < n; ++c) {
      auto& h = joining[c];
      std::sort(h.begin(), h.end());  // best first
      for (std::size_t i = 0; i < h.size(); ++i) place(out, h[i].target, i < upper_[c] ? c : previous[h[i].target]);
    }
  }

  // Target-proposing deferred acceptance of the targets not placed yet, with
  // room upper_ - load: the unique target-optimal stable matching, whatever
  // the processing order. A collector ranks what it holds only once it must
  // choose: in the first round when more targets rank it first than it has
  // room for, later when a proposal reaches it full. Until then what it
  // holds is only counted (most never fill: building and ordering a list
  // per collector was most of this step).
  void defer_acceptance(std::vector<std::uint32_t>& out) {
    const std::size_t n = collectors_.size();
    DeferredAcceptance da;
    da.room.assign(n, 0);
    da.held.assign(n, 0);
    da.heaps.resize(n);
    da.proposing.assign(targets_.size(), 0);
    da.next.assign(targets_.size(), 1);
    for (std::size_t c = 0; c < n; ++c) da.room[c] = upper_[c] > load_[c] ? upper_[c] - load_[c] : 0;
    std::vector<std::uint32_t> demand(n, 0);
    for (std::uint32_t t = 0; t < targets_.size(); ++t) {
      if (out[t] != kUnassigned) continue;
      da.proposing[t] = 1;
      ++demand[prefs_[t * width_]];
    }
    for (std::uint32_t t = 0; t < targets_.size(); ++t) {
      if (!da.proposing[t]) continue;
      const std::uint32_t c = prefs_[t * width_];
      if (demand[c] > da.room[c]) {
        da.heaps[c].push_back(held(t, c));
      } else {
        place(out, t, c);
        ++da.held[c];
      }
    }
    for (std::uint32_t c = 0; c < n; ++c) {
      if (demand[c] > da.room[c]) first_choice(out, da, c);
    }
    while (!da.queue.empty()) {
      const std::uint32_t t = da.queue.back();
      da.queue.pop_back();
      const std::uint32_t c = pref(t, da.next[t]++);
      if (c == kUnassigned) continue;  // every collector full: impossible while sum(upper) >= T
      propose(out, da, t, c);
    }
  }

  struct DeferredAcceptance {
    std::vector<std::uint32_t> room, held, next, queue;
    std::vector<std::uint8_t> proposing;  // unplaced when it began
    // Worst on top; empty until c must choose, and c is full from then on:
    // every later proposal to it displaces one target.
    std::vector<std::vector<Held>> heaps;
  };

  // Collector c, wanted first by more targets than its room, keeps the
  // best of them; the others propose again.
  void first_choice(std::vector<std::uint32_t>& out, DeferredAcceptance& da, std::uint32_t c) {
    auto& h = da.heaps[c];
    const std::uint32_t room = da.room[c];
    std::nth_element(h.begin(), h.begin() + room, h.end());  // best `room` first
    for (auto it = h.begin() + room; it != h.end(); ++it) da.queue.push_back(it->target);
    h.resize(room);
    std::make_heap(h.begin(), h.end());
    for (const Held& x : h) place(out, x.target, c);
    da.held[c] = room;
  }

  // Target t proposes to c: held while c has room, else c keeps the better
  // of t and the worst it holds, and the other proposes again.
  void propose(std::vector<std::uint32_t>& out, DeferredAcceptance& da, std::uint32_t t, std::uint32_t c) {
    if (da.room[c] == 0) return da.queue.push_back(t);
    auto& h = da.heaps[c];
    if (da.held[c] < da.room[c]) {  // never true once c has a heap (see heaps)
      place(out, t, c);
      ++da.held[c];
      return;
    }
    if (h.empty()) {
      for (std::uint32_t x = 0; x < targets_.size(); ++x) {
        if (da.proposing[x] && out[x] == c) h.push_back(held(x, c));
      }
      std::make_heap(h.begin(), h.end());
    }
    h.push_back(held(t, c));
    std::push_heap(h.begin(), h.end());
    std::pop_heap(h.begin(), h.end());
    const std::uint32_t loser = h.back().target;
    h.pop_back();
    if (loser != t) {
      --load_[c];
      out[loser] = kUnassigned;
      place(out, t, c);
    }
    da.queue.push_back(loser);
  }

  // Collectors above their outer upper bound give up their worst targets,
  // which go to their best-ranked collector below its inner upper bound.
  void evict_excess(std::vector<std::uint32_t>& out) {
    std::vector<std::vector<Held>> over(collectors_.size());
    for (std::uint32_t t = 0; t < targets_.size(); ++t) {
      const std::uint32_t c = out[t];
      if (c != kUnassigned && load_[c] > outer_upper_[c]) over[c].push_back(held(t, c));
    }
    std::vector<Held> evicted;
    for (std::uint32_t c = 0; c < over.size(); ++c) {
      auto& h = over[c];
      if (h.empty()) continue;
      const std::size_t keep = outer_upper_[c];
      std::nth_element(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(keep), h.end());
      evicted.insert(evicted.end(), h.begin() + static_cast<std::ptrdiff_t>(keep), h.end());
    }
    std::sort(evicted.begin(), evicted.end(),
              [](const Held& a, const Held& b) { return a.key != b.key ? a.key < b.key : a.hash < b.hash; });
    for (const auto& e : evicted) {
      const std::uint32_t from = out[e.target];
      for (std::size_t r = 0;; ++r) {
        const std::uint32_t c = pref(e.target, r);
        if (c == kUnassigned) break;  // unreachable: sum(upper) >= T leaves room somewhere
        if (c != from && load_[c] < upper_[c]) {
          place(out, e.target, c);
          break;
        }
      }
    }
  }

  // Collectors below `floor` take their best-ranked targets among those that
  // list them in their top two, from collectors above their inner lower
  // bound, in collector-seed order. With `exhaustive`, any target of a
  // collector above its `floor` is a candidate when that is not enough.
  void fill_deficits(std::vector<std::uint32_t>& out, const std::vector<std::uint32_t>& floor, bool exhaustive) {
    std::vector<std::uint32_t> short_of, slot(collectors_.size(), kUnassigned);
    for (std::uint32_t c = 0; c < load_.size(); ++c) {
      if (load_[c] < floor[c]) slot[c] = static_cast<std::uint32_t>(short_of.size()), short_of.push_back(c);
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
      take_best(out, c, cand[slot[c]], floor, lower_);
      if (!exhaustive || load_[c] >= floor[c]) continue;
      std::vector<Held> all;
      for (std::uint32_t t = 0; t < targets_.size(); ++t) {
        if (out[t] != c) all.push_back(held(t, c));
      }
      take_best(out, c, all, floor, floor);
    }
  }

  // Moves targets of `list` (best first) to c until it reaches floor[c],
  // from donors that stay at or above donor_floor.
  void take_best(std::vector<std::uint32_t>& out, std::uint32_t c, std::vector<Held>& list,
                 const std::vector<std::uint32_t>& floor, const std::vector<std::uint32_t>& donor_floor) {
    // Best first, ordered only as far as it is read: a deficit is a few
    // targets, the list a collector's second choices (a full sort was most
    // of fill_deficits).
    const auto better_on_top = [](const Held& a, const Held& b) { return b < a; };
    std::make_heap(list.begin(), list.end(), better_on_top);
    for (auto end = list.end(); end != list.begin() && load_[c] < floor[c]; --end) {
      std::pop_heap(list.begin(), end, better_on_top);
      const Held& h = end[-1];
      const std::uint32_t d = out[h.target];
      if (d == kUnassigned || d == c || load_[d] <= donor_floor[d]) continue;
      place(out, h.target, c);
    }
  }

  double tolerance_;
  std::span<const StrategyTarget> targets_;
  std::span<const StrategyCollector> collectors_;
  std::vector<std::uint32_t> seeds_, upper_, lower_, outer_upper_, outer_lower_, prefs_, load_;
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

std::vector<RankedCollector> consistent_hashing_ranks(std::uint64_t key, std::span<const StrategyCollector> collectors,
                                                      std::size_t targets, double tolerance) {
  std::vector<RankedCollector> out(collectors.size());
  if (collectors.empty()) return out;
  std::vector<std::uint32_t> upper, lower, outer_upper, outer_lower;
  compute_bounds(targets, collectors, tolerance * kInnerShare, upper, lower);
  compute_bounds(targets, collectors, tolerance, outer_upper, outer_lower);
  for (std::uint32_t c = 0; c < collectors.size(); ++c)
    out[c] = {c, score(fold(key), fold(collectors[c].seed)), lower[c], upper[c], outer_lower[c], outer_upper[c]};
  std::sort(out.begin(), out.end(), [&](const RankedCollector& a, const RankedCollector& b) {
    return ranks_before(a.score, collectors[a.collector].seed, b.score, collectors[b.collector].seed);
  });
  return out;
}

}  // namespace allocation
