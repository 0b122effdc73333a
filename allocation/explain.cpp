// explain_target: the strategy's ranking and bounds for one target.
#include "allocation/explain.hpp"

#include <sstream>

namespace allocation {

namespace {

struct Eligible {
  std::vector<StrategyCollector> collectors;
  std::vector<std::uint32_t> global;  // index into allocator.collectors()
};

Eligible eligible_collectors(const Allocator& a) {
  Eligible e;
  for (std::uint32_t c = 0; c < a.collectors().size(); ++c) {
    if (!a.eligible(c)) continue;
    const Collector& col = a.collectors()[c];
    e.collectors.push_back({col.name, col.node, collector_seed(col.name)});
    e.global.push_back(c);
  }
  return e;
}

void consistent_hashing(const Allocator& a, const StrategyConfig& cfg, const Target& t, std::ostringstream& out) {
  const Eligible e = eligible_collectors(a);
  const auto ranks = consistent_hashing_ranks(t.key, e.collectors, a.targets().size(), cfg.balance_tolerance);
  out << "ranked collectors (rendezvous score, best first), with load and bounds "
         "[inner lower, inner upper] / [outer lower, outer upper] for "
      << a.targets().size() << " targets:\n";
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const auto& rc = ranks[r];
    const std::uint32_t c = e.global[rc.collector];
    out << "  " << r + 1 << ". " << a.collectors()[c].name << " score " << rc.score << " load " << a.load(c) << " ["
        << rc.inner_lower << ", " << rc.inner_upper << "] / [" << rc.outer_lower << ", " << rc.outer_upper << "]\n";
  }
}

void by_load(const Allocator& a, std::ostringstream& out) {
  out << "eligible collectors and their loads:\n";
  for (std::uint32_t c = 0; c < a.collectors().size(); ++c)
    if (a.eligible(c)) out << "  " << a.collectors()[c].name << " load " << a.load(c) << "\n";
}

}  // namespace

std::optional<Explanation> explain_target(const Allocator& a, const StrategyConfig& strategy, std::string_view job,
                                          std::string_view address) {
  const auto targets = a.targets();
  // The first in discovery order: after Allocator::update_targets, slots
  // are not in that order, Target::order is.
  std::uint32_t slot = static_cast<std::uint32_t>(targets.size());
  for (std::uint32_t s = 0; s < targets.size(); ++s) {
    if (targets[s].job.text() != job || targets[s].address != address) continue;
    if (slot == targets.size() || targets[s].order < targets[slot].order) slot = s;
  }
  if (slot == targets.size()) return std::nullopt;
  const Target& t = targets[slot];
  Explanation ex{std::string(job), std::string(address), "", ""};
  const std::uint32_t c = a.collector_of(slot);
  if (c != kUnassigned) ex.collector = a.collectors()[c].name;
  std::ostringstream out;
  out << "target " << job << "/" << address << " is on "
      << (ex.collector.empty() ? std::string("no collector (unassigned)") : ex.collector) << "\n";
  out << "strategy " << a.strategy_name() << ", " << targets.size() << " targets, " << a.unassigned()
      << " unassigned\n";
  if (a.strategy_name() == "consistent-hashing") {
    consistent_hashing(a, strategy, t, out);
  } else {
    if (a.strategy_name() == "per-node") {
      const std::string_view node = target_node(t);
      out << "node: " << (node.empty() ? std::string("(none; the fallback strategy places it)") : std::string(node))
          << "\n";
    }
    by_load(a, out);
  }
  ex.text = out.str();
  return ex;
}

}  // namespace allocation
