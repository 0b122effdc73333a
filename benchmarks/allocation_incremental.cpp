// allocation_bench's `incremental` section: a discovery update that
// rediscovers 1% of the targets (1% of the Endpoints groups change: per
// group of 10, one target leaves, one arrives, three get a new pod name,
// which changes their identity, and six a new container id, which does
// not), applied by Allocator::update_targets, against the full reprocess
// (items, filter, set_targets of every target) of the same update. Both
// allocators share the history, and every round checks that they agree.
// The incremental caller records each group's identities at every pass
// (an O(changed) update per round; a full pass rebuilds the record, which
// the full reprocess timed here does not count).
#include <algorithm>
#include <cstdio>

#include "allocation/filter.hpp"
#include "allocation_bench.hpp"
#include "model/parse.hpp"

namespace allocation_bench {
namespace {

using namespace allocation;

constexpr std::size_t kPerGroup = 10;

// Group g after its update in round r (each group changes at most once).
TargetGroup updated_group(const TargetGroup& old, std::size_t g, std::size_t n, int r) {
  TargetGroup out;
  out.labels = old.labels;
  for (std::size_t k = 1; k < old.targets.size(); ++k) {
    const std::size_t i = g * kPerGroup + k;
    out.targets.push_back(endpoint_target(g, i, kPerGroup, k <= 3 ? r + 1 : 0, k > 3 ? r + 1 : 0));
  }
  out.targets.push_back(endpoint_target(g, n + g * 64 + static_cast<std::size_t>(r), kPerGroup, 0, 0));
  return out;
}

TargetList full_items(Name job, const std::vector<TargetGroup>& groups, RelabelFilter& filter) {
  TargetList items;
  append_targets(job, groups, items, 0);
  filter.apply(items);
  return items;
}

// The caller's record of each group's identities at the last pass: what a
// changed group removes, without filtering its old items again.
using GroupIdentities = std::vector<std::vector<std::uint64_t>>;

void record_identities(const TargetList& items, GroupIdentities& ids) {
  for (const auto& t : items) ids[t.order >> kGroupOrderShift].push_back(t.hash);
}

void full_pass(Allocator& a, Name job, const std::vector<TargetGroup>& groups, RelabelFilter& filter,
               GroupIdentities& ids) {
  TargetList items = full_items(job, groups, filter);
  ids.assign(groups.size(), {});
  record_identities(items, ids);
  a.set_targets(std::move(items));
}

void incremental_row(std::size_t n, int rounds, const model::Value& config) {
  const ManualClock clock;
  const Name job = Name::intern("serviceMonitor/team/app/0");
  auto groups = discovery_output(n, kPerGroup);
  RelabelFilter filter;
  filter.set_scrape_configs(config);
  auto inc = make_allocator("consistent-hashing", clock), full = make_allocator("consistent-hashing", clock);
  inc->set_collectors(collectors(100));
  full->set_collectors(collectors(100));
  GroupIdentities ids;
  full_pass(*inc, job, groups, filter, ids);
  full->set_targets(full_items(job, groups, filter));
  const std::size_t changed = std::max<std::size_t>(1, groups.size() / 100), step = groups.size() / changed;
  std::vector<double> inc_ms, full_ms, update_ms;
  int fallbacks = 0, differ = 0;
  for (int r = 0; r < rounds; ++r) {
    std::vector<std::size_t> which;
    for (std::size_t k = 0; k < changed; ++k) which.push_back((k * step + static_cast<std::size_t>(r)) % groups.size());
    std::vector<TargetGroup> fresh;
    for (std::size_t g : which) fresh.push_back(updated_group(groups[g], g, n, r));
    // Timed: the changed groups' recorded identities leave, their new items
    // are filtered and recorded, then the update.
    auto t0 = WallClock::now();
    TargetList after;
    std::vector<std::uint64_t> removed;
    for (std::size_t k = 0; k < which.size(); ++k) {
      append_targets(job, std::span<const TargetGroup>(&fresh[k], 1), after, which[k]);
      removed.insert(removed.end(), ids[which[k]].begin(), ids[which[k]].end());
      ids[which[k]].clear();
    }
    filter.apply(after);
    record_identities(after, ids);
    auto t_update = WallClock::now();
    const bool ok = inc->update_targets(removed, std::move(after));
    update_ms.push_back(ms_since(t_update));
    for (std::size_t k = 0; k < which.size(); ++k) groups[which[k]] = std::move(fresh[k]);
    if (!ok) ++fallbacks, full_pass(*inc, job, groups, filter, ids);  // a refusal costs both
    inc_ms.push_back(ms_since(t0));
    auto t1 = WallClock::now();
    full->set_targets(full_items(job, groups, filter));
    full_ms.push_back(ms_since(t1));
    differ += same_allocation(*inc, *full) ? 0 : 1;
  }
  const double i = median(inc_ms), f = median(full_ms);
  std::printf("| %zu | %zu | %.2f | %.3f | %.3f | %.1f%% | %d of %d | %d |\n", n, changed * kPerGroup, f, i,
              median(update_ms), 100 * i / f, fallbacks, rounds, differ);
}

}  // namespace

void incremental(bool quick, std::size_t only_targets, int reps) {
  std::printf("\n### Incremental update (1%% of targets rediscovered) against a full reprocess\n\n");
  std::printf(
      "| targets | rediscovered | full reprocess median (ms) | incremental median (ms) | of which update_targets "
      "(ms) | incremental / full | fallbacks | rounds differing |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  auto config = model::parse_documents(kPipelineConfig, "bench");
  for (std::size_t n : {10000u, 100000u, 800000u}) {
    if ((quick && n > 10000) || (only_targets && n != only_targets)) continue;
    incremental_row(n, reps > 0 ? reps : n > 100000 ? 5 : 11, config.at(0).value);
  }
}

}  // namespace allocation_bench
