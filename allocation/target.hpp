// Scrape targets: discovery output (target groups) and the target items the
// allocator assigns.
// Contract: a Target shares its label sets with the discovery output
// (shared_ptr, never copied), so an item costs a few words whatever its label
// count, and building one reads only the label sets' precomputed
// fingerprints. `hash` identifies the target: job + group labels + target
// labels (a label change is a different target, as upstream; the two label
// sets are hashed separately, so equal merged sets split differently between
// group and target are distinct targets). `key` places it (job + address:
// targets with one address in one job land together, and a label change
// alone does not move a target's preferences). `order` is the target's
// place in discovery order, for Allocator::update_targets (0 when unused).
// `labels_hash` is the discovered labels' hash, which `hash` starts as.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "allocation/labels.hpp"
#include "allocation/large_array.hpp"

namespace allocation {

// One discovery group: labels shared by its targets plus one label set per
// target (which must contain __address__).
struct TargetGroup {
  std::shared_ptr<const LabelSet> labels;  // may be null
  std::vector<std::shared_ptr<const LabelSet>> targets;
};

struct Target {
  Name job;
  std::shared_ptr<const LabelSet> group;  // may be null
  std::shared_ptr<const LabelSet> own;
  std::string_view address;  // points into `own` or `group`
  std::uint64_t hash = 0;
  std::uint64_t key = 0;
  // Discovery order, when the caller numbers targets (append_targets with a
  // group order): a full set of targets ordered by it is the order the
  // Allocator serves, which lets update_targets insert a new target in the
  // place a full reprocess would give it.
  std::uint64_t order = 0;
  // The discovered label sets' fingerprint (job + group + target labels).
  // `hash` starts equal to it; a relabeling filter replaces `hash` by the
  // final labels' identity, and this still tells a served-label change.
  std::uint64_t labels_hash = 0;

  std::string_view get(Name n) const {
    auto v = own ? own->get(n) : std::string_view();
    return v.empty() && group ? group->get(n) : v;
  }
};

// What a JobBucket's checksum sums per target: its identity and the labels
// it is served with, so a bucket's version changes when a target keeps its
// identity but carries new discovered labels.
std::uint64_t served_hash(const Target& t);

// Target items: one pass's array of up to millions of items (see
// large_array.hpp for why it has its own allocator).
using TargetList = std::vector<Target, LargeArrayAllocator<Target>>;

// Builds one target (nullopt-like: returns false when it has no address).
bool make_target(Name job, const std::shared_ptr<const LabelSet>& group, const std::shared_ptr<const LabelSet>& own,
                 Target& out);

// Appends the items of one job's groups to `out`, skipping label sets
// without __address__ (Prometheus drops those too). With a group order,
// target i of groups[g] gets order ((group_order + g) << kGroupOrderShift) | i;
// without, order stays 0. With a stride, groups[g] takes group_order +
// g * group_stride instead (gaps a later group can be numbered into).
inline constexpr unsigned kGroupOrderShift = 24;
inline constexpr std::uint64_t kNoOrder = ~std::uint64_t{0};
void append_targets(Name job, std::span<const TargetGroup> groups, TargetList& out,
                    std::uint64_t group_order = kNoOrder, std::uint64_t group_stride = 1);

// The node a target runs on, as upstream's per-node strategy reads it: the
// first of __meta_kubernetes_pod_node_name, __meta_kubernetes_node_name,
// __meta_kubernetes_endpoint_node_name, or the endpointslice target name
// when the target kind is Node. Empty when none.
std::string_view target_node(const Target& t);

}  // namespace allocation
