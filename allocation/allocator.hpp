// The allocator's state: targets, collectors, the strategy's assignment and
// a per-collector, per-job index of it.
// Contract: single-threaded (the server wraps it in a lock). After every
// mutation the index is complete: bucket(collector, job) answers "targets of
// job J held by collector C" with two lookups and no scan, and a bucket's
// version changes exactly when its contents change (which targets, or the
// discovered labels one of them is served with), so cached responses can
// be keyed on it together with instance(). Only eligible collectors (Ready for at least the grace
// period, evaluated at clock.now()) receive targets; targets that arrive
// before any eligible collector are kept and assigned when one appears.
// update_targets() applies a change of the target set without reprocessing
// the rest, with exactly the result set_targets() of the whole new set
// would give (buckets, their order and versions, the generation), or
// refuses; targets() is then no longer in discovery order (buckets are).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "allocation/collector.hpp"
#include "allocation/flat_index.hpp"
#include "allocation/strategy.hpp"
#include "allocation/target.hpp"

namespace allocation {

struct AllocatorOptions {
  std::chrono::nanoseconds ready_grace{0};
};

struct JobBucket {
  Name job;
  std::vector<std::uint32_t> targets;  // slots into Allocator::targets()
  // Target::order of each entry, kept only when update_targets may run: its
  // searches then stay inside the bucket instead of reading cold targets.
  std::vector<std::uint64_t> orders;
  std::uint64_t checksum = 0;  // sum of the targets' served_hash()
  std::uint64_t version = 0;   // unique per distinct contents
  // Unique in the process per arrangement of entries: a new one whenever
  // the entries change, even when the version stays.
  std::uint64_t layout = 0;
  // When update_targets made this arrangement from `previous_layout` (0
  // otherwise): the positions it dropped from that one and the positions
  // of the entries it added in this one, both sorted. Every other entry is
  // the same target with the same labels, in the same relative order, so a
  // body built for `previous_layout` can be reused around the changes.
  std::uint64_t previous_layout = 0;
  std::vector<std::uint32_t> dropped, inserted;
};

class Allocator {
 public:
  Allocator(std::unique_ptr<Strategy> strategy, AllocatorOptions options, const Clock& clock);

  std::string_view strategy_name() const { return strategy_->name(); }
  // Replaces the collector set (names are unique; later duplicates ignored).
  void set_collectors(std::vector<Collector> collectors);
  // Replaces the whole target set; equal hashes are one target (the first
  // in input order is kept).
  void set_targets(TargetList targets);
  // The same result as set_targets(S'), where S' is the current set without
  // the targets whose hashes are in `removed`, plus `added`, in `order`
  // (Target::order). A hash in both is the same target with new labels or
  // order: it keeps its collector. Returns false and changes nothing when
  // it cannot guarantee that result; call set_targets(S') then. It does so
  // when the strategy has no incremental form (only consistent-hashing
  // has), when the last set_targets had duplicates, targets whose orders
  // did not increase within each job, or unassigned targets, when a removed
  // hash is unknown or an added one is already present (or twice in
  // `added`), when a collector would be left empty, and when the change
  // needs a repair of the balance. Precondition: orders stay unique per job.
  bool update_targets(std::span<const std::uint64_t> removed, TargetList added);
  // Re-evaluates eligibility at clock.now() and reassigns if it changed.
  void refresh();
  // When the next pending grace period ends (call refresh() then).
  std::optional<TimePoint> next_refresh() const;

  std::span<const Target> targets() const { return targets_; }
  std::span<const Collector> collectors() const { return collectors_; }  // sorted by name
  bool eligible(std::uint32_t collector) const { return eligible_[collector] != 0; }
  std::uint32_t collector_of(std::uint32_t slot) const { return assigned_[slot]; }
  std::size_t load(std::uint32_t collector) const;
  std::size_t unassigned() const { return unassigned_; }
  // Jobs that have targets, sorted by name.
  const std::vector<Name>& jobs() const { return jobs_; }
  // How many targets `job` has (0 when none).
  std::size_t job_size(Name job) const;
  // Changes whenever anything /jobs/{job}/targets serves may have changed
  // (the collector set, or a target of the job: added, removed, new
  // labels). Unique across Allocator instances, so a cache keyed on it
  // never mistakes a new allocator's job for an old one's.
  std::uint64_t job_stamp(Name job) const;
  // nullptr when the collector is unknown or holds nothing of `job`.
  const JobBucket* bucket(std::string_view collector, Name job) const;
  std::span<const std::uint32_t> targets_for(std::string_view collector, Name job) const;
  // Increases whenever any bucket changes.
  std::uint64_t generation() const { return generation_; }
  // Unique per Allocator in the process: bucket versions count from zero in
  // each allocator, so a cache of bodies keys on (instance, version).
  std::uint64_t instance() const { return instance_; }

 private:
  using StrategyTargets = std::vector<StrategyTarget, LargeArrayAllocator<StrategyTarget>>;
  // Counts a job-sorted list's targets per job into jobs_ and job_counts_
  // (cleared first), as set_targets reads them.
  struct JobTally {
    std::vector<Name>& jobs;
    std::unordered_map<std::uint32_t, std::size_t>& counts;
    std::size_t run = 0;
    JobTally(std::vector<Name>& j, std::unordered_map<std::uint32_t, std::size_t>& c) : jobs(j), counts(c) {
      jobs.clear();
      counts.clear();
    }
    void add(Name job);
    void finish();  // jobs sorted by text
  };
  void evaluate_eligibility();
  void reassign();
  void reassign(StrategyTargets strategy);  // `strategy`: strategy_targets()'s
  void rebuild_index();
  void merge_runs(std::vector<JobBucket>& buckets) const;
  StrategyTargets strategy_targets() const;
  static std::uint64_t next_job_stamp();  // also a bucket's layout
  // update_targets' steps (allocator_update.cpp).
  struct Update;
  bool plan_update(std::span<const std::uint64_t> removed, const TargetList& added, Update& u) const;
  void commit_update(Update& u, TargetList& added);
  void fill_holes(Update& u);
  void apply_bucket_changes(Update& u);

  std::unique_ptr<Strategy> strategy_;
  AllocatorOptions options_;
  const Clock& clock_;
  std::vector<Collector> collectors_;
  std::vector<std::uint64_t> seeds_;
  std::vector<std::uint8_t> eligible_;
  std::unordered_map<std::string_view, std::uint32_t> by_name_;
  TargetList targets_;
  FlatIndex slot_of_hash_;
  std::vector<std::uint32_t> assigned_, previous_;
  std::vector<std::vector<JobBucket>> index_;  // per collector, sorted by job id
  std::vector<Name> jobs_;
  std::unordered_map<std::uint32_t, std::size_t> job_counts_;  // by Name id
  // job_stamp(): every job's since the last reassign, except those an
  // update_targets touched since (by Name id).
  std::uint64_t stamp_all_ = 0;
  std::unordered_map<std::uint32_t, std::uint64_t> job_stamps_;
  std::size_t unassigned_ = 0;
  bool incremental_ = false;   // the last set_targets had no duplicates and ordered jobs
  bool slots_ordered_ = true;  // false once update_targets has moved slots
  std::uint64_t version_counter_ = 0, generation_ = 0;
  std::uint64_t instance_ = next_job_stamp();
};

}  // namespace allocation
