// Target allocator benchmark (mirrors upstream's Benchmark_Setting,
// BenchmarkGetAllTargetsByCollectorAndJob and BenchmarkProcessTargets):
//   setting   assign all targets, per strategy x {100, 1000} collectors x
//             {1k, 10k, 100k} targets
//   get       targets of (collector, job) from the index, same grid
//   pipeline  discovery output (~40 labels per target) -> items -> relabel
//             filter -> allocation (consistent-hashing, 100 collectors), with
//             bytes allocated per target (global operator new counts them)
//   incremental  1% of the targets rediscovered: Allocator::update_targets
//             against a full reprocess (allocation_incremental.cpp)
//   runtime   the same through runtime::State and publish, as the live
//             allocator runs it (allocation_runtime.cpp)
//   response  per-collector /jobs/{job}/targets?collector_id= body, in-process
//   balance   balance and churn per strategy and N
// Usage: allocation_bench [--quick] [--targets N] [--reps R] [--passes] [--side S] [section...]
// (--quick: smaller grid, for smoke runs; --targets/--reps: one pipeline
// size, R passes; --passes: every pipeline pass's stages on stderr (the
// table shows the best pass's); --side incremental|full: the runtime
// rounds through one State only; sections: setting pipeline incremental
// runtime response balance sequence; default all)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "actors/controller.hpp"
#include "allocation/allocator.hpp"
#include "allocation/filter.hpp"
#include "allocation/responses.hpp"
#include "allocation_bench.hpp"
#include "model/parse.hpp"

namespace {
std::atomic<std::size_t> g_bytes{0};
// Only the pipeline section counts: a locked add per allocation on a line
// both lanes write is a cost the product does not pay, and the other
// sections time allocation-heavy paths.
std::atomic<bool> g_counting{false};
std::size_t g_pipeline_targets = 0;  // --targets N: only this pipeline size
int g_pipeline_reps = 0;             // --reps R: passes per pipeline size
bool g_print_passes = false;         // --passes: each pass's stages on stderr
}  // namespace

// Counting replacements of the global allocation functions (malloc-backed).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) g_bytes.fetch_add(n, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  return operator new(n);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
#pragma GCC diagnostic pop

namespace allocation_bench {

using namespace allocation;

double ms_since(WallClock::time_point t) {
  return std::chrono::duration<double, std::milli>(WallClock::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<Collector> collectors(std::size_t n) {
  std::vector<Collector> out;
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back({"collector-" + std::to_string(i), "node-" + std::to_string(i), true, {}});
  }
  return out;
}

std::unique_ptr<Allocator> make_allocator(const std::string& strategy, const ManualClock& clock) {
  StrategyConfig c;
  c.name = strategy;
  if (strategy == "per-node") c.fallback = "consistent-hashing";
  return std::make_unique<Allocator>(make_strategy(c), AllocatorOptions{}, clock);
}

bool same_allocation(const Allocator& a, const Allocator& b) {
  if (a.generation() != b.generation() || a.jobs() != b.jobs() || a.unassigned() != b.unassigned() ||
      a.targets().size() != b.targets().size())
    return false;
  for (const auto& c : a.collectors()) {
    for (Name job : a.jobs()) {
      const JobBucket *x = a.bucket(c.name, job), *y = b.bucket(c.name, job);
      if (!x || !y) {
        if (x != y) return false;
        continue;
      }
      if (x->version != y->version || x->targets.size() != y->targets.size()) return false;
      for (std::size_t i = 0; i < x->targets.size(); ++i)
        if (a.targets()[x->targets[i]].hash != b.targets()[y->targets[i]].hash) return false;
    }
  }
  return true;
}

std::size_t rss_bytes() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  std::size_t kb = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmRSS: %zu kB", &kb) == 1) break;
  std::fclose(f);
  return kb * 1024;
}

}  // namespace allocation_bench

