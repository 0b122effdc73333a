// Operator load benchmark: the whole controller (informers, journal,
// router, roots, writer) against a generated simcluster running as a
// separate process, so the RSS measured here is the operator's own.
//   cold start  process-relative time from Controller::start() until the
//               last write of the initial reconcile (every root reconciled)
//   latency     ServiceMonitor edit -> every affected config Secret written,
//               over N edits, debounce 0 (excluded, as the goal says)
//   routing     events/s through journal, router and roots, fed straight
//               into the journal actor (no HTTP), drained when the router
//               has routed them all
// Usage: operator_load [--quick | --scale S] [--edits N] [--qps Q] [--hold]
//   --scale S multiplies every count of the 1x cluster (--quick is 0.1)
//   --hold    stops after the cold start's figures and waits to be killed,
//             so a heap profiler killed then shows the live heap of a
//             settled controller (benchmarks/README.md, "operator_load")
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "actors/controller.hpp"
#include "actors/protocol.hpp"
#include "k8s/client/config.hpp"
#include "k8s/client/curl_transport.hpp"
#include "k8s/sim/generate.hpp"
#include "k8s/sim/process.hpp"
#include "model/hierarchy.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Flags {
  double scale = 1;
  int edits = 1000;
  double qps = 1000;
  bool hold = false;
};

// The 1x cluster: 500 namespaces, 50 agents, 200 MetricsInstances, 20,000
// ServiceMonitors, 5,000 PodMonitors and 20,000 Secrets, each count scaled.
std::string spec_text(double scale) {
  auto n = [scale](double base) { return std::to_string(static_cast<long>(base * scale + 0.5)); };
  return "namespaces=" + n(500) + ",agents=" + n(50) + ",metrics_instances=" + n(200) +
         ",service_monitors=" + n(20000) + ",pod_monitors=" + n(5000) + ",probes=0,secrets=" + n(20000) +
         ",pods=0,seed=1";
}

double peak_rss_mib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;
}

// Resident memory now (VmRSS), after returning free heap pages to the OS:
// the peak also counts the driver's own generated copy of the cluster.
double current_rss_mib() {
  malloc_trim(0);
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return resident * (sysconf(_SC_PAGESIZE) / 1024.0) / 1024.0;
}

double ms(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

double pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * v.size()))];
}

// Config Secret writes seen by the writer: name -> times.
struct WriteLog {
  std::mutex mu;
  std::condition_variable cv;
  std::multimap<std::string, Clock::time_point> config_writes;
  Clock::time_point last_write{};
  void on_entry(const model::LogEntry& e) {
    if (e.component != "writer") return;
    std::lock_guard<std::mutex> lock(mu);
    last_write = Clock::now();
    // msg=updated object="Secret ns/name-config"
    const std::string object = e.value("object");
    if (e.msg != "updated" || object.rfind("Secret ", 0) != 0) return;
    std::string id = object.substr(7);
    if (id.size() > 7 && id.compare(id.size() - 7, 7, "-config") == 0) config_writes.emplace(id, Clock::now());
    cv.notify_all();
  }
};

// Which agents' config each of the first `wanted` ServiceMonitors (in key
// order, among those some agent selects) feeds, from the same generated
// objects. Only a few times `wanted` monitors enter the inventory: every
// hierarchy over all of them is quadratic at 10x and would time the driver.
std::map<std::pair<std::string, std::string>, std::set<std::string>> affected_agents(const k8s::sim::GenerateSpec& spec,
                                                                                     std::size_t wanted) {
  std::vector<model::Value> objects = k8s::sim::generate_objects(spec);
  std::vector<model::Key> monitors;
  for (const auto& obj : objects)
    if (model::string_at(obj, {"kind"}) == "ServiceMonitor") monitors.push_back(model::object_key(obj));
  std::sort(monitors.begin(), monitors.end());
  monitors.resize(std::min(monitors.size(), wanted * 4 + 100));
  std::set<model::Key> candidates(monitors.begin(), monitors.end());
  model::Inventory inv;
  for (auto& obj : objects)
    if (model::string_at(obj, {"kind"}) != "ServiceMonitor" || candidates.count(model::object_key(obj)))
      inv.add(std::move(obj));
  objects.clear();
  std::map<std::pair<std::string, std::string>, std::set<std::string>> out;
  for (const auto& [key, agent] : inv.agents) {
    model::Hierarchy h = model::build_hierarchy(inv, agent.obj);
    for (const auto& mi : h.metrics)
      for (const auto& sm : mi.service_monitors)
        out[{sm.ns(), sm.name()}].insert(key.first + "/" + key.second + "-config");
  }
  return out;
}

