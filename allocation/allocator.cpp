#include "allocation/allocator.hpp"

#include <algorithm>
#include <atomic>

namespace allocation {

// Shared by every Allocator, so stamps never repeat between instances.
std::uint64_t Allocator::next_job_stamp() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

Allocator::Allocator(std::unique_ptr<Strategy> strategy, AllocatorOptions options, const Clock& clock)
    : strategy_(std::move(strategy)), options_(options), clock_(clock) {}

void Allocator::set_collectors(std::vector<Collector> collectors) {
  std::stable_sort(collectors.begin(), collectors.end(),
                   [](const Collector& a, const Collector& b) { return a.name < b.name; });
  collectors.erase(std::unique(collectors.begin(), collectors.end(),
                               [](const Collector& a, const Collector& b) { return a.name == b.name; }),
                   collectors.end());
  // Carry assignments and index buckets over to the new collector indices.
  std::vector<std::uint32_t> remap(collectors_.size(), kUnassigned);
  std::vector<std::vector<JobBucket>> index(collectors.size());
  for (std::uint32_t c = 0; c < collectors.size(); ++c) {
    if (auto it = by_name_.find(collectors[c].name); it != by_name_.end()) {
      remap[it->second] = c;
      index[c] = std::move(index_[it->second]);
    }
  }
  for (auto& a : assigned_) a = a == kUnassigned ? a : remap[a];
  collectors_ = std::move(collectors);
  index_ = std::move(index);
  by_name_.clear();
  seeds_.clear();
  for (std::uint32_t c = 0; c < collectors_.size(); ++c) {
    by_name_.emplace(collectors_[c].name, c);
    seeds_.push_back(collector_seed(collectors_[c].name));
  }
  evaluate_eligibility();
  previous_ = assigned_;
  reassign();
}

void Allocator::set_targets(TargetList targets) {
  // Group by job (stable, so a strategy sees the caller's order within a job).
  auto by_job = [](const Target& a, const Target& b) { return a.job < b.job; };
  if (!std::is_sorted(targets.begin(), targets.end(), by_job)) {
    std::stable_sort(targets.begin(), targets.end(), by_job);
  }
  // One pass over the targets drops duplicates, looks up previous
  // placements, counts jobs and copies what the strategy reads: at 800k
  // targets each pass is 70 MB read from memory.
  FlatIndex seen(targets.size());
  std::vector<std::uint32_t> previous;
  previous.reserve(targets.size());
  StrategyTargets strategy;
  strategy.reserve(targets.size());  // not sized: zeroing it first was a pass of its own
  const bool wants_node = strategy_->name() == "per-node";
  JobTally jobs{jobs_, job_counts_};
  std::size_t kept = 0;
  bool ordered = true;  // orders increase within each job (update_targets needs it)
  constexpr std::size_t kAhead = 8;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (i + kAhead < targets.size()) {
      seen.prefetch(targets[i + kAhead].hash);
      slot_of_hash_.prefetch(targets[i + kAhead].hash);
    }
    if (seen.insert(targets[i].hash, static_cast<std::uint32_t>(kept)) != kept) continue;  // duplicate
    const std::uint32_t old = slot_of_hash_.find(targets[i].hash);
    previous.push_back(old == FlatIndex::kNone ? kUnassigned : assigned_[old]);
    if (kept != i) targets[kept] = std::move(targets[i]);
    const Target& t = targets[kept];
    strategy.push_back({t.key, t.hash, wants_node ? target_node(t) : std::string_view()});
    jobs.add(t.job);
    ordered &= kept == 0 || !(targets[kept - 1].job == t.job) || targets[kept - 1].order < t.order;
    ++kept;
  }
  jobs.finish();
  incremental_ = ordered && kept == targets.size();
  targets.resize(kept);
  targets_ = std::move(targets);
  slots_ordered_ = true;
  slot_of_hash_ = std::move(seen);
  previous_ = std::move(previous);
  reassign(std::move(strategy));
}

void Allocator::JobTally::add(Name job) {
  if (!jobs.empty() && jobs.back() == job) {
    ++run;
    return;
  }
  if (!jobs.empty()) counts[jobs.back().id()] += run;
  jobs.push_back(job);
  run = 1;
}

void Allocator::JobTally::finish() {
  if (!jobs.empty()) counts[jobs.back().id()] += run;
  std::sort(jobs.begin(), jobs.end(), [](Name a, Name b) { return a.text() < b.text(); });
  jobs.erase(std::unique(jobs.begin(), jobs.end()), jobs.end());
}

void Allocator::refresh() {
  auto before = eligible_;
  evaluate_eligibility();
  if (before == eligible_) return;
  previous_ = assigned_;
  reassign();
}

std::optional<TimePoint> Allocator::next_refresh() const {
  std::optional<TimePoint> next;
  const TimePoint now = clock_.now();
  for (const auto& c : collectors_) {
    if (!c.ready || allocation::eligible(c, now, options_.ready_grace)) continue;
    const TimePoint at = c.ready_since + std::chrono::duration_cast<TimePoint::duration>(options_.ready_grace);
    if (!next || at < *next) next = at;
  }
  return next;
}

std::size_t Allocator::job_size(Name job) const {
  auto it = job_counts_.find(job.id());
  return it == job_counts_.end() ? 0 : it->second;
}

