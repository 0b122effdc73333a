// Internal: constructors of the concrete strategies, used by make_strategy.
#pragma once

#include <memory>

#include "allocation/strategy.hpp"

namespace allocation {

std::unique_ptr<Strategy> make_consistent_hashing(double tolerance);
std::unique_ptr<Strategy> make_least_weighted(bool rebalance_on_scale_out);
std::unique_ptr<Strategy> make_per_node(std::unique_ptr<Strategy> fallback, bool fallback_for_uncovered_nodes);

}  // namespace allocation