namespace {

using namespace allocation;
using namespace allocation_bench;

// `n` small targets over `jobs` jobs, each on one of `nodes` nodes.
TargetList simple_targets(std::size_t n, std::size_t jobs, std::size_t nodes) {
  TargetList out;
  const Name addr = Name::intern("__address__"), node = Name::intern("__meta_kubernetes_pod_node_name");
  for (std::size_t j = 0; j < jobs; ++j) {
    TargetGroup g;
    g.labels = std::make_shared<const LabelSet>(LabelSet{{"job", "job-" + std::to_string(j)}});
    for (std::size_t i = j; i < n; i += jobs) {
      g.targets.push_back(std::make_shared<const LabelSet>(
          LabelSet({{addr, "10." + std::to_string(i / 65536) + "." + std::to_string(i % 65536) + ":9100"},
                    {node, "node-" + std::to_string(i % nodes)}})));
    }
    append_targets(Name::intern("job-" + std::to_string(j)), std::span<const TargetGroup>(&g, 1), out);
  }
  return out;
}

void setting_and_get(bool quick) {
  std::printf("\n### Setting and GetTargetsByCollectorAndJob\n\n");
  std::printf("| strategy | collectors | targets | Setting (ms) | Get per (collector, job) (ns) |\n");
  std::printf("|---|---:|---:|---:|---:|\n");
  const ManualClock clock;
  for (const char* strategy : {"consistent-hashing", "least-weighted", "per-node"}) {
    for (std::size_t n : {100u, 1000u}) {
      for (std::size_t t : {1000u, 10000u, 100000u}) {
        if (quick && t > 10000) continue;
        auto targets = simple_targets(t, 10, n);
        double best = 1e30;
        std::unique_ptr<Allocator> a;
        for (int rep = 0; rep < (t >= 100000 ? 3 : 5); ++rep) {
          a = make_allocator(strategy, clock);
          a->set_collectors(collectors(n));
          auto copy = targets;
          auto t0 = WallClock::now();
          a->set_targets(std::move(copy));
          best = std::min(best, ms_since(t0));
        }
        std::size_t sink = 0, calls = 0;
        auto t0 = WallClock::now();
        for (int rep = 0; rep < 20; ++rep) {
          for (const auto& c : a->collectors()) {
            for (Name job : a->jobs()) sink += a->targets_for(c.name, job).size(), ++calls;
          }
        }
        const double ns = ms_since(t0) * 1e6 / static_cast<double>(calls);
        std::printf("| %s | %zu | %zu | %.2f | %.0f |\n", strategy, n, t, best, ns + static_cast<double>(sink % 2) * 0);
      }
    }
  }
}

}  // namespace

