// per-node: a target goes to a collector on its own node (rendezvous among
// them when a node runs several); targets without a node go to the
// fallback strategy, or stay unassigned without one. Targets on a node
// without an eligible collector stay unassigned, as upstream, unless
// `uncovered` sends them to the fallback as well.
#include <unordered_map>

#include "allocation/hash.hpp"
#include "allocation/strategy_impl.hpp"

namespace allocation {
namespace {

class PerNode final : public Strategy {
 public:
  PerNode(std::unique_ptr<Strategy> fallback, bool uncovered) : fallback_(std::move(fallback)), uncovered_(uncovered) {}
  std::string_view name() const override { return "per-node"; }

  void assign(std::span<const StrategyTarget> targets, std::span<const StrategyCollector> collectors,
              std::span<const std::uint32_t> previous, std::vector<std::uint32_t>& out) override {
    out.assign(targets.size(), kUnassigned);
    std::unordered_map<std::string_view, std::vector<std::uint32_t>> on_node;
    for (std::uint32_t c = 0; c < collectors.size(); ++c) {
      if (!collectors[c].node.empty()) on_node[collectors[c].node].push_back(c);
    }
    std::vector<std::uint32_t> nodeless;
    for (std::uint32_t t = 0; t < targets.size(); ++t) {
      if (targets[t].node.empty()) {
        nodeless.push_back(t);
        continue;
      }
      auto it = on_node.find(targets[t].node);
      if (it != on_node.end())
        out[t] = best(targets[t].key, it->second, collectors);
      else if (uncovered_)
        nodeless.push_back(t);
    }
    if (fallback_ && !nodeless.empty()) assign_fallback(nodeless, targets, collectors, previous, out);
  }

 private:
  static std::uint32_t best(std::uint64_t key, const std::vector<std::uint32_t>& candidates,
                            std::span<const StrategyCollector> collectors) {
    std::uint32_t win = candidates.front();
    std::uint64_t win_score = mix64(key ^ collectors[win].seed);
    for (auto c : candidates) {
      const std::uint64_t s = mix64(key ^ collectors[c].seed);
      if (s > win_score || (s == win_score && collectors[c].seed > collectors[win].seed)) {
        win = c;
        win_score = s;
      }
    }
    return win;
  }

  void assign_fallback(const std::vector<std::uint32_t>& nodeless, std::span<const StrategyTarget> targets,
                       std::span<const StrategyCollector> collectors, std::span<const std::uint32_t> previous,
                       std::vector<std::uint32_t>& out) {
    std::vector<StrategyTarget> sub;
    std::vector<std::uint32_t> sub_prev, sub_out;
    sub.reserve(nodeless.size());
    sub_prev.reserve(nodeless.size());
    for (auto t : nodeless) {
      sub.push_back(targets[t]);
      sub_prev.push_back(t < previous.size() ? previous[t] : kUnassigned);
    }
    fallback_->assign(sub, collectors, sub_prev, sub_out);
    for (std::size_t i = 0; i < nodeless.size(); ++i) out[nodeless[i]] = sub_out[i];
  }

  std::unique_ptr<Strategy> fallback_;
  bool uncovered_;
};

}  // namespace

std::unique_ptr<Strategy> make_per_node(std::unique_ptr<Strategy> fallback, bool fallback_for_uncovered_nodes) {
  return std::make_unique<PerNode>(std::move(fallback), fallback_for_uncovered_nodes);
}

}  // namespace allocation
