#include "allocation/runtime/placements.hpp"

#include <algorithm>
#include <tuple>

namespace allocation::runtime {

void PlacementLedger::update(const Allocator& a, std::uint64_t seq, const std::string& cause) {
  auto stamp = std::make_shared<const std::string>(cause);
  std::unordered_map<std::string, Entry> next;
  next.reserve(a.targets().size());
  const auto targets = a.targets();
  for (std::uint32_t slot = 0; slot < targets.size(); ++slot) {
    const Target& t = targets[slot];
    std::string key = std::string(t.job.text()) + '\0' + std::string(t.address);
    if (next.count(key)) continue;
    const std::uint32_t c = a.collector_of(slot);
    std::string collector = c == kUnassigned ? std::string() : a.collectors()[c].name;
    Entry e;
    if (auto old = placed_.find(key); old != placed_.end() && old->second.collector == collector) {
      e = std::move(old->second);
    } else {
      e = Entry{std::string(t.job.text()), std::string(t.address), std::move(collector), seq, stamp};
    }
    next.emplace(std::move(key), std::move(e));
  }
  placed_ = std::move(next);
}

std::vector<Placement> PlacementLedger::list() const {
  std::vector<Placement> out;
  out.reserve(placed_.size());
  for (const auto& [key, e] : placed_) out.push_back(Placement{e.job, e.address, e.collector, e.seq, e.cause});
  std::sort(out.begin(), out.end(), [](const Placement& x, const Placement& y) {
    return std::tie(x.job, x.address) < std::tie(y.job, y.address);
  });
  return out;
}

}  // namespace allocation::runtime