namespace allocation_bench {

// ~40 labels per target as Kubernetes endpoints discovery produces them:
// 8 group labels (namespace, endpoints, service labels) + 32 target labels.
std::vector<TargetGroup> discovery_output(std::size_t n, std::size_t per_group) {
  std::vector<TargetGroup> groups;
  for (std::size_t g = 0; g * per_group < n; ++g) {
    const std::string svc = "svc-" + std::to_string(g);
    TargetGroup tg;
    tg.labels = share_label_set(LabelSet{{"__meta_kubernetes_namespace", "team-" + std::to_string(g % 50)},
                                         {"__meta_kubernetes_endpoints_name", svc},
                                         {"__meta_kubernetes_service_name", svc},
                                         {"__meta_kubernetes_service_label_app", "app-" + std::to_string(g)},
                                         {"__meta_kubernetes_service_labelpresent_app", "true"},
                                         {"__meta_kubernetes_service_label_tier", "backend"},
                                         {"__meta_kubernetes_service_labelpresent_tier", "true"},
                                         {"__meta_kubernetes_service_annotation_owner", "platform"}});
    for (std::size_t i = g * per_group; i < std::min(n, (g + 1) * per_group); ++i)
      tg.targets.push_back(endpoint_target(g, i, per_group, 0, 0));
    groups.push_back(std::move(tg));
  }
  return groups;
}

std::shared_ptr<const LabelSet> endpoint_target(std::size_t g, std::size_t i, std::size_t per_group, int pod_variant,
                                                int meta_variant) {
  auto nm = [](const char* s) { return Name::intern(s); };
  const std::string svc = "svc-" + std::to_string(g);
  const std::string ip =
      "10." + std::to_string(i / 65536 % 256) + "." + std::to_string(i / 256 % 256) + "." + std::to_string(i % 256);
  std::string pod = svc + "-" + std::to_string(i % per_group) + "-x7f9k";
  if (pod_variant) pod += "-" + std::to_string(pod_variant);
  std::vector<Label> l = {
      {nm("__address__"), ip + ":8080"},
      {nm("__meta_kubernetes_pod_name"), pod},
      {nm("__meta_kubernetes_pod_ip"), ip},
      {nm("__meta_kubernetes_pod_node_name"), "node-" + std::to_string(i % 300)},
      {nm("__meta_kubernetes_pod_host_ip"), "192.168.0." + std::to_string(i % 250)},
      {nm("__meta_kubernetes_pod_uid"), "6f1c2d3e-4b5a-6978-8a9b-" + std::to_string(100000000000 + i)},
      {nm("__meta_kubernetes_pod_phase"), "Running"},
      {nm("__meta_kubernetes_pod_ready"), "true"},
      {nm("__meta_kubernetes_pod_controller_kind"), "ReplicaSet"},
      {nm("__meta_kubernetes_pod_controller_name"), svc + "-7d4b9c"},
      {nm("__meta_kubernetes_pod_container_name"), "server"},
      {nm("__meta_kubernetes_pod_container_image"), "registry.example.com/team/server:v1.2.3"},
      {nm("__meta_kubernetes_pod_container_init"), "false"},
      {nm("__meta_kubernetes_pod_container_port_name"), "http-metrics"},
      {nm("__meta_kubernetes_pod_container_port_number"), "8080"},
      {nm("__meta_kubernetes_pod_container_port_protocol"), "TCP"},
      {nm("__meta_kubernetes_pod_label_app"), "app-" + std::to_string(g)},
      {nm("__meta_kubernetes_pod_labelpresent_app"), "true"},
      {nm("__meta_kubernetes_pod_label_pod_template_hash"), "7d4b9c"},
      {nm("__meta_kubernetes_pod_labelpresent_pod_template_hash"), "true"},
      {nm("__meta_kubernetes_pod_label_version"), "v1"},
      {nm("__meta_kubernetes_pod_labelpresent_version"), "true"},
      {nm("__meta_kubernetes_pod_annotation_prometheus_io_scrape"), "true"},
      {nm("__meta_kubernetes_pod_annotationpresent_prometheus_io_scrape"), "true"},
      {nm("__meta_kubernetes_endpoint_port_name"), "http-metrics"},
      {nm("__meta_kubernetes_endpoint_port_protocol"), "TCP"},
      {nm("__meta_kubernetes_endpoint_ready"), "true"},
      {nm("__meta_kubernetes_endpoint_address_target_kind"), "Pod"},
      {nm("__meta_kubernetes_endpoint_address_target_name"), pod},
      {nm("__meta_kubernetes_endpoint_node_name"), "node-" + std::to_string(i % 300)},
      {nm("__meta_kubernetes_endpoint_hostname"), pod},
      {nm("__meta_kubernetes_pod_container_id"),
       "containerd://" + std::to_string(900000000 + i) + (meta_variant ? "-" + std::to_string(meta_variant) : "")}};
  return share_label_set(LabelSet(std::move(l)));
}

const char* const kPipelineConfig = R"(
- job_name: serviceMonitor/team/app/0
  relabel_configs:
  - {source_labels: [__meta_kubernetes_service_label_app], regex: 'app-.*', action: keep}
  - {source_labels: [__meta_kubernetes_endpoint_port_name], regex: http-metrics, action: keep}
  - {source_labels: [__meta_kubernetes_pod_phase], regex: 'Succeeded|Failed', action: drop}
  - {source_labels: [__meta_kubernetes_namespace], target_label: namespace}
  - {source_labels: [__meta_kubernetes_service_name], target_label: service}
  - {source_labels: [__meta_kubernetes_pod_name], target_label: pod}
  - {source_labels: [__meta_kubernetes_pod_container_name], target_label: container}
  - {source_labels: [__address__], modulus: 1, target_label: __tmp_hash, action: hashmod}
  - {source_labels: [__tmp_hash], regex: $(SHARD), action: keep}
)";

}  // namespace allocation_bench

