// Why a target sits on its collector, for `target-allocator replay
// --explain JOB/ADDRESS`: the collector it is on, every eligible collector
// ranked as the strategy ranks them for this target, each with its load
// and load bounds (consistent-hashing), and the loads (least-weighted) or
// the target's node (per-node).
// Contract: pure; reads the Allocator as it stands. nullopt when no target
// of `job` has `address`. Several targets may share job and address (they
// differ in labels); they share a placement key and are explained once.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "allocation/allocator.hpp"

namespace allocation {

struct Explanation {
  std::string job, address, collector;  // collector "" = unassigned
  std::string text;                     // the explanation, one fact per line
};

std::optional<Explanation> explain_target(const Allocator& allocator, const StrategyConfig& strategy,
                                          std::string_view job, std::string_view address);

}  // namespace allocation
