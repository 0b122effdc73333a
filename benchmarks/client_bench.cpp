// API client benchmark: list responses of 10,000 and 100,000 ConfigMaps
// (labels, annotations and data, about 600 bytes each) served by an
// in-process simcluster over loopback HTTP. Reports, as the median of
// --iterations runs:
//   fetch        Client::list of one page (server encoding, HTTP transfer,
//                the client's on-demand scan for resourceVersion/continue)
//   list_all     Client::list_all in pages of 500, joined into one body
//   decode       model::parse_json of the body into a model::Value tree
//   simdjson     simdjson's DOM parse of the same bytes: the physical limit
//                of decoding, since parse_json is simdjson plus tree building
//   reflector    Reflector start() until on_synced (paged list, decode, diff)
// Usage: client_bench [--objects N]... [--iterations K]
#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "k8s/client/client.hpp"
#include "k8s/client/curl_transport.hpp"
#include "k8s/client/reflector.hpp"
#include "k8s/sim/cluster.hpp"
#include "k8s/sim/server.hpp"
#include "model/parse.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string config_map(int i) {
  std::string n = std::to_string(i);
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-)" + n + R"(","namespace":"ns-)" +
         std::to_string(i % 50) +
         R"(","labels":{"app.kubernetes.io/name":"agent","app.kubernetes.io/instance":"inst-)" + n +
         R"(","team":"observability"},"annotations":{"example.com/owner":"platform-team","example.com/revision":")" +
         n + R"("}},"data":{"config.yaml":"scrape_interval: 30s\nscrape_timeout: 10s\njob: job-)" + n +
         R"(\nrelabel: keep\n","endpoint":"http://service-)" + n + R"(.ns.svc.cluster.local:9090/metrics"}})";
}

k8s::Result wait_for(const std::function<void(k8s::Callback)>& start) {
  std::promise<k8s::Result> p;
  start([&p](k8s::Result r) { p.set_value(std::move(r)); });
  return p.get_future().get();
}

void report(const char* what, std::size_t objects, std::size_t bytes, double seconds) {
  std::printf("  %-10s %9.1f ms  %12.0f objects/s  %8.1f MB/s\n", what, seconds * 1e3, objects / seconds,
              bytes / seconds / 1e6);
}

void run(std::size_t objects, int iterations) {
  k8s::sim::SystemClock clock;
  k8s::sim::Cluster cluster(clock);
  for (int i = 0; i < 50; ++i)
    cluster.apply_manifest(model::parse_json(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns-)" +
                                             std::to_string(i) + "\"}}"));
  auto fill = Clock::now();
  for (std::size_t i = 0; i < objects; ++i) cluster.apply_manifest(model::parse_json(config_map(static_cast<int>(i))));
  std::printf("%zu ConfigMaps (created in %.1f s)\n", objects, seconds_since(fill));
  k8s::sim::Server server(cluster, {});
  server.start();
  k8s::ClusterConfig config;
  config.server = server.url();
  k8s::ClientOptions options;
  options.timeout = std::chrono::minutes(5);
  // The default 50 QPS would make 200 pages of 500 take four seconds: this
  // measures the client, not its rate limit.
  options.qps = 1e6;
  options.burst = 1e6;
  k8s::Client client(k8s::make_curl_transport(config), options);
  const k8s::Resource& cm = *k8s::resource_for_kind("ConfigMap");

  std::vector<double> fetch, list_all, decode, raw, reflect;
  std::string body;
  for (int it = 0; it < iterations; ++it) {
    auto t = Clock::now();
    k8s::Result r = wait_for([&](k8s::Callback cb) { client.list(cm, "", {}, cb); });
    fetch.push_back(seconds_since(t));
    if (!r.ok()) throw std::runtime_error("list failed: " + r.error);
    body = std::move(r.body);

    k8s::ListOptions paged;
    paged.limit = 500;
    t = Clock::now();
    r = wait_for([&](k8s::Callback cb) { client.list_all(cm, "", paged, cb); });
    list_all.push_back(seconds_since(t));
    if (!r.ok() || r.body.size() < body.size() * 9 / 10) throw std::runtime_error("list_all failed: " + r.error);

    t = Clock::now();
    model::Value v = model::parse_json(body, "list");
    decode.push_back(seconds_since(t));
    if (v.find("items")->size() != objects) throw std::runtime_error("wrong item count");

    simdjson::padded_string padded(body);
    simdjson::dom::parser parser;
    t = Clock::now();
    simdjson::dom::element doc;
    if (parser.parse(padded).get(doc) != simdjson::SUCCESS) throw std::runtime_error("simdjson failed");
    raw.push_back(seconds_since(t));

    std::promise<void> synced;
    std::atomic<std::size_t> events{0};
    k8s::ReflectorOptions ro;
    k8s::Reflector reflector(
        client, cm, ro, [&](k8s::ObjectEvent) { ++events; }, [&] { synced.set_value(); });
    t = Clock::now();
    reflector.start();
    synced.get_future().wait();
    reflect.push_back(seconds_since(t));
    reflector.stop();
    if (events != objects) throw std::runtime_error("reflector saw the wrong number of objects");
  }
  std::printf("  body %.1f MB, %zu bytes/object, median of %d\n", body.size() / 1e6, body.size() / objects, iterations);
  report("fetch", objects, body.size(), median(fetch));
  report("list_all", objects, body.size(), median(list_all));
  report("decode", objects, body.size(), median(decode));
  report("simdjson", objects, body.size(), median(raw));
  report("reflector", objects, body.size(), median(reflect));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes;
  int iterations = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--objects") == 0)
      sizes.push_back(std::stoul(argv[i + 1]));
    else if (std::strcmp(argv[i], "--iterations") == 0)
      iterations = std::stoi(argv[i + 1]);
  }
  if (sizes.empty()) sizes = {10'000, 100'000};
  for (std::size_t n : sizes) run(n, iterations);
}