namespace {

void pipeline(bool quick) {
  std::printf("\n### Pipeline (discovery output -> items -> relabel filter -> consistent-hashing, 100 collectors)\n\n");
  // Huge pages change the result by ~40% (the discovery output is ~200 MB
  // of small allocations: TLB misses), so say which way this run went.
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  std::printf("GLIBC_TUNABLES=%s\n\n", tunables ? tunables : "(unset)");
  std::printf(
      "| targets | items (ms) | filter (ms) | allocation (ms) | total (ms) | median total (ms) | bytes allocated / "
      "target | RSS / target (B) |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  g_counting = true;
  const ManualClock clock;
  const Name job = Name::intern("serviceMonitor/team/app/0");
  auto config = model::parse_documents(kPipelineConfig, "bench");
  for (std::size_t n : {1000u, 10000u, 100000u, 800000u}) {
    if ((quick && n > 10000) || (g_pipeline_targets && n != g_pipeline_targets)) continue;
    // RSS grows by the discovery output, then by one pass's allocator state
    // (measured with the last pass alive). Memory of an earlier size stays
    // in the arenas, so this is per target only when run alone (--targets).
    const std::size_t rss0 = rss_bytes();
    const auto groups = discovery_output(n, 10);
    std::size_t rss1 = 0;
    double best[4] = {1e30, 1e30, 1e30, 1e30};
    double bytes_per_target = 0;
    std::vector<double> totals;
    const int reps = g_pipeline_reps > 0 ? g_pipeline_reps : n > 100000 ? 3 : 5;
    for (int rep = 0; rep < reps; ++rep) {
      auto a = make_allocator("consistent-hashing", clock);
      a->set_collectors(collectors(100));
      RelabelFilter filter;
      filter.set_scrape_configs(config.at(0).value);
      const std::size_t bytes0 = g_bytes.load() + large_array_mapped_total();
      auto t0 = WallClock::now();
      TargetList items;
      append_targets(job, groups, items, 0);
      const double items_ms = ms_since(t0);
      auto t1 = WallClock::now();
      filter.apply(items);
      const double filter_ms = ms_since(t1);
      auto t2 = WallClock::now();
      a->set_targets(std::move(items));
      const double alloc_ms = ms_since(t2);
      const double total = ms_since(t0);
      bytes_per_target =
          static_cast<double>(g_bytes.load() + large_array_mapped_total() - bytes0) / static_cast<double>(n);
      if (a->targets().size() != n || a->unassigned() != 0) std::printf("unexpected: targets were dropped\n");
      if (rep == reps - 1) rss1 = rss_bytes();
      totals.push_back(total);
      if (g_print_passes)
        std::fprintf(stderr, "pipeline %zu pass %d: items %.2f filter %.2f allocation %.2f total %.2f ms\n", n, rep,
                     items_ms, filter_ms, alloc_ms, total);
      if (total < best[3]) best[0] = items_ms, best[1] = filter_ms, best[2] = alloc_ms, best[3] = total;
    }
    std::sort(totals.begin(), totals.end());
    std::printf("| %zu | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f | %.0f |\n", n, best[0], best[1], best[2], best[3],
                totals[totals.size() / 2], bytes_per_target, static_cast<double>(rss1 - rss0) / static_cast<double>(n));
  }
  g_counting = false;
}

void response(bool quick) {
  std::printf("\n### Per-collector targets response, in-process (ResponseCache)\n\n");
  std::printf("| collectors | jobs | targets | cold build per body (us) | p50 (ns) | p99 (ns) |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|\n");
  const ManualClock clock;
  const std::size_t n = 100, jobs = 100, t = quick ? 10000 : 100000;
  auto a = make_allocator("consistent-hashing", clock);
  a->set_collectors(collectors(n));
  a->set_targets(simple_targets(t, jobs, n));
  ResponseCache cache;
  std::vector<std::string> job_names;
  for (Name j : a->jobs()) job_names.emplace_back(j.text());
  auto t0 = WallClock::now();
  for (const auto& c : a->collectors()) {
    for (const auto& j : job_names) cache.collector_targets(*a, c.name, j);
  }
  const double cold_us = ms_since(t0) * 1e3 / static_cast<double>(n * jobs);
  std::vector<double> samples;
  samples.reserve(n * jobs * 5);
  for (int rep = 0; rep < 5; ++rep) {
    for (const auto& c : a->collectors()) {
      for (const auto& j : job_names) {
        auto s = WallClock::now();
        auto body = cache.collector_targets(*a, c.name, j);
        samples.push_back(std::chrono::duration<double, std::nano>(WallClock::now() - s).count());
      }
    }
  }
  std::sort(samples.begin(), samples.end());
  std::printf("| %zu | %zu | %zu | %.1f | %.0f | %.0f |\n", n, jobs, t, cold_us, samples[samples.size() / 2],
              samples[samples.size() * 99 / 100]);
}

std::vector<std::string> assign_names(Strategy& s, const std::vector<StrategyTarget>& targets, std::size_t from,
                                      std::size_t to, const std::vector<std::string>& previous = {}) {
  std::vector<std::string> names;
  for (std::size_t i = from; i < to; ++i) names.push_back("collector-" + std::to_string(i));
  std::vector<StrategyCollector> cols;
  for (const auto& nm : names) cols.push_back({nm, "", collector_seed(nm)});
  std::vector<std::uint32_t> prev(targets.size(), kUnassigned), out;
  for (std::size_t i = 0; i < previous.size(); ++i) {
    // names are "collector-<k>" for k in [from, to)
    if (previous[i].empty()) continue;
    const std::size_t k = std::stoul(previous[i].substr(10));
    if (k >= from && k < to) prev[i] = static_cast<std::uint32_t>(k - from);
  }
  s.assign(targets, cols, prev, out);
  std::vector<std::string> res;
  for (auto o : out) res.push_back(o == kUnassigned ? "" : names[o]);
  return res;
}

double moved(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::size_t m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m += a[i] != b[i];
  return static_cast<double>(m) / static_cast<double>(a.size());
}

void balance_row(const char* label, std::size_t n, std::size_t per, const StrategyConfig& config) {
  std::vector<StrategyTarget> targets(n * per);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    targets[i].key = hash_bytes("t" + std::to_string(i), n);
    targets[i].hash = mix64(targets[i].key);
  }
  auto s = make_strategy(config);
  auto base = assign_names(*s, targets, 0, n);
  std::vector<std::size_t> load(n);
  for (const auto& b : base) load[std::stoul(b.substr(10))]++;
  const double avg = static_cast<double>(per);
  auto added = assign_names(*s, targets, 0, n + 1, base);
  auto removed = assign_names(*s, targets, 1, n, base);
  // 1% more targets: the share of the existing ones that move.
  auto grown = targets;
  for (std::size_t i = 0; i < targets.size() / 100; ++i) {
    grown.push_back({hash_bytes("new" + std::to_string(i), n), mix64(i + 7), {}});
  }
  auto after_growth = assign_names(*s, grown, 0, n, base);
  after_growth.resize(base.size());
  std::printf("| %s | %zu | %zu | %.3f | %.3f | %.2f | %.2f | %.2f%% |\n", label, n, per,
              static_cast<double>(*std::max_element(load.begin(), load.end())) / avg,
              static_cast<double>(*std::min_element(load.begin(), load.end())) / avg,
              moved(base, added) * static_cast<double>(n + 1), moved(base, removed) * static_cast<double>(n),
              100 * moved(base, after_growth));
}

std::vector<std::string> assign_set(Strategy& s, const std::vector<StrategyTarget>& targets,
                                    const std::vector<std::string>& names, const std::vector<std::string>& previous) {
  std::unordered_map<std::string, std::uint32_t> index;
  std::vector<StrategyCollector> cols;
  for (const auto& nm : names) {
    index.emplace(nm, static_cast<std::uint32_t>(cols.size()));
    cols.push_back({nm, "", collector_seed(nm)});
  }
  std::vector<std::uint32_t> prev(targets.size(), kUnassigned), out;
  for (std::size_t i = 0; i < previous.size(); ++i) {
    auto it = index.find(previous[i]);
    if (it != index.end()) prev[i] = it->second;
  }
  s.assign(targets, cols, prev, out);
  std::vector<std::string> res;
  for (auto o : out) res.push_back(o == kUnassigned ? "" : names[o]);
  return res;
}

// `steps` membership changes (joins and leaves alternate) from a fresh start:
// worst balance and churn over every state, and the share that a restart
// (a fresh assignment of the final membership) would move.
void sequence_row(const char* label, std::size_t n, std::size_t per, std::size_t steps, const StrategyConfig& config) {
  std::vector<StrategyTarget> targets(n * per);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    targets[i].key = hash_bytes("t" + std::to_string(i), n + 1);
    targets[i].hash = mix64(targets[i].key);
  }
  auto s = make_strategy(config);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < n; ++i) names.push_back("collector-" + std::to_string(i));
  auto current = assign_set(*s, targets, names, {});
  double worst_max = 0, worst_min = 2, worst_churn = 0, sum_churn = 0;
  std::size_t next = n;
  std::uint64_t rng = 42;
  for (std::size_t step = 0; step <= steps; ++step) {
    std::unordered_map<std::string, std::size_t> load;
    for (const auto& c : current) ++load[c];
    const double avg = static_cast<double>(targets.size()) / static_cast<double>(names.size());
    for (const auto& nm : names) {
      worst_max = std::max(worst_max, static_cast<double>(load[nm]) / avg);
      worst_min = std::min(worst_min, static_cast<double>(load[nm]) / avg);
    }
    if (step == steps) break;
    auto to = names;
    rng = mix64(rng);
    if (step % 2 == 0) {
      to.push_back("collector-" + std::to_string(next++));
    } else {
      to.erase(to.begin() + static_cast<std::ptrdiff_t>(rng % to.size()));
    }
    auto after = assign_set(*s, targets, to, current);
    const double churn = moved(current, after) * static_cast<double>(std::max(names.size(), to.size()));
    worst_churn = std::max(worst_churn, churn);
    sum_churn += churn;
    current = std::move(after);
    names = std::move(to);
  }
  auto fresh = assign_set(*s, targets, names, {});
  std::printf("| %s | %zu | %zu | %zu | %.3f | %.3f | %.2f | %.2f | %.1f%% |\n", label, n, per, steps, worst_max,
              worst_min, sum_churn / static_cast<double>(steps), worst_churn, 100 * moved(current, fresh));
}

