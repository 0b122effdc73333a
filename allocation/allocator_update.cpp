// Allocator::update_targets: a change of the target set applied to the
// assignment and the index in place, with the result set_targets() of the
// whole new set would give. The plan is made (and may refuse) before
// anything changes; the commit then edits slots, the hash table and only
// the buckets the change touches.
#include <algorithm>
#include <map>

#include "allocation/allocator.hpp"

namespace allocation {

struct Allocator::Update {
  std::vector<std::uint64_t> removed;                             // sorted, unique
  std::vector<std::uint64_t> added;                               // sorted hashes of `added`
  std::vector<std::uint32_t> gone;                                // slots removed for good, sorted
  std::vector<std::pair<std::uint32_t, std::uint32_t>> replaced;  // (slot, index in added)
  std::vector<std::uint32_t> fresh, fresh_collector;              // index in added, collector
  // Touched buckets, by (collector, job id): contents before the change,
  // and the edit (entries to drop, by position; (order, slot) to add).
  struct Edit {
    bool existed = false;
    std::uint64_t checksum = 0;
    std::size_t size = 0;
    std::vector<std::size_t> drops;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> adds;
  };
  std::map<std::pair<std::uint32_t, std::uint32_t>, Edit> touched;
  bool pending(std::uint64_t hash) const { return std::binary_search(added.begin(), added.end(), hash); }
};

namespace {

JobBucket* find_bucket(std::vector<JobBucket>& buckets, Name job) {
  auto b = std::lower_bound(buckets.begin(), buckets.end(), job, [](const JobBucket& x, Name j) { return x.job < j; });
  return b != buckets.end() && b->job == job ? &*b : nullptr;
}

// Where a target of this order sits (or goes) in a bucket sorted by order.
std::size_t entry_of(const JobBucket& b, std::uint64_t order) {
  return static_cast<std::size_t>(std::lower_bound(b.orders.begin(), b.orders.end(), order) - b.orders.begin());
}

// Buffers reused by the bucket rewrites of one update.
struct BucketScratch {
  std::vector<std::uint32_t> targets;
  std::vector<std::uint64_t> orders;
};

// Applies an edit to a bucket in one pass (an erase or insert per entry
// would move the bucket's tail each time), recording it as the bucket's
// delta from its previous layout. `into` is scratch space. The entries
// between two changes are copied as one run: a bucket holds thousands of
// entries and an update touches a few of them.
void rewrite_bucket(JobBucket& b, BucketScratch& into, std::vector<std::size_t>& drops,
                    std::vector<std::pair<std::uint64_t, std::uint32_t>>& adds, std::uint64_t layout) {
  std::sort(drops.begin(), drops.end());
  drops.erase(std::unique(drops.begin(), drops.end()), drops.end());
  std::sort(adds.begin(), adds.end());
  const std::size_t n = b.targets.size(), m = n - drops.size() + adds.size();
  into.targets.resize(m), into.orders.resize(m);
  b.previous_layout = b.layout, b.layout = layout;
  b.dropped.assign(drops.begin(), drops.end());
  b.inserted.clear();
  const auto orders = b.orders.begin();
  std::size_t d = 0, a = 0, i = 0, out = 0;
  for (;;) {
    // An added entry goes before the first entry of a greater order.
    std::size_t stop = d < drops.size() ? drops[d] : n;
    if (a < adds.size())
      stop = static_cast<std::size_t>(std::upper_bound(orders + i, orders + stop, adds[a].first) - orders);
    std::copy(b.targets.begin() + i, b.targets.begin() + stop, into.targets.begin() + out);
    std::copy(orders + i, orders + stop, into.orders.begin() + out);
    out += stop - i, i = stop;
    for (; a < adds.size() && (i == n || adds[a].first < b.orders[i]); ++a, ++out) {
      b.inserted.push_back(static_cast<std::uint32_t>(out));
      into.targets[out] = adds[a].second, into.orders[out] = adds[a].first;
    }
    if (i == n) break;
    if (d < drops.size() && drops[d] == i) ++d, ++i;
  }
  std::swap(b.targets, into.targets);
  std::swap(b.orders, into.orders);
}

}  // namespace

bool Allocator::update_targets(std::span<const std::uint64_t> removed, TargetList added) {
  Update u;
  if (!plan_update(removed, added, u)) return false;
  commit_update(u, added);
  return true;
}

bool Allocator::plan_update(std::span<const std::uint64_t> removed, const TargetList& added, Update& u) const {
  if (!incremental_ || unassigned_ != 0 || targets_.empty()) return false;
  u.removed.assign(removed.begin(), removed.end());
  std::sort(u.removed.begin(), u.removed.end());
  u.removed.erase(std::unique(u.removed.begin(), u.removed.end()), u.removed.end());
  for (const auto& t : added) u.added.push_back(t.hash);
  std::sort(u.added.begin(), u.added.end());
  if (std::adjacent_find(u.added.begin(), u.added.end()) != u.added.end()) return false;
  // Each lookup is a cache miss in a table of every target: issue them ahead.
  constexpr std::size_t kAhead = 8;
  for (std::size_t i = 0; i < std::min(kAhead, u.removed.size()); ++i) slot_of_hash_.prefetch(u.removed[i]);
  for (std::size_t i = 0; i < u.removed.size(); ++i) {
    const std::uint64_t h = u.removed[i];
    if (i + kAhead < u.removed.size()) slot_of_hash_.prefetch(u.removed[i + kAhead]);
    const std::uint32_t slot = slot_of_hash_.find(h);
    if (slot == FlatIndex::kNone) return false;
    if (!u.pending(h)) u.gone.push_back(slot);
  }
  for (std::size_t i = 0; i < std::min(kAhead, added.size()); ++i) slot_of_hash_.prefetch(added[i].hash);
  for (std::uint32_t i = 0; i < added.size(); ++i) {
    if (i + kAhead < added.size()) slot_of_hash_.prefetch(added[i + kAhead].hash);
    const std::uint32_t slot = slot_of_hash_.find(added[i].hash);
    if (slot == FlatIndex::kNone) {
      u.fresh.push_back(i);
    } else if (std::binary_search(u.removed.begin(), u.removed.end(), added[i].hash)) {
      u.replaced.emplace_back(slot, i);
    } else {
      return false;  // already present: a duplicate, which set_targets would drop
    }
  }
  const std::size_t total = targets_.size() - u.gone.size() + u.fresh.size();
  if (total == 0 || total > slot_of_hash_.room()) return false;
  // Loads once the removed targets are gone, over the eligible collectors.
  std::vector<StrategyCollector> live;
  std::vector<std::uint32_t> to_global, loads, to_live(collectors_.size(), kUnassigned);
  for (std::uint32_t c = 0; c < collectors_.size(); ++c) {
    if (!eligible_[c]) continue;
    to_live[c] = static_cast<std::uint32_t>(live.size());
    to_global.push_back(c);
    live.push_back({collectors_[c].name, collectors_[c].node, seeds_[c]});
    loads.push_back(static_cast<std::uint32_t>(load(c)));
  }
  for (std::uint32_t slot : u.gone) --loads[to_live[assigned_[slot]]];
  std::vector<StrategyTarget> fresh(u.fresh.size());
  for (std::size_t k = 0; k < fresh.size(); ++k) fresh[k] = {added[u.fresh[k]].key, added[u.fresh[k]].hash, {}};
  std::vector<std::uint32_t> out;
  if (!strategy_->assign_added(fresh, total, live, loads, out)) return false;
  for (std::uint32_t c : out) u.fresh_collector.push_back(to_global[c]);
  std::sort(u.gone.begin(), u.gone.end());
  return true;
}

void Allocator::commit_update(Update& u, TargetList& added) {
  // 1. Note where the leaving and the replaced targets sit in their buckets
  // (the entries go when the buckets are rewritten, in step 3).
  auto take_out = [&](std::uint32_t slot) {
    const Target& t = targets_[slot];
    const std::uint32_t c = assigned_[slot];
    JobBucket* b = find_bucket(index_[c], t.job);
    auto [it, first] = u.touched.try_emplace({c, t.job.id()});
    if (first) it->second.existed = true, it->second.checksum = b->checksum, it->second.size = b->targets.size();
    b->checksum -= served_hash(t);
    it->second.drops.push_back(entry_of(*b, t.order));
  };
  for (std::uint32_t slot : u.gone) take_out(slot);
  for (const auto& [slot, i] : u.replaced) take_out(slot);
  // Every job the change touches serves new bytes (a replaced target keeps
  // its hash, hence its job, but may carry new labels).
  const std::uint64_t stamp = next_job_stamp();
  for (std::uint32_t slot : u.gone) job_stamps_[targets_[slot].job.id()] = stamp;
  for (const auto& [slot, i] : u.replaced) job_stamps_[targets_[slot].job.id()] = stamp;
  for (std::uint32_t i : u.fresh) job_stamps_[added[i].job.id()] = stamp;
  // 2. Slots: replacements in place, new targets into the freed slots.
  for (std::uint32_t slot : u.gone) {
    auto& count = job_counts_[targets_[slot].job.id()];
    if (--count == 0) job_counts_.erase(targets_[slot].job.id());
    slot_of_hash_.erase(targets_[slot].hash);
  }
  for (const auto& [slot, i] : u.replaced) targets_[slot] = std::move(added[i]);
  std::size_t next_hole = 0;
  for (std::size_t k = 0; k < u.fresh.size(); ++k) {
    Target& t = added[u.fresh[k]];
    if (++job_counts_[t.job.id()] == 1) {
      // Still listed when the update removed all its old targets (fill_holes
      // drops the jobs left empty).
      auto at = std::lower_bound(jobs_.begin(), jobs_.end(), t.job, [](Name a, Name b) { return a.text() < b.text(); });
      if (at == jobs_.end() || !(*at == t.job)) jobs_.insert(at, t.job);
    }
    std::uint32_t slot = static_cast<std::uint32_t>(targets_.size());
    if (next_hole < u.gone.size()) {
      slot = u.gone[next_hole++];
      targets_[slot] = std::move(t);
      assigned_[slot] = u.fresh_collector[k];
    } else {
      targets_.push_back(std::move(t));
      assigned_.push_back(u.fresh_collector[k]);
    }
    slot_of_hash_.insert(targets_[slot].hash, slot);
  }
  u.gone.erase(u.gone.begin(), u.gone.begin() + static_cast<std::ptrdiff_t>(next_hole));
  fill_holes(u);
  apply_bucket_changes(u);
}

// Slots freed and not reused are filled from the end, so targets() stays
// dense; a moved target's bucket entry follows it.
void Allocator::fill_holes(Update& u) {
  std::size_t first = 0, last = u.gone.size();  // holes not yet filled: gone[first, last)
  while (first < last) {
    const auto end = static_cast<std::uint32_t>(targets_.size() - 1);
    if (u.gone[last - 1] == end) {
      --last;
    } else {
      const std::uint32_t hole = u.gone[first++];
      targets_[hole] = std::move(targets_[end]);
      assigned_[hole] = assigned_[end];
      slot_of_hash_.assign(targets_[hole].hash, hole);
      if (!u.pending(targets_[hole].hash)) {
        JobBucket* b = find_bucket(index_[assigned_[hole]], targets_[hole].job);
        b->targets[entry_of(*b, targets_[hole].order)] = hole;
      }
    }
    targets_.pop_back();
    assigned_.pop_back();
  }
  for (auto it = jobs_.begin(); it != jobs_.end();) it = job_counts_.count(it->id()) ? it + 1 : jobs_.erase(it);
}

// 3. Rewrites the touched buckets (drops out, added targets in by order),
// then versions them as rebuild_index() would: in (collector, job) order, a
// new number unless checksum and size are unchanged.
void Allocator::apply_bucket_changes(Update& u) {
  for (std::uint64_t h : u.added) {
    const std::uint32_t slot = slot_of_hash_.find(h);
    u.touched[{assigned_[slot], targets_[slot].job.id()}].adds.emplace_back(targets_[slot].order, slot);
  }
  BucketScratch scratch;
  bool changed = false;
  for (auto& [where, edit] : u.touched) {
    auto& buckets = index_[where.first];
    auto b = std::lower_bound(buckets.begin(), buckets.end(), where.second,
                              [](const JobBucket& x, std::uint32_t id) { return x.job.id() < id; });
    if (b == buckets.end() || b->job.id() != where.second)
      b = buckets.insert(b, JobBucket{targets_[edit.adds.front().second].job});
    for (const auto& [order, slot] : edit.adds) b->checksum += served_hash(targets_[slot]);
    rewrite_bucket(*b, scratch, edit.drops, edit.adds, next_job_stamp());
    if (b->targets.empty()) {
      buckets.erase(b);
      changed = true;
      continue;
    }
    const bool same = edit.existed && edit.checksum == b->checksum && edit.size == b->targets.size();
    if (!same) b->version = ++version_counter_, changed = true;
  }
  slots_ordered_ = false;
  if (changed) ++generation_;
}

}  // namespace allocation
