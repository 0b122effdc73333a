// filter_strategy: relabel-config: drops the targets that their job's
// relabel_configs would drop, before allocation (the relabeled labels are
// discarded; collectors relabel again).
// Contract: "$(SHARD)" inside a regex is replaced by "0" (upstream replaces
// a regex that is exactly "$(SHARD)"; a substring is a superset of that).
// Jobs without rules keep every target. Only the rules that can change the
// keep/drop decision run (rules writing labels no later keep/drop reads are
// skipped). One RelabelFilter must not be used from two threads at once;
// apply() itself splits a large batch over `lanes` threads (the calling
// one plus lanes - 1 it starts and joins), each with its own compiled
// rules, and keeps exactly the targets a single lane would keep, in order.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "allocation/relabel.hpp"
#include "allocation/target.hpp"
#include "model/value.hpp"

namespace allocation {

class RelabelFilter {
 public:
  // lanes = 0: up to 2, as many as the machine has cores.
  explicit RelabelFilter(unsigned lanes = 0);

  // Replaces the rules of `job` (after the $(SHARD) substitution).
  void set_job(Name job, std::vector<RelabelConfig> configs, std::string_view path = "relabel_configs");
  // Reads every scrape config's job_name and relabel_configs; throws
  // RelabelError naming "scrape_configs[i]...." on invalid input.
  void set_scrape_configs(const model::Value& scrape_configs);

  bool keep(const Target& t);
  // Removes the dropped targets in place (order kept); returns how many.
  std::size_t apply(TargetList& targets);

 private:
  struct JobRules {
    std::vector<Relabeler> lanes;  // the same rules, compiled once per lane
    std::vector<Name> reads;       // labels the rules read (prefetched in apply)
  };
  const JobRules* rules_for(Name job) const;
  void prefetch(const Target& t, int stage) const;
  // Compacts the kept targets of `part` to its front; returns how many.
  std::size_t filter_lane(std::span<Target> part, std::size_t lane);

  std::size_t lanes_;
  std::vector<std::pair<Name, JobRules>> jobs_;  // sorted by Name id
  std::vector<LabelBuilder> builders_;           // one per lane
};

}  // namespace allocation