void sequences(bool quick) {
  std::printf("\n### Membership sequences (joins and leaves alternate; worst over every state)\n\n");
  std::printf(
      "| strategy | N | targets per collector | changes | worst max/avg | worst min/avg | mean churn | worst churn | "
      "moved by a restart |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  StrategyConfig ch;
  for (std::size_t per : {100u, 1000u}) {
    for (std::size_t n : {10u, 100u, 1000u}) {
      if (n * per > (quick ? 10000u : 100000u)) continue;
      sequence_row("consistent-hashing", n, per, n >= 1000 ? 10 : 40, ch);
    }
  }
}

void balance(bool quick) {
  std::printf("\n### Balance and churn (churn = share of targets moved / ideal 1/(N+1) or 1/N)\n\n");
  std::printf(
      "| strategy | N | targets per collector | max/avg | min/avg | churn +1 | churn -1 | existing moved by +1%% "
      "targets |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
  StrategyConfig ch;
  StrategyConfig lw;
  lw.name = "least-weighted";
  StrategyConfig lwr = lw;
  lwr.rebalance_on_scale_out = true;
  for (std::size_t per : {100u, 1000u}) {
    for (std::size_t n : {10u, 100u, 1000u}) {
      if (quick && n * per > 100000) continue;
      balance_row("consistent-hashing", n, per, ch);
    }
  }
  for (std::size_t n : {10u, 100u, 1000u}) {
    if (quick && n > 100) continue;
    balance_row("least-weighted", n, 100, lw);
    balance_row("least-weighted + rebalance", n, 100, lwr);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // The target-allocator binary's process settings, so the figures are
  // the product's (the malloc environment variables still override them).
  actors::tune_target_allocator_memory();
  bool quick = false;
  std::string side = "both";
  std::vector<std::string> sections;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--targets") == 0 && i + 1 < argc) {
      g_pipeline_targets = std::strtoul(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      g_pipeline_reps = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--passes") == 0) {
      g_print_passes = true;
    } else if (std::strcmp(argv[i], "--side") == 0 && i + 1 < argc) {
      side = argv[++i];
      if (side != "both" && side != "incremental" && side != "full") {
        std::fprintf(stderr, "--side: expected both, incremental or full, got \"%s\"\n", side.c_str());
        return 2;
      }
    } else {
      sections.emplace_back(argv[i]);
    }
  }
  auto wanted = [&](const char* s) {
    return sections.empty() || std::find(sections.begin(), sections.end(), s) != sections.end();
  };
  if (wanted("setting")) setting_and_get(quick);
  if (wanted("pipeline")) pipeline(quick);
  if (wanted("incremental")) incremental(quick, g_pipeline_targets, g_pipeline_reps);
  if (wanted("runtime")) allocation_bench::runtime(quick, g_pipeline_targets, g_pipeline_reps, side);
  if (wanted("response")) response(quick);
  if (wanted("balance")) balance(quick);
  if (wanted("sequence")) sequences(quick);
  return 0;
}
