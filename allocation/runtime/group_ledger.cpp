// GroupLedger: orders for the targets State lists, and each source's
// identities at the last reallocate.
#include "allocation/runtime/group_ledger.hpp"

#include <algorithm>

namespace allocation::runtime {

namespace {

constexpr std::uint64_t kNumbers = std::uint64_t{1} << GroupLedger::kNumberBits;
constexpr std::uint64_t kIndexes = std::uint64_t{1} << GroupLedger::kIndexBits;
constexpr std::uint64_t kSegments = std::uint64_t{1} << GroupLedger::kSegmentBits;

// The group_order append_targets takes for group `number` of `segment`.
std::uint64_t group_base(std::uint32_t segment, std::uint64_t number) {
  return (std::uint64_t{segment} << GroupLedger::kNumberBits) | number;
}

}  // namespace

void GroupLedger::clear() {
  segments_.clear();
  segment_of_.clear();
  pending_.clear();
  invalid_ = 0;
  ok_ = true;
}

std::uint32_t GroupLedger::add_segment(const std::string& id, bool keyed) {
  const auto s = static_cast<std::uint32_t>(segments_.size());
  if (s + 1 >= kSegments) ok_ = false;
  segments_.emplace_back().keyed = keyed;
  segment_of_[id] = s;
  return s;
}

std::optional<std::uint32_t> GroupLedger::segment(const std::string& id) const {
  auto it = segment_of_.find(id);
  if (it == segment_of_.end()) return std::nullopt;
  return it->second;
}

// Whether `numbers` group numbers and these groups' sizes fit their fields.
// The targets are appended either way (a full pass needs them all).
bool GroupLedger::fits(std::uint64_t numbers, const std::vector<TargetGroup>& groups) {
  bool fit = numbers < kNumbers;
  for (const auto& g : groups) fit &= g.targets.size() < kIndexes;
  ok_ &= fit;
  return fit;
}

void GroupLedger::take(Group& g, std::vector<std::uint64_t>& removed) {
  removed.insert(removed.end(), g.hashes.begin(), g.hashes.end());
  invalid_ -= g.invalid;
  g.hashes.clear();
  g.invalid = 0;
}

void GroupLedger::replace_whole(std::uint32_t segment, Name job, const std::vector<TargetGroup>& groups,
                                TargetList& out, std::vector<std::uint64_t>& removed) {
  Segment& s = segments_[segment];
  take(s.whole, removed);
  fits(groups.size(), groups);
  for (std::uint64_t g = 0; g < groups.size(); ++g) pending_.push_back({group_base(segment, g), &s.whole});
  append_targets(job, groups, out, group_base(segment, 0));
}

void GroupLedger::append_static(std::uint32_t segment, const TargetList& targets, TargetList& out) {
  Segment& s = segments_[segment];
  if (targets.size() >= kIndexes) ok_ = false;
  pending_.push_back({group_base(segment, 0), &s.whole});
  const std::uint64_t base = group_base(segment, 0) << kIndexBits;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    out.push_back(targets[i]);
    out.back().order = base | i;
  }
}

// Numbers (r + 1) * gap leave room before the first group, between any
// two, and after the last.
void GroupLedger::append_keyed(std::uint32_t segment, Name job, const std::vector<std::string>& keys,
                               const std::vector<TargetGroup>& groups, TargetList& out) {
  Segment& s = segments_[segment];
  const std::uint64_t gap = std::max<std::uint64_t>(1, kNumbers / (groups.size() + 1));
  fits(groups.size() + 1, groups);
  for (std::size_t r = 0; r < groups.size(); ++r) {
    Group& g = s.groups.emplace_hint(s.groups.end(), keys[r], Group{})->second;
    g.number = (r + 1) * gap;
    pending_.push_back({group_base(segment, g.number), &g});
  }
  append_targets(job, groups, out, group_base(segment, gap), gap);
}

bool GroupLedger::replace_keyed(std::uint32_t segment, Name job, const std::string& key, const TargetGroup* group,
                                TargetList& out, std::vector<std::uint64_t>& removed) {
  Segment& s = segments_[segment];
  auto it = s.groups.lower_bound(key);
  const bool known = it != s.groups.end() && it->first == key;
  if (known) take(it->second, removed);
  if (!group || group->targets.empty()) {
    if (known) s.groups.erase(it);
    return true;
  }
  if (group->targets.size() >= kIndexes) return false;
  if (!known) {
    // Strictly between the neighbours' numbers.
    const std::uint64_t low = it == s.groups.begin() ? 0 : std::prev(it)->second.number + 1;
    const std::uint64_t high = it == s.groups.end() ? kNumbers : it->second.number;
    if (low >= high) return false;
    it = s.groups.emplace_hint(it, key, Group{});
    it->second.number = low + (high - low) / 2;
  }
  pending_.push_back({group_base(segment, it->second.number), &it->second});
  append_targets(job, std::span<const TargetGroup>(group, 1), out, group_base(segment, it->second.number));
  return true;
}

// Both lists are in order, as are the pending groups: one merge each.
void GroupLedger::record(const TargetList& kept, const std::vector<std::uint64_t>& invalid_orders) {
  auto attribute = [this](auto begin, auto end, auto order_of, auto add) {
    std::size_t p = 0;
    for (auto i = begin; i != end; ++i) {
      const std::uint64_t base = order_of(*i) >> kIndexBits;
      while (p < pending_.size() && pending_[p].base < base) ++p;
      if (p == pending_.size() || pending_[p].base != base) {
        ok_ = false;  // not a target this ledger numbered
        return;
      }
      add(*pending_[p].group, *i);
    }
  };
  attribute(
      kept.begin(), kept.end(), [](const Target& t) { return t.order; },
      [](Group& g, const Target& t) { g.hashes.push_back(t.hash); });
  attribute(
      invalid_orders.begin(), invalid_orders.end(), [](std::uint64_t o) { return o; },
      [this](Group& g, std::uint64_t) { ++g.invalid, ++invalid_; });
  pending_.clear();
}

}  // namespace allocation::runtime
