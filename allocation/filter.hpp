// filter_strategy: relabel-config: drops the targets that their job's
// relabel_configs would drop, before allocation (the relabeled labels are
// discarded; collectors relabel again).
// Contract: "$(SHARD)" inside a regex is replaced by "0" (upstream replaces
// a regex that is exactly "$(SHARD)"; a substring is a superset of that).
// Jobs without rules keep every target. Only the rules that can change the
// keep/drop decision run (rules writing labels no later keep/drop reads are
// skipped). Not thread-safe (see Relabeler).
#pragma once

#include <cstddef>
#include <vector>

#include "allocation/relabel.hpp"
#include "allocation/target.hpp"
#include "model/value.hpp"

namespace allocation {

class RelabelFilter {
 public:
  // Replaces the rules of `job` (after the $(SHARD) substitution).
  void set_job(Name job, std::vector<RelabelConfig> configs, std::string_view path = "relabel_configs");
  // Reads every scrape config's job_name and relabel_configs; throws
  // RelabelError naming "scrape_configs[i]...." on invalid input.
  void set_scrape_configs(const model::Value& scrape_configs);

  bool keep(const Target& t);
  // Removes the dropped targets in place (order kept); returns how many.
  std::size_t apply(std::vector<Target>& targets);

 private:
  struct JobRules {
    Relabeler rules;
    std::vector<Name> reads;  // labels the rules read (prefetched in apply)
  };
  const JobRules* rules_for(Name job) const;
  void prefetch(const Target& t, int stage) const;

  std::vector<std::pair<Name, JobRules>> jobs_;  // sorted by Name id
  LabelBuilder builder_;
};

}  // namespace allocation
