// Prometheus's target processing (scrape.PopulateLabels) for every target
// before allocation: the job's seeded labels, its relabel_configs, and the
// checks and identity of scrape_job.hpp. Used with filter_strategy
// relabel-config (drop_relabeled) and without it.
// Contract: apply() rewrites each target's hash (identity: job + final
// labels) and key (job + final address), so targets that relabel into one
// target share a hash and the Allocator keeps the first of them; its
// discovered labels (group, own) stay as they were and are what is served.
// Targets Prometheus would refuse (no or invalid address, bad interval,
// timeout or value) are removed and counted (invalid()). With
// drop_relabeled, targets the rules drop are removed; without it they stay
// with their discovered identity (collectors drop them). Jobs the filter
// does not know are left untouched. "$(SHARD)" inside a regex is replaced
// by "0" (upstream replaces a regex that is exactly "$(SHARD)"). One
// RelabelFilter must not be used from two threads at once; apply() splits
// a large batch over `lanes` threads (the calling one plus lanes - 1 it
// starts and joins), each with its own compiled rules, and gives exactly
// the single-lane result, order included.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "allocation/relabel.hpp"
#include "allocation/scrape_job.hpp"
#include "allocation/target.hpp"
#include "model/value.hpp"

namespace allocation {

class RelabelFilter {
 public:
  // lanes = 0: up to 2, as many as the machine has cores.
  explicit RelabelFilter(unsigned lanes = 0, bool drop_relabeled = true);

  // Replaces `job` (its rules after the $(SHARD) substitution).
  void set_job(ScrapeJob job, std::string_view path = "relabel_configs");
  // A job with Prometheus's defaults and these rules.
  void set_job(Name job, std::vector<RelabelConfig> configs, std::string_view path = "relabel_configs");
  // Reads every scrape config (see read_scrape_job; `global` may be null);
  // throws RelabelError naming "scrape_configs[i]...." on invalid input.
  void set_scrape_configs(const model::Value& scrape_configs, const model::Value* global = nullptr);

  // Whether apply() would keep `t`.
  bool keep(const Target& t);
  // Processes `targets` in place (order kept); returns how many it removed.
  // With `invalid_orders`, appends the Target::order of each target
  // removed as invalid, in input order (a caller that numbers targets
  // learns where the invalid ones came from).
  std::size_t apply(TargetList& targets, std::vector<std::uint64_t>* invalid_orders = nullptr);
  // How many of those the last apply() removed as invalid.
  std::size_t invalid() const { return invalid_; }

 private:
  struct JobRules {
    ScrapeJob job;
    std::vector<Relabeler> lanes;          // the same rules, compiled once per lane
    std::vector<Name> reads;               // labels the rules read (prefetched in apply)
    std::vector<std::int16_t> read_index;  // by Name id: index in reads, or -1
  };
  // One lane's base values of the job's reads for the current target (see
  // LabelBuilder::memo). The group's values and the seeds (`fallback`)
  // are computed once per run of targets sharing a group.
  struct ReadMemo {
    const LabelSet* group = nullptr;
    const JobRules* rules = nullptr;  // null: nothing memoised
    std::vector<std::string_view> fallback, values;
    // Where the reads sit in the own sets of the next targets, found when
    // their labels were prefetched (two entries: that runs one target ahead).
    struct Ahead {
      const LabelSet* own = nullptr;
      const JobRules* rules = nullptr;
      std::vector<std::uint32_t> index;  // own->size() when absent
    };
    Ahead ahead[2];
    unsigned turn = 0;
    // The last name layout searched: its ids and where the job's reads sit
    // in it. Targets of one discovery source mostly share a layout, so a
    // compare of the id arrays replaces a search per read.
    struct Shape {
      const JobRules* rules = nullptr;
      std::vector<std::uint32_t> ids, index;
    };
    Shape shape;
    void forget() { rules = shape.rules = nullptr, ahead[0].own = ahead[1].own = nullptr; }
  };
  enum class Fate { keep, drop, invalid };
  struct JobCache {
    Name job;
    const JobRules* rules = nullptr;
  };
  const JobRules* rules_for(Name job) const;
  void prefetch(const Target& t, int stage, JobCache& cache, ReadMemo& memo) const;
  // Sets t's identity, or says why it goes.
  Fate process(Target& t, const JobRules& job, std::size_t lane);
  void memoise_reads(LabelBuilder& b, const JobRules& job, ReadMemo& memo) const;
  // Compacts the kept targets of `part` to its front; returns how many, and
  // adds the invalid ones to `invalid`.
  std::size_t filter_lane(std::span<Target> part, std::size_t lane, std::size_t& invalid,
                          std::vector<std::uint64_t>* invalid_orders);

  std::size_t lanes_;
  bool drop_relabeled_;
  std::size_t invalid_ = 0;
  std::vector<std::pair<Name, JobRules>> jobs_;  // sorted by Name id
  // One lane's scratch state on cache lines of its own: both lanes write
  // theirs for every target, and when the two shared a line the second
  // lane gained almost nothing over one.
  struct alignas(128) Lane {
    LabelBuilder builder;
    ReadMemo memo;
  };
  std::vector<Lane> scratch_;  // one per lane
};

}  // namespace allocation
