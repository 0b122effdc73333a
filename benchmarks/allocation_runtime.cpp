// allocation_bench's `runtime` section: a discovery update through the
// live allocator's fold (runtime::State), as the allocation actor runs it:
// the watch events of 1% of the Endpoints objects (per object of 10
// addresses, one address replaced and three pointed at new pods: new
// identities, and a changed resourceVersion), then the reallocate input,
// then AllocationServer::publish (every body the server serves, and the
// /metrics gauges). One State takes the incremental path, the other
// reprocesses every target (State::set_incremental(false), what every
// update cost before); both take the same inputs and every round checks
// that they agree (with --side, only one State takes the rounds).
#include <malloc.h>

#include <algorithm>
#include <cstdio>

#include "allocation/label_arena.hpp"
#include "allocation/runtime/replay.hpp"
#include "allocation/server.hpp"
#include "allocation_bench.hpp"
#include "model/parse.hpp"

namespace allocation_bench {
namespace {

using namespace allocation;
using namespace allocation::runtime;

constexpr std::size_t kPerObject = 10;

const char* const kRuntimeConfig = R"(collectors: [%s]
config:
  scrape_configs:
    - job_name: serviceMonitor/team/app/0
      kubernetes_sd_configs: [{role: endpoints}]
      relabel_configs:
        - {source_labels: [__meta_kubernetes_endpoint_port_name], regex: http-metrics, action: keep}
        - {source_labels: [__meta_kubernetes_namespace], target_label: namespace}
        - {source_labels: [__meta_kubernetes_endpoints_name], target_label: service}
        - {source_labels: [__meta_kubernetes_endpoint_address_target_name], target_label: pod}
)";

std::string runtime_config() {
  std::string names;
  for (int c = 0; c < 100; ++c) names += (c ? ", c-" : "c-") + std::to_string(c);
  std::vector<char> buf(std::char_traits<char>::length(kRuntimeConfig) + names.size() + 1);
  std::snprintf(buf.data(), buf.size(), kRuntimeConfig, names.c_str());
  return buf.data();
}

// Endpoints object g; round r > 0 replaces address 0 and renames pods 1-3.
std::string endpoints_json(std::size_t g, int r) {
  std::string out = R"({"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"svc-)" + std::to_string(g) +
                    R"(","namespace":"team-)" + std::to_string(g % 50) + R"(","resourceVersion":")" +
                    std::to_string(r) + R"("},"subsets":[{"addresses":[)";
  for (std::size_t k = 0; k < kPerObject; ++k) {
    const std::size_t i = g * kPerObject + k + (k == 0 && r > 0 ? 10000000 * static_cast<std::size_t>(r) : 0);
    const std::string ip =
        "10." + std::to_string(i / 65536 % 256) + "." + std::to_string(i / 256 % 256) + "." + std::to_string(i % 256);
    std::string pod = "svc-" + std::to_string(g) + "-" + std::to_string(k) + "-x7f9k";
    if (k >= 1 && k <= 3 && r > 0) pod += "-" + std::to_string(r);
    out += (k ? "," : "") + std::string(R"({"ip":")") + ip + R"(","nodeName":"node-)" + std::to_string(i % 300) +
           R"(","targetRef":{"kind":"Pod","namespace":"team-)" + std::to_string(g % 50) + R"(","name":")" + pod +
           R"("}})";
  }
  return out + R"(],"ports":[{"name":"http-metrics","port":8080,"protocol":"TCP"}]}]})";
}

struct Side {
  State state;
  AllocationServer server{ServerOptions{}};
  std::vector<double> update_ms, realloc_ms, publish_ms, feed_ms;
};

// Not inlined, so a profiler can collect exactly the timed watch events
// (valgrind --tool=callgrind --toggle-collect='*feed*').
[[gnu::noinline]] void feed(Side& s, const Input& in, bool time_it) {
  auto t0 = WallClock::now();
  s.state.apply(in);
  if (!time_it) return;
  const double ms = ms_since(t0);
  s.update_ms.back() += ms;
  s.feed_ms.back() += ms;
}

void reallocate(Side& s, std::uint64_t seq) {
  Input in;
  in.seq = seq;
  auto t0 = WallClock::now();
  const Effects fx = s.state.apply(in);
  s.realloc_ms.push_back(ms_since(t0));
  s.update_ms.back() += s.realloc_ms.back();
  auto t1 = WallClock::now();
  s.server.publish(s.state.allocator(), s.state.scrape_configs());
  s.server.metrics().set_invalid_targets(s.state.invalid_targets());
  s.publish_ms.push_back(ms_since(t1));
  s.update_ms.back() += s.publish_ms.back();
  if (!fx.targets_set) std::printf("unexpected: no targets step\n");
}

