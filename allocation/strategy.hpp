// Allocation strategies, selected by upstream's config names:
// "consistent-hashing" (default), "least-weighted" and "per-node".
// Contract: assign() maps every target to an index into `collectors` or to
// kUnassigned. Inputs are only the eligible collectors. per-node is a pure
// function of the target keys and collector names (any input order gives
// the same mapping, so replicas agree). consistent-hashing is one too when
// no target has a previous collector (a fresh start); otherwise it keeps
// `previous` placements and moves only what balance requires, as
// least-weighted does: both are deterministic given the same sequence of
// calls, whatever the input order.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace allocation {

inline constexpr std::uint32_t kUnassigned = 0xffffffffu;

struct StrategyTarget {
  std::uint64_t key = 0;   // placement key (job + address)
  std::uint64_t hash = 0;  // identity; breaks ties between equal keys
  std::string_view node;   // only read by per-node
};

struct StrategyCollector {
  std::string_view name;
  std::string_view node;
  std::uint64_t seed = 0;  // collector_seed(name)
};

std::uint64_t collector_seed(std::string_view name);

struct StrategyConfig {
  std::string name = "consistent-hashing";
  // consistent-hashing: every collector's load stays within
  // [(1-tolerance)·avg, (1+tolerance)·avg] once avg is large enough that
  // the band holds at least one integer on each side; fresh placements aim
  // at half that band, leaving the rest to absorb later changes.
  double balance_tolerance = 0.05;
  // least-weighted: when a collector joins (holds no previous target),
  // move targets from the most loaded collectors until max-min <= 1.
  bool rebalance_on_scale_out = false;
  // per-node: strategy for targets without a node ("" leaves them unassigned,
  // as upstream v0.98 does).
  std::string fallback;
  // per-node with a fallback: a target on a node without an eligible
  // collector goes to the fallback too (our extension, key
  // allocation_fallback_for_nodes_without_collector; upstream leaves it
  // unassigned, so a Node the collectors do not run on is never scraped).
  bool fallback_for_nodes_without_collector = false;
  friend bool operator==(const StrategyConfig&, const StrategyConfig&) = default;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string_view name() const = 0;
  // `previous[i]` is target i's collector before this change (an index into
  // `collectors`, or kUnassigned). `out` is resized to targets.size().
  virtual void assign(std::span<const StrategyTarget> targets, std::span<const StrategyCollector> collectors,
                      std::span<const std::uint32_t> previous, std::vector<std::uint32_t>& out) = 0;
  // The incremental form of assign(): `added` are the only targets without
  // a previous collector among `total`, and every other target keeps its
  // previous collector, of which collector c holds loads[c]. Places `added`
  // and returns true when that is exactly what assign() would return for
  // the whole set; returns false otherwise (also when not implemented), and
  // the caller runs assign(). consistent-hashing implements it.
  virtual bool assign_added(std::span<const StrategyTarget> /*added*/, std::size_t /*total*/,
                            std::span<const StrategyCollector> /*collectors*/, std::span<const std::uint32_t> /*loads*/,
                            std::vector<std::uint32_t>& /*out*/) {
    return false;
  }
};

// Throws std::invalid_argument naming the field on an unknown name or a bad
// option.
std::unique_ptr<Strategy> make_strategy(const StrategyConfig& config);

// consistent-hashing's view of one placement key, for explanations: every
// collector (an index into `collectors`) ranked by its rendezvous score
// (best first, as the strategy ranks them), with its inner (placement) and
// outer (repair) load bounds for `targets` targets.
struct RankedCollector {
  std::uint32_t collector = 0, score = 0;
  std::uint32_t inner_lower = 0, inner_upper = 0, outer_lower = 0, outer_upper = 0;
};
std::vector<RankedCollector> consistent_hashing_ranks(std::uint64_t key, std::span<const StrategyCollector> collectors,
                                                      std::size_t targets, double tolerance);

}  // namespace allocation
