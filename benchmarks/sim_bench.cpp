// simcluster benchmark, all in one process over loopback HTTP:
//   generate  load time of the issue's synthetic cluster (50 agents, 200
//             instances, 20k ServiceMonitors, 5k PodMonitors, 20k Secrets,
//             500 namespaces) into a fresh Cluster, CRDs included
//   list      100,000 ServiceMonitors: one full list, and the same list in
//             pages of limit=500 following continue tokens
//   watch     events/s delivered from one writer to N = 1, 10, 100 watchers
//             of the same ConfigMaps (each watcher must see every event)
// Usage: sim_bench [--quick] [section...]   (--quick: 10x smaller, for smoke
// runs; sections: generate list watch; default all)
#include <httplib.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "k8s/sim/generate.hpp"
#include "k8s/sim/loader.hpp"
#include "k8s/sim/server.hpp"
#include "model/parse.hpp"

namespace {

using Clock = std::chrono::steady_clock;
bool g_quick = false;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void load_crds(k8s::sim::Cluster& cluster) {
  k8s::sim::load_manifests(cluster, {std::string(AO_SOURCE_DIR) + "/deploy/crds",
                                     std::string(AO_SOURCE_DIR) + "/deploy/prometheus-operator-crds"});
}

void bench_generate() {
  auto spec = k8s::sim::parse_generate_spec(
      g_quick ? "namespaces=50,agents=5,metrics_instances=20,service_monitors=2000,pod_monitors=500,secrets=2000,pods=0"
              : "namespaces=500,agents=50,metrics_instances=200,service_monitors=20000,pod_monitors=5000,probes=0,"
                "secrets=20000,pods=0,seed=1");
  std::vector<double> times;
  std::size_t objects = 0;
  for (int i = 0; i < 3; ++i) {
    k8s::sim::SystemClock clock;
    k8s::sim::Cluster cluster(clock);
    auto start = Clock::now();
    load_crds(cluster);
    objects = k8s::sim::generate_cluster(cluster, spec);
    times.push_back(ms_since(start));
  }
  std::printf("generate: %zu objects, median %.0f ms (of 3)\n", objects, median(times));
}

struct Page {
  std::size_t items = 0;
  std::size_t bytes = 0;
  std::string next;
  double http_ms = 0;  // request to last byte of the response; client-side parsing excluded
};

Page get_page(httplib::Client& cli, const std::string& path) {
  auto start = Clock::now();
  auto res = cli.Get(path, {{"Accept", "application/json"}});
  double http_ms = ms_since(start);
  if (!res || res->status != 200) throw std::runtime_error("list failed: " + path);
  model::Value list = model::parse_json(res->body);
  Page p;
  p.http_ms = http_ms;
  p.items = list.find("items")->size();
  p.bytes = res->body.size();
  const model::Value* cont = list.find("metadata")->find("continue");
  if (cont && cont->is_string()) p.next = cont->as_string();
  return p;
}

void bench_list() {
  k8s::sim::SystemClock clock;
  k8s::sim::Cluster cluster(clock);
  load_crds(cluster);
  std::size_t n = g_quick ? 10000 : 100000;
  auto spec = k8s::sim::parse_generate_spec("namespaces=1000,agents=10,metrics_instances=100,service_monitors=" +
                                            std::to_string(n) + ",pod_monitors=0,probes=0,secrets=10000,pods=0");
  k8s::sim::generate_cluster(cluster, spec);
  k8s::sim::Server server(cluster, {});
  int port = server.start();
  httplib::Client cli("127.0.0.1", port);
  cli.set_read_timeout(300, 0);
  const std::string path = "/apis/monitoring.coreos.com/v1/servicemonitors";
  std::vector<double> full, paged;
  std::size_t bytes = 0, pages = 0;
  for (int i = 0; i < 5; ++i) {
    Page p = get_page(cli, path);
    full.push_back(p.http_ms);
    if (p.items != n) throw std::runtime_error("full list is short");
    bytes = p.bytes;
    double total = 0;
    std::size_t items = 0;
    pages = 0;
    std::string next;
    do {
      Page page = get_page(cli, path + "?limit=500" + (next.empty() ? "" : "&continue=" + next));
      items += page.items;
      next = page.next;
      total += page.http_ms;
      ++pages;
    } while (!next.empty());
    paged.push_back(total);
    if (items != n) throw std::runtime_error("paged list is short");
  }
  std::printf("list %zu ServiceMonitors: full %.0f ms (%.1f MB), limit=500 %.0f ms in all (%zu pages, %.2f ms each)\n",
              n, median(full), bytes / 1e6, median(paged), pages, median(paged) / pages);
}

// Counts complete watch event lines ("{...}\n"); heartbeats are bare "\n".
struct Watcher {
  std::atomic<std::size_t> events{0};
  std::thread thread;
};

struct FanoutResult {
  double write_ms = 0;
  double total_ms = 0;
};

FanoutResult watch_fanout_once(int watchers, std::size_t events) {
  k8s::sim::SystemClock clock;
  k8s::sim::Cluster cluster(clock);
  k8s::sim::Server server(cluster, {});
  int port = server.start();
  auto type = *cluster.types().find("", "v1", "configmaps");
  std::string path = "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=" +
                     std::to_string(cluster.store().current_rv());
  std::vector<std::unique_ptr<Watcher>> ws;
  for (int i = 0; i < watchers; ++i) {
    auto w = std::make_unique<Watcher>();
    Watcher* self = w.get();
    w->thread = std::thread([self, port, path] {
      httplib::Client cli("127.0.0.1", port);
      cli.set_read_timeout(600, 0);
      char last = '\n';
      cli.Get(path, [&](const char* data, std::size_t len) {
        std::size_t n = 0;
        for (std::size_t i = 0; i < len; ++i) {
          if (data[i] == '\n' && (i ? data[i - 1] : last) == '}') ++n;
        }
        if (len) last = data[len - 1];
        self->events += n;
        return true;
      });
    });
    ws.push_back(std::move(w));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let the watches connect (they resume anyway)
  std::vector<std::string> warnings;
  auto start = Clock::now();
  for (std::size_t e = 0; e < events; ++e) {
    std::string name = "cm-" + std::to_string(e % 100);
    std::string json = R"({"metadata":{"name":")" + name + R"("},"data":{"n":")" + std::to_string(e) + R"("}})";
    if (e < 100)
      cluster.create(type, "default", model::parse_json(json), {}, warnings);
    else
      cluster.update(type, "default", name, model::parse_json(json), k8s::sim::Subresource::main, {}, warnings);
  }
  double write_ms = ms_since(start);
  auto all_seen = [&] { return std::all_of(ws.begin(), ws.end(), [&](const auto& w) { return w->events >= events; }); };
  while (!all_seen() && ms_since(start) < 600000) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  double total_ms = ms_since(start);
  server.stop();
  for (auto& w : ws) w->thread.join();
  return {write_ms, total_ms};
}

void bench_watch_fanout(int watchers, std::size_t events) {
  std::vector<double> writes, totals;
  for (int i = 0; i < 3; ++i) {
    auto r = watch_fanout_once(watchers, events);
    writes.push_back(r.write_ms);
    totals.push_back(r.total_ms);
  }
  double total = median(totals);
  std::printf(
      "watch fan-out N=%d: %zu events each, writes %.0f ms, all delivered in %.0f ms -> %.0f events/s"
      " (medians of 3)\n",
      watchers, events, median(writes), total, watchers * events / (total / 1000));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> sections;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0)
      g_quick = true;
    else
      sections.push_back(argv[i]);
  }
  auto wanted = [&](const char* s) {
    return sections.empty() || std::find(sections.begin(), sections.end(), s) != sections.end();
  };
  if (wanted("generate")) bench_generate();
  if (wanted("list")) bench_list();
  if (wanted("watch"))
    for (int n : {1, 10, 100}) bench_watch_fanout(n, g_quick ? 1000 : 20000);
  return 0;
}