Input endpoints_input(const std::string& watch, std::size_t g, int r, std::uint64_t seq) {
  Input in;
  in.seq = seq;
  in.type = InputType::watch;
  in.watch = {watch, r ? discovery::Change::modified : discovery::Change::added,
              std::make_shared<const model::Value>(model::parse_json(endpoints_json(g, r)))};
  return in;
}

// Same assignment, buckets and generation (loads and versions per job).
void runtime_row(std::size_t n, int rounds, const std::string& side) {
  Side inc, full;
  full.state.set_incremental(false);
  // A State the rounds skip holds no objects either: it would keep every
  // replaced object's tree alive and grow the heap the measured one uses.
  auto takes = [&](const Side& s) { return side == "both" || side == (&s == &inc ? "incremental" : "full"); };
  std::uint64_t seq = 0;
  Input config;
  config.type = InputType::config;
  config.config = {runtime_config(), "ta.yaml", false, "ops"};
  config.seq = ++seq;
  inc.state.apply(config), full.state.apply(config);
  std::string watch;
  for (const auto& w : inc.state.watches())
    if (w.kind == "Endpoints") watch = w.id;
  const std::size_t objects = n / kPerObject;
  for (std::size_t g = 0; g < objects; ++g) {
    const Input in = endpoints_input(watch, g, 0, ++seq);
    for (Side* s : {&inc, &full})
      if (takes(*s)) s->state.apply(in);
  }
  inc.update_ms.push_back(0), full.update_ms.push_back(0);
  ++seq;
  for (Side* s : {&inc, &full})
    if (takes(*s)) reallocate(*s, seq);
  inc.update_ms.clear(), inc.realloc_ms.clear(), inc.publish_ms.clear();
  full.update_ms.clear(), full.realloc_ms.clear(), full.publish_ms.clear();
  const std::size_t changed = std::max<std::size_t>(1, objects / 100), step = objects / changed;
  const std::size_t arena_before = label_arena_mapped(), heap_before = mallinfo2().uordblks;
  int differ = 0;
  for (int r = 1; r <= rounds; ++r) {
    std::vector<Input> inputs;
    for (std::size_t k = 0; k < changed; ++k)
      inputs.push_back(endpoints_input(watch, (k * step + static_cast<std::size_t>(r)) % objects, r, ++seq));
    ++seq;
    for (Side* s : {&inc, &full}) {
      s->update_ms.push_back(0), s->feed_ms.push_back(0);
      if (!takes(*s)) {
        s->realloc_ms.push_back(0), s->publish_ms.push_back(0);
        continue;
      }
      for (const auto& in : inputs) feed(*s, in, true);
      reallocate(*s, seq);
    }
    if (side == "both") differ += same_allocation(inc.state.allocator(), full.state.allocator()) ? 0 : 1;
  }
  std::printf("| %zu | %zu | %.2f / %.2f / %.2f | %.2f / %.2f / %.2f | %.1f%% | %d of %d |\n", n, changed * kPerObject,
              median(full.update_ms), median(full.realloc_ms), median(full.publish_ms), median(inc.update_ms),
              median(inc.realloc_ms), median(inc.publish_ms),
              side == "both" ? 100 * median(inc.update_ms) / median(full.update_ms) : 0.0, differ, rounds);
  // The watch events alone, and how far label-set storage grew over the
  // rounds (stderr, so the table stays as recorded).
  std::fprintf(stderr,
               "runtime %zu: feed median %.3f ms (incremental), %.3f ms (full); label arena %zu -> %zu MiB; "
               "heap in use %.1f -> %.1f MiB\n",
               n, median(inc.feed_ms), median(full.feed_ms), arena_before >> 20, label_arena_mapped() >> 20,
               static_cast<double>(heap_before) / (1 << 20), static_cast<double>(mallinfo2().uordblks) / (1 << 20));
}

}  // namespace

void runtime(bool quick, std::size_t only_targets, int reps, const std::string& side) {
  std::printf("\n### Live runtime: a 1%% discovery update through runtime::State and publish\n\n");
  std::printf(
      "| targets | rediscovered | every target reprocessed: update / reallocate / publish median (ms) | "
      "incremental: update / reallocate / publish median (ms) | incremental / full | rounds differing |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|\n");
  for (std::size_t n : {10000u, 100000u, 800000u}) {
    if ((quick && n > 10000) || (only_targets && n != only_targets)) continue;
    runtime_row(n, reps > 0 ? reps : n > 100000 ? 5 : 11, side);
  }
}

}  // namespace allocation_bench
