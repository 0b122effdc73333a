#include "allocation/target.hpp"

#include <algorithm>

#include "allocation/hash.hpp"

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
  out.key = hash_combine(job.hash(), address_hash);
  return true;
}

void append_targets(Name job, std::span<const TargetGroup> groups, std::vector<Target>& out) {
  std::size_t n = out.size();
  for (const auto& g : groups) n += g.targets.size();
  out.reserve(n);
  Target t;
  for (const auto& g : groups) {
    constexpr std::size_t kAhead = 8;  // label sets are usually cold: prefetch
    for (std::size_t i = 0; i < std::min(kAhead, g.targets.size()); ++i) __builtin_prefetch(g.targets[i].get());
    for (std::size_t i = 0; i < g.targets.size(); ++i) {
      if (i + kAhead < g.targets.size()) __builtin_prefetch(g.targets[i + kAhead].get());
      if (make_target(job, g.labels, g.targets[i], t)) out.push_back(std::move(t));
    }
  }
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
