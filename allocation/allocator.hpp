// The allocator's state: targets, collectors, the strategy's assignment and
// a per-collector, per-job index of it.
// Contract: single-threaded (the server wraps it in a lock). After every
// mutation the index is complete: bucket(collector, job) answers "targets of
// job J held by collector C" with two lookups and no scan, and a bucket's
// version changes exactly when its contents change, so cached responses can
// be keyed on it. Only eligible collectors (Ready for at least the grace
// period, evaluated at clock.now()) receive targets; targets that arrive
// before any eligible collector are kept and assigned when one appears.
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
  std::uint64_t checksum = 0;          // sum of the targets' hashes
  std::uint64_t version = 0;           // unique per distinct contents
};

class Allocator {
 public:
  Allocator(std::unique_ptr<Strategy> strategy, AllocatorOptions options, const Clock& clock);

  std::string_view strategy_name() const { return strategy_->name(); }
  // Replaces the collector set (names are unique; later duplicates ignored).
  void set_collectors(std::vector<Collector> collectors);
  // Replaces the whole target set; equal hashes are one target.
  void set_targets(TargetList targets);
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
  // nullptr when the collector is unknown or holds nothing of `job`.
  const JobBucket* bucket(std::string_view collector, Name job) const;
  std::span<const std::uint32_t> targets_for(std::string_view collector, Name job) const;
  // Increases whenever any bucket changes.
  std::uint64_t generation() const { return generation_; }

 private:
  void evaluate_eligibility();
  void reassign();
  void rebuild_index();
  std::vector<StrategyTarget, LargeArrayAllocator<StrategyTarget>> strategy_targets() const;

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
  std::size_t unassigned_ = 0;
  std::uint64_t version_counter_ = 0, generation_ = 0;
};

}  // namespace allocation
