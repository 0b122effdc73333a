// reshard_bench: how many targets change shard when a GrafanaAgent goes
// from N to N+1 metrics shards, and how even the shards are, under the
// two placements issue 19 compares:
// - hashmod: the config the operator renders today (model::render_agent
//   with spec.metrics.shards), its targets found by the allocator's
//   kubernetes_sd over the cluster's Endpoints, and each shard's relabel
//   rules applied with "$(SHARD)" set to that shard, as the config
//   reloader sets it in each shard's pods. A target belongs to the shards
//   whose rules keep it.
// - consistent: the same rules without the sharding pair, and the
//   allocator's consistent-hashing over collectors named as the shards'
//   StatefulSets; N+1 keeps the N placements (set_collectors on the live
//   Allocator). "consistent, restarted" is a fresh Allocator at N+1 (what
//   an operator restart would serve).
// Every figure is computed from the placements; the exit status is 1 when
// consistent misses a goal (moves > 1.2 x 1/(N+1), max/avg > 1.05) or a
// target is on no shard or on two.
//
//   reshard_bench [--targets T] [N ...]     (default: 10000 targets, N = 4 10)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "allocation/allocator.hpp"
#include "allocation/filter.hpp"
#include "reshard_cluster.hpp"

namespace {

using allocation::TargetList;
using model::Value;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

using reshard_bench::Placement;

// The jobs without their last two rules, which must be the sharding pair
// (a hashmod into __tmp_hash, then a keep of "$(SHARD)").
Value without_sharding(Value jobs) {
  for (auto& job : jobs.as_array()) {
    auto& rules = job.find("relabel_configs")->as_array();
    bool pair = rules.size() >= 2 && rules[rules.size() - 2].find("action")->as_string() == "hashmod" &&
                rules[rules.size() - 2].find("target_label")->as_string() == "__tmp_hash" &&
                rules.back().find("regex")->as_string() == "$(SHARD)";
    if (!pair) throw std::runtime_error(job.find("job_name")->as_string() + ": no sharding pair at the end");
    rules.resize(rules.size() - 2);
  }
  return jobs;
}

Placement placement_of(const allocation::Allocator& a, std::size_t discovered) {
  std::map<std::string, int> index;
  for (int i = 0; i < 1000; ++i) index[reshard_bench::shard_name(i)] = i;
  Placement p{std::vector<int>(discovered, -1)};
  auto targets = a.targets();
  for (std::uint32_t s = 0; s < targets.size(); ++s) {
    std::uint32_t c = a.collector_of(s);
    if (c != allocation::kUnassigned) p.shard_of[targets[s].order] = index.at(a.collectors()[c].name);
  }
  return p;
}

struct Consistent {
  Placement before, after, restarted;
};

Consistent consistent(const Value& jobs, const TargetList& discovered, int n) {
  allocation::RelabelFilter filter;
  filter.set_scrape_configs(without_sharding(jobs));
  TargetList kept = discovered;
  filter.apply(kept);
  allocation::ManualClock clock;
  auto make = [&] { return allocation::Allocator(allocation::make_strategy({}), {}, clock); };
  allocation::Allocator live = make();
  live.set_collectors(reshard_bench::shard_collectors(n));
  live.set_targets(kept);
  Consistent out;
  out.before = placement_of(live, discovered.size());
  live.set_collectors(reshard_bench::shard_collectors(n + 1));
  out.after = placement_of(live, discovered.size());
  allocation::Allocator fresh = make();
  fresh.set_collectors(reshard_bench::shard_collectors(n + 1));
  fresh.set_targets(std::move(kept));
  out.restarted = placement_of(fresh, discovered.size());
  return out;
}

struct Figures {
  std::size_t targets = 0, moved = 0, mismatched = 0, twice = 0;
  double max_before = 0, max_after = 0, min_after = 0;
};

// max/avg and min/avg of the loads of `shards` shards.
std::pair<double, double> balance(const Placement& p, int shards) {
  std::vector<std::size_t> load(shards);
  std::size_t total = 0;
  for (int s : p.shard_of)
    if (s >= 0) ++load[s], ++total;
  double avg = double(total) / shards;
  return {double(*std::max_element(load.begin(), load.end())) / avg,
          double(*std::min_element(load.begin(), load.end())) / avg};
}

Figures compare(const Placement& before, const Placement& after, int n) {
  Figures f;
  for (std::size_t i = 0; i < before.shard_of.size(); ++i) {
    int b = before.shard_of[i], a = after.shard_of[i];
    f.mismatched += (b < 0) != (a < 0);
    if (b >= 0 && a >= 0) ++f.targets, f.moved += a != b;
  }
  f.twice = before.twice + after.twice;
  f.max_before = balance(before, n).first;
  std::tie(f.max_after, f.min_after) = balance(after, n + 1);
  return f;
}

bool print_row(const char* name, int n, const Figures& f, bool goals) {
  double share = double(f.moved) / double(f.targets), ideal = 1.0 / (n + 1);
  std::printf("| %s | %d → %d | %zu | %zu | %.1f%% | %.1f%% | %.2f | %.3f | %.3f | %.3f |\n", name, n, n + 1, f.targets,
              f.moved, 100 * share, 100 * ideal, share / ideal, f.max_before, f.max_after, f.min_after);
  bool ok = f.mismatched == 0 && f.twice == 0;
  if (f.mismatched || f.twice)
    std::printf("  %s: %zu targets on no shard in one placement, %zu on two shards\n", name, f.mismatched, f.twice);
  if (goals) ok = ok && share <= 1.2 * ideal && f.max_before <= 1.05 && f.max_after <= 1.05;
  return ok;
}

bool run(const reshard_bench::Cluster& cluster, int n) {
  auto t = Clock::now();
  Value jobs = reshard_bench::render_scrape_configs(cluster, n),
        jobs_next = reshard_bench::render_scrape_configs(cluster, n + 1);
  double render_ms = ms_since(t);
  t = Clock::now();
  TargetList discovered = reshard_bench::discover(jobs, cluster.objects);
  double discover_ms = ms_since(t);
  t = Clock::now();
  Placement hm_before = reshard_bench::hashmod_placement(jobs, discovered, n),
            hm_after = reshard_bench::hashmod_placement(jobs_next, discovered, n + 1);
  double hashmod_ms = ms_since(t);
  t = Clock::now();
  Consistent ch = consistent(jobs, discovered, n);
  double consistent_ms = ms_since(t);
  Figures hm = compare(hm_before, hm_after, n), live = compare(ch.before, ch.after, n);
  Figures restarted = compare(ch.before, ch.restarted, n);
  std::size_t differ = 0;  // targets one placement keeps and the other drops
  for (std::size_t i = 0; i < discovered.size(); ++i)
    differ += (hm_before.shard_of[i] < 0) != (ch.before.shard_of[i] < 0);
  bool ok = print_row("hashmod", n, hm, false);
  ok = print_row("consistent", n, live, true) && ok;
  print_row("consistent, restarted", n, restarted, false);
  if (differ)
    std::printf("  the two placements disagree on whether %zu targets are scraped at all\n", differ), ok = false;
  std::fprintf(stderr,
               "N=%d: render %.0f ms (two), %zu discovered, discovery %.0f ms, hashmod %.0f ms, consistent %.0f ms\n",
               n, render_ms, discovered.size(), discover_ms, hashmod_ms, consistent_ms);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t targets = 10000;
  std::vector<int> steps;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--targets") == 0 && i + 1 < argc)
      targets = std::strtoul(argv[++i], nullptr, 10);
    else
      steps.push_back(std::atoi(argv[i]));
  }
  if (steps.empty()) steps = {4, 10};
  auto cluster = reshard_bench::make_cluster(targets);
  std::printf("%zu endpoint addresses behind 7 ServiceMonitors\n\n", cluster.endpoints);
  std::printf(
      "| placement | shards | targets | moved | moved share | ideal 1/(N+1) | × ideal | max/avg at N | max/avg at N+1 "
      "| min/avg at N+1 |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  bool ok = true;
  for (int n : steps) ok = run(cluster, n) && ok;
  std::printf("\nconsistent goals (moves ≤ 1.2 × 1/(N+1), max/avg ≤ 1.05, every target on exactly one shard): %s\n",
              ok ? "met" : "NOT met");
  return ok ? 0 : 1;
}
