#include "allocation/runtime/placements.hpp"

#include <algorithm>
#include <tuple>

namespace allocation::runtime {

void PlacementLedger::update(const Allocator& a, std::uint64_t seq, const std::string& cause) {
  const std::uint64_t now = ++updates_;
  std::shared_ptr<const std::string> stamp;
  auto next = std::make_shared<Placements>();
  next->reserve(a.targets().size());
  const auto targets = a.targets();
  for (std::uint32_t slot = 0; slot < targets.size(); ++slot) {
    const Target& t = targets[slot];
    scratch_.assign(t.job.text());
    scratch_.push_back('\0');
    scratch_.append(t.address);
    auto it = placed_.find(std::string_view(scratch_));
    if (it != placed_.end() && it->second.seen == now) continue;  // a duplicate of one seen already
    const std::uint32_t c = a.collector_of(slot);
    std::string_view collector = c == kUnassigned ? std::string_view() : std::string_view(a.collectors()[c].name);
    if (it != placed_.end() && it->second.placement->collector == collector) {
      it->second.seen = now;
      next->push_back(it->second.placement);
      continue;
    }
    if (!stamp) stamp = std::make_shared<const std::string>(cause);
    auto p = std::make_shared<const Placement>(
        Placement{scratch_, std::string(t.job.text()), std::string(t.address), std::string(collector), seq, stamp});
    if (it != placed_.end()) placed_.erase(it);  // its key views the old Placement's id
    placed_.emplace(std::string_view(p->id), Slot{p, now});
    next->push_back(std::move(p));
  }
  std::erase_if(placed_, [now](const auto& entry) { return entry.second.seen != now; });
  snapshot_ = std::move(next);
}

Placements sorted(const Placements& placements) {
  Placements out = placements;
  std::sort(out.begin(), out.end(), [](const PlacementPtr& x, const PlacementPtr& y) {
    return std::tie(x->job, x->address) < std::tie(y->job, y->address);
  });
  return out;
}

}  // namespace allocation::runtime