k8s::Result call(const std::function<void(k8s::Callback)>& f) {
  std::promise<k8s::Result> p;
  f([&](k8s::Result r) { p.set_value(std::move(r)); });
  return p.get_future().get();
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick"))
      flags.scale = 0.1;
    else if (!std::strcmp(argv[i], "--scale") && i + 1 < argc)
      flags.scale = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--edits") && i + 1 < argc)
      flags.edits = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--qps") && i + 1 < argc)
      flags.qps = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--hold"))
      flags.hold = true;
  }
  auto spec = k8s::sim::parse_generate_spec(spec_text(flags.scale));
  std::string kubeconfig = "/tmp/operator-load-" + std::to_string(::getpid()) + ".kubeconfig";
  k8s::sim::Child sim({std::string(AO_BIN_DIR) + "/simcluster", "--listen", "127.0.0.1:0", "--kubeconfig-out",
                       kubeconfig, "--crds", std::string(AO_SOURCE_DIR) + "/deploy/crds",
                       std::string(AO_SOURCE_DIR) + "/deploy/prometheus-operator-crds", "--generate",
                       spec_text(flags.scale)});
  if (!sim.read_until([](const std::string& out) { return out.find("listening on") != std::string::npos; },
                      std::chrono::seconds(static_cast<long>(120 * std::max(1.0, flags.scale))))) {
    std::fprintf(stderr, "simcluster did not start\n");
    return 1;
  }
  auto affected = affected_agents(spec, static_cast<std::size_t>(std::max(flags.edits, 1)));
  std::printf("cluster: %s (%zu ServiceMonitors to edit, each selected by some agent)\n",
              spec_text(flags.scale).c_str(), affected.size());
  double rss_before = peak_rss_mib();

  actors::tune_process_memory();  // as agent-operator run does
  caf::actor_system_config cfg;
  actors::set_operator_threads(cfg);  // as agent-operator run does
  if (!std::getenv("AO_STEALING")) actors::tune_actor_system(cfg);
  caf::actor_system sys{cfg};
  k8s::ClientOptions co;
  co.qps = flags.qps;
  co.burst = flags.qps * 2;
  k8s::Client client(k8s::make_curl_transport(k8s::from_kubeconfig(kubeconfig)), co);
  WriteLog writes;
  actors::ControllerOptions opts;
  opts.root.debounce = std::chrono::milliseconds(0);
  opts.writer.now_rfc3339 = [] { return std::string("2024-05-01T12:00:00Z"); };
  opts.log = [&writes](const model::LogEntry& e) { writes.on_entry(e); };
  actors::Controller ctl(sys, client, opts);

  auto t0 = Clock::now();
  ctl.start();
  while (!ctl.synced()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  auto synced_at = Clock::now();
  // Rendering every root can take longer than wait_idle's quiet period
  // without any event: first wait until every root has handed the writer
  // its objects.
  while (ctl.stats().writer.roots < spec.agents) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ctl.wait_idle(std::chrono::minutes(30), std::chrono::milliseconds(1000));
  auto stats = ctl.stats();
  std::printf(
      "cold start: %.0f ms to the last initial write (informers synced after %.0f ms); %zu roots, %llu "
      "writes, %llu journal events\n",
      ms(writes.last_write - t0), ms(synced_at - t0), stats.writer.roots,
      static_cast<unsigned long long>(stats.writer.writes), static_cast<unsigned long long>(stats.journal_seq));
  std::printf("peak RSS after cold start: %.0f MiB (%.0f MiB before the controller started)\n", peak_rss_mib(),
              rss_before);
  double rss_now = current_rss_mib();
  std::printf("RSS after cold start, free heap returned: %.0f MiB = %.2f KB per watched object (%llu)\n", rss_now,
              rss_now * 1024 / std::max<double>(1, stats.journal_seq),
              static_cast<unsigned long long>(stats.journal_seq));
  // malloc's own count of the bytes in use: the live heap, without the
  // free chunks, arenas and pages the RSS above still counts.
  struct mallinfo2 mi = mallinfo2();
  double in_use = static_cast<double>(mi.uordblks + mi.hblkhd) / (1024 * 1024);
  std::printf("heap in use: %.0f MiB = %.2f KB per watched object\n", in_use,
              in_use * 1024 / std::max<double>(1, stats.journal_seq));
  std::fflush(stdout);
  while (flags.hold) std::this_thread::sleep_for(std::chrono::seconds(1));

  // Change latency: edit one ServiceMonitor at a time.
  const k8s::Resource& sm = *k8s::resource_for_kind("ServiceMonitor");
  std::vector<double> latencies;
  auto it = affected.begin();
  for (int i = 0; i < flags.edits && it != affected.end(); ++i, ++it) {
    const auto& [key, configs] = *it;
    std::string body = R"({"metadata":{"labels":{"load-edit":")" + std::to_string(i) +
                       R"("}},"spec":{"endpoints":[{"port":"web","interval":")" + std::to_string(10 + i % 50) +
                       R"(s"}]}})";
    auto start = Clock::now();
    k8s::Result r = call(
        [&](k8s::Callback cb) { client.patch(sm, key.first, key.second, k8s::PatchType::merge, body, std::move(cb)); });
    if (!r.ok()) {
      std::fprintf(stderr, "patch %s/%s: HTTP %d %s\n", key.first.c_str(), key.second.c_str(), r.status,
                   r.error.c_str());
      return 1;
    }
    std::unique_lock<std::mutex> lock(writes.mu);
    Clock::time_point done{};
    bool all = writes.cv.wait_for(lock, std::chrono::seconds(10), [&] {
      for (const auto& c : configs) {
        auto range = writes.config_writes.equal_range(c);
        auto hit = std::find_if(range.first, range.second, [&](const auto& w) { return w.second >= start; });
        if (hit == range.second) return false;
        done = std::max(done, hit->second);
      }
      return true;
    });
    if (!all) {
      std::fprintf(stderr, "edit %d: not every affected config Secret was written within 10 s\n", i);
      return 1;
    }
    latencies.push_back(ms(done - start));
  }
  std::printf("change latency over %zu edits: p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", latencies.size(),
              pct(latencies, 0.5), pct(latencies, 0.99), pct(latencies, 1.0));

  // Routing throughput: re-send every object as the cluster holds it, less
  // what the informers drop (so no root has anything to re-render), as
  // MODIFIED straight into the journal, and wait until the selectors have
  // routed them all.
  std::vector<std::pair<std::string, model::Value>> objects;
  for (const char* kind : {"Namespace", "Secret", "GrafanaAgent", "MetricsInstance", "ServiceMonitor", "PodMonitor"}) {
    k8s::Result r = call([&](k8s::Callback cb) { client.list_all(*k8s::resource_for_kind(kind), "", {}, cb); });
    model::Value list = model::parse_json(r.body, "list");
    for (auto& item : list.find("items")->as_array()) {
      if (model::Value* meta = item.find("metadata"))
        for (std::string_view field : actors::kUnreadMetadata) meta->erase(field);
      objects.emplace_back(kind, std::move(item));
    }
  }
  auto before = ctl.stats();
  auto rs = Clock::now();
  for (auto& [kind, obj] : objects)
    caf::anon_send(ctl.journal(), actors::ingest_atom::value, kind, actors::core::EventType::modified,
                   actors::core::ObjectPtr(std::make_shared<const model::Value>(std::move(obj))));
  std::uint64_t target = before.selectors.events + objects.size();
  while (ctl.stats().selectors.events < target) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  double secs = ms(Clock::now() - rs) / 1000;
  std::printf("routing: %zu events through journal and router to roots in %.0f ms = %.0f events/s\n", objects.size(),
              secs * 1000, objects.size() / secs);
  ctl.wait_idle(std::chrono::minutes(2), std::chrono::milliseconds(500));
  std::printf("peak RSS at the end: %.0f MiB\n", peak_rss_mib());
  ctl.stop();
  sim.terminate();
  std::remove(kubeconfig.c_str());
  return 0;
}