std::uint64_t Allocator::job_stamp(Name job) const {
  auto it = job_stamps_.find(job.id());
  return it == job_stamps_.end() ? stamp_all_ : it->second;
}

std::size_t Allocator::load(std::uint32_t collector) const {
  std::size_t n = 0;
  for (const auto& b : index_[collector]) n += b.targets.size();
  return n;
}

const JobBucket* Allocator::bucket(std::string_view collector, Name job) const {
  auto it = by_name_.find(collector);
  if (it == by_name_.end()) return nullptr;
  const auto& buckets = index_[it->second];
  auto b = std::lower_bound(buckets.begin(), buckets.end(), job, [](const JobBucket& x, Name j) { return x.job < j; });
  return b != buckets.end() && b->job == job ? &*b : nullptr;
}

std::span<const std::uint32_t> Allocator::targets_for(std::string_view collector, Name job) const {
  const JobBucket* b = bucket(collector, job);
  return b ? std::span<const std::uint32_t>(b->targets) : std::span<const std::uint32_t>();
}

void Allocator::evaluate_eligibility() {
  const TimePoint now = clock_.now();
  eligible_.assign(collectors_.size(), 0);
  for (std::size_t c = 0; c < collectors_.size(); ++c) {
    eligible_[c] = allocation::eligible(collectors_[c], now, options_.ready_grace) ? 1 : 0;
  }
}

Allocator::StrategyTargets Allocator::strategy_targets() const {
  const bool wants_node = strategy_->name() == "per-node";
  StrategyTargets out(targets_.size());
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    out[i].key = targets_[i].key;
    out[i].hash = targets_[i].hash;
    if (wants_node) out[i].node = target_node(targets_[i]);
  }
  return out;
}

void Allocator::reassign() {
  reassign(strategy_targets());
}

void Allocator::reassign(StrategyTargets strategy) {
  std::vector<StrategyCollector> live;
  std::vector<std::uint32_t> to_live(collectors_.size(), kUnassigned), to_global;
  for (std::uint32_t c = 0; c < collectors_.size(); ++c) {
    if (!eligible_[c]) continue;
    to_live[c] = static_cast<std::uint32_t>(live.size());
    to_global.push_back(c);
    live.push_back({collectors_[c].name, collectors_[c].node, seeds_[c]});
  }
  for (auto& p : previous_) p = p == kUnassigned ? p : to_live[p];
  std::vector<std::uint32_t> out;
  strategy_->assign(strategy, live, previous_, out);
  previous_.clear();
  previous_.shrink_to_fit();
  assigned_.resize(out.size());
  unassigned_ = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    assigned_[i] = out[i] == kUnassigned ? kUnassigned : to_global[out[i]];
    unassigned_ += out[i] == kUnassigned;
  }
  stamp_all_ = next_job_stamp();
  job_stamps_.clear();
  rebuild_index();
}

// After update_targets slots are neither grouped by job nor in discovery
// order: a job's runs of slots made several buckets, and Target::order,
// not the slot, is the order to serve.
void Allocator::merge_runs(std::vector<JobBucket>& buckets) const {
  std::size_t out = 0;
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    if (out > 0 && buckets[out - 1].job == buckets[i].job) {
      auto& into = buckets[out - 1];
      into.targets.insert(into.targets.end(), buckets[i].targets.begin(), buckets[i].targets.end());
      into.checksum += buckets[i].checksum;
    } else if (out++ != i) {
      buckets[out - 1] = std::move(buckets[i]);
    }
  }
  buckets.resize(out);
  for (auto& b : buckets) {
    std::sort(b.targets.begin(), b.targets.end(),
              [&](std::uint32_t x, std::uint32_t y) { return targets_[x].order < targets_[y].order; });
    b.orders.clear();
    for (std::uint32_t slot : b.targets) b.orders.push_back(targets_[slot].order);
  }
}

void Allocator::rebuild_index() {
  std::vector<std::vector<JobBucket>> index(collectors_.size());
  for (std::uint32_t slot = 0; slot < targets_.size(); ++slot) {
    const std::uint32_t c = assigned_[slot];
    if (c == kUnassigned) continue;
    auto& buckets = index[c];
    if (buckets.empty() || !(buckets.back().job == targets_[slot].job)) buckets.push_back({targets_[slot].job});
    buckets.back().targets.push_back(slot);
    if (incremental_) buckets.back().orders.push_back(targets_[slot].order);
    buckets.back().checksum += served_hash(targets_[slot]);
  }
  for (auto& buckets : index)
    for (auto& b : buckets) b.layout = next_job_stamp();
  bool changed = false;
  for (std::size_t c = 0; c < index.size(); ++c) {
    auto& fresh = index[c];
    std::sort(fresh.begin(), fresh.end(), [](const JobBucket& a, const JobBucket& b) { return a.job < b.job; });
    if (!slots_ordered_) merge_runs(fresh);
    const auto& old = index_[c];
    changed |= fresh.size() != old.size();
    for (auto& b : fresh) {
      auto o = std::lower_bound(old.begin(), old.end(), b.job, [](const JobBucket& x, Name j) { return x.job < j; });
      const bool same =
          o != old.end() && o->job == b.job && o->checksum == b.checksum && o->targets.size() == b.targets.size();
      b.version = same ? o->version : ++version_counter_;
      changed |= !same;
    }
  }
  index_ = std::move(index);
  if (changed) ++generation_;
}

}  // namespace allocation
