#include <stdexcept>

#include "allocation/hash.hpp"
#include "allocation/strategy_impl.hpp"

namespace allocation {

std::uint64_t collector_seed(std::string_view name) {
  return hash_bytes(name, 0x636f6c6c6563746fULL);
}

std::unique_ptr<Strategy> make_strategy(const StrategyConfig& config) {
  if (config.name == "consistent-hashing") {
    if (!(config.balance_tolerance > 0 && config.balance_tolerance < 1)) {
      throw std::invalid_argument("balance_tolerance: must be greater than 0 and less than 1");
    }
    return make_consistent_hashing(config.balance_tolerance);
  }
  if (config.name == "least-weighted") return make_least_weighted(config.rebalance_on_scale_out);
  if (config.name == "per-node") {
    std::unique_ptr<Strategy> fallback;
    if (config.fallback == "per-node") {
      throw std::invalid_argument("allocation_fallback_strategy: per-node cannot be its own fallback");
    }
    if (!config.fallback.empty()) {
      StrategyConfig sub = config;
      sub.name = config.fallback;
      try {
        fallback = make_strategy(sub);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("allocation_fallback_strategy: " + std::string(e.what()));
      }
    }
    return make_per_node(std::move(fallback), config.fallback_for_nodes_without_collector);
  }
  throw std::invalid_argument("allocation_strategy: unknown strategy \"" + config.name +
                              "\" (expected consistent-hashing, least-weighted or per-node)");
}

}  // namespace allocation
