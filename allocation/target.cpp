#include "allocation/target.hpp"

#include <algorithm>

#include "allocation/hash.hpp"
#include "allocation/parallel.hpp"

namespace allocation {

bool make_target(Name job, const std::shared_ptr<const LabelSet>& group, const std::shared_ptr<const LabelSet>& own,
                 Target& out) {
  out.job = job;
  out.group = group;
  out.own = own;
  std::uint64_t address_hash = 0;
  if (own && !own->address().empty()) {
    out.address = own->address();
    address_hash = own->address_hash();
  } else if (group && !group->address().empty()) {
    out.address = group->address();
    address_hash = group->address_hash();
  } else {
    return false;
  }
  const std::uint64_t fp_own = own ? own->fingerprint() : 0, fp_group = group ? group->fingerprint() : 0;
  out.hash = hash_combine(hash_combine(job.hash(), fp_own), fp_group);
  out.labels_hash = out.hash;
  out.key = hash_combine(job.hash(), address_hash);
  return true;
}

std::uint64_t served_hash(const Target& t) {
  return t.hash == t.labels_hash ? t.hash : hash_combine(t.hash, t.labels_hash);
}

namespace {
// make_shared puts the reference count just before the set, and the set's
// fields span two lines: fetch all three, since copying the shared_ptr
// (a locked increment) stalls until its line arrives.
void prefetch_set(const LabelSet* s) {
  if (!s) return;
  const char* p = reinterpret_cast<const char*>(s);
  __builtin_prefetch(p - 16, 1);
  __builtin_prefetch(p);
  __builtin_prefetch(p + sizeof(LabelSet) - 1);
}

// Writes the items of `groups` to consecutive slots from `at`, leaving a
// default Target (no address) for each set without one; returns how many.
// Label sets are usually cold, and groups are often small (one per
// Endpoints object), so a second cursor runs kAhead sets ahead across group
// boundaries, prefetching each set and the next group's pointer array.
std::size_t fill_items(Name job, std::span<const TargetGroup> groups, Target* at, std::uint64_t group_order,
                       std::uint64_t stride) {
  constexpr std::size_t kAhead = 8;
  std::size_t pg = 0, pi = 0, holes = 0;
  if (!groups.empty()) __builtin_prefetch(groups[0].targets.data());
  if (groups.size() > 1) __builtin_prefetch(groups[1].targets.data());
  auto prefetch_next = [&] {
    while (pg < groups.size() && pi >= groups[pg].targets.size()) {
      ++pg, pi = 0;
      if (pg + 1 < groups.size()) __builtin_prefetch(groups[pg + 1].targets.data());
    }
    if (pg < groups.size()) prefetch_set(groups[pg].targets[pi++].get());
  };
  for (std::size_t k = 0; k < kAhead; ++k) prefetch_next();
  for (const auto& g : groups) {
    std::uint64_t order = group_order == kNoOrder ? 0 : group_order << kGroupOrderShift;
    if (group_order != kNoOrder) group_order += stride;
    for (const auto& own : g.targets) {
      prefetch_next();
      if (!make_target(job, g.labels, own, *at)) *at = Target{}, ++holes;
      at->order = group_order == kNoOrder ? 0 : order++;
      ++at;
    }
  }
  return holes;
}

}  // namespace

void append_targets(Name job, std::span<const TargetGroup> groups, TargetList& out, std::uint64_t group_order,
                    std::uint64_t group_stride) {
  const std::size_t base = out.size();
  std::size_t n = 0;
  for (const auto& g : groups) n += g.targets.size();
  out.resize(base + n);
  Target* at = out.data() + base;
  std::size_t holes = 0;
  if (n < kParallelMin || default_lanes() < 2) {
    holes = fill_items(job, groups, at, group_order, group_stride);
  } else {
    std::size_t split = 0, first_count = 0;
    while (split < groups.size() && first_count < n / 2) first_count += groups[split++].targets.size();
    std::size_t holes_second = 0;
    const std::uint64_t second_order = group_order == kNoOrder ? kNoOrder : group_order + split * group_stride;
    run_both(
        [&] { holes = fill_items(job, groups.first(split), at, group_order, group_stride); },
        [&] { holes_second = fill_items(job, groups.subspan(split), at + first_count, second_order, group_stride); });
    holes += holes_second;
  }
  if (holes == 0) return;
  auto first = out.begin() + static_cast<std::ptrdiff_t>(base);
  out.erase(std::remove_if(first, out.end(), [](const Target& t) { return t.address.empty(); }), out.end());
}

std::string_view target_node(const Target& t) {
  const Names& n = Names::get();
  for (Name name : {n.pod_node, n.node_name, n.endpoint_node}) {
    if (auto v = t.get(name); !v.empty()) return v;
  }
  if (t.get(n.slice_kind) == "Node") return t.get(n.slice_name);
  return {};
}

}  // namespace allocation
