// consistent_bench (issue 19): shardingStrategy consistent against an
// in-process simcluster, with the real controller and AgentAllocations.
//   edit latency  a new Service with its Endpoints behind the ServiceMonitor
//                 -> its address in some shard's published answer, over N
//                 edits (p50, p99, max)
//   API load      watch connections opened and bytes the API server sent
//                 to the operator's discovery, against `agents` copies of
//                 the same discovery: what shards x replicas agents running
//                 kubernetes_sd themselves would open and receive
// Usage: consistent_bench [--services S] [--addresses A] [--edits N]
//                         [--shards K] [--replicas R] [--simulate-agents 0|1]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "actors/allocation/agent_allocations.hpp"
#include "actors/controller.hpp"
#include "k8s/client/curl_transport.hpp"
#include "k8s/sim/clock.hpp"
#include "k8s/sim/cluster.hpp"
#include "k8s/sim/loader.hpp"
#include "k8s/sim/server.hpp"
#include "model/parse.hpp"

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  int services = 200, addresses = 10, edits = 100, shards = 10, replicas = 2;
  bool simulate_agents = true;  // 0: the operator's discovery alone (latency without the copies' load)
};

// Counts what the API server sends: every watch opened, every byte of
// list answers and watch lines.
class CountingTransport : public k8s::Transport {
 public:
  explicit CountingTransport(std::shared_ptr<k8s::Transport> inner) : inner_(std::move(inner)) {}
  void send(k8s::Request req, k8s::Callback cb) override {
    inner_->send(std::move(req), [this, cb = std::move(cb)](k8s::Result r) {
      bytes += r.body.size();
      cb(std::move(r));
    });
  }
  k8s::StreamId stream(k8s::Request req, k8s::LineHandler on_line, k8s::Callback on_done) override {
    ++watches;
    return inner_->stream(
        std::move(req),
        [this, on_line = std::move(on_line)](std::string_view line) {
          bytes += line.size() + 1;
          on_line(line);
        },
        std::move(on_done));
  }
  void cancel(k8s::StreamId id) override { inner_->cancel(id); }
  void post(std::function<void()> fn) override { inner_->post(std::move(fn)); }
  void post_after(std::chrono::milliseconds d, std::function<void()> fn) override {
    inner_->post_after(d, std::move(fn));
  }
  bool in_io_thread() const override { return inner_->in_io_thread(); }
  std::atomic<std::uint64_t> watches{0}, bytes{0};

 private:
  std::shared_ptr<k8s::Transport> inner_;
};

// One discovery as the operator runs it for the agent: AgentAllocations on
// its own counting client.
struct Discovery {
  std::shared_ptr<CountingTransport> transport;
  std::unique_ptr<k8s::Client> client;
  std::unique_ptr<actors::AgentAllocations> allocations;
  Discovery(caf::actor_system& sys, const std::string& url) {
    k8s::ClusterConfig cc;
    cc.server = url;
    transport = std::make_shared<CountingTransport>(k8s::make_curl_transport(cc));
    client = std::make_unique<k8s::Client>(transport);
    allocations = std::make_unique<actors::AgentAllocations>(sys, actors::AgentAllocationsConfig{client.get()});
  }
};

std::string cluster_yaml(const Options& o) {
  std::string y = R"(
apiVersion: v1
kind: Namespace
metadata: {name: mon}
---
apiVersion: v1
kind: Namespace
metadata: {name: app}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: mon}
spec:
  serviceAccountName: agent
  metrics:
    instanceSelector: {}
    shardingStrategy: consistent
    shards: )" + std::to_string(o.shards) +
                  "\n    replicas: " + std::to_string(o.replicas) + R"(
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: mon}
spec:
  serviceMonitorNamespaceSelector: {}
  serviceMonitorSelector: {}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: app}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: http-metrics}]
)";
  return y;
}

std::string address(int service, int i) {
  return "10." + std::to_string(service / 250) + "." + std::to_string(service % 250) + "." + std::to_string(i + 1);
}

std::string service_yaml(int n, int addresses) {
  std::string name = "web-" + std::to_string(n), list;
  for (int i = 0; i < addresses; ++i) list += "{ip: " + address(n, i) + "},";
  return "apiVersion: v1\nkind: Service\nmetadata: {name: " + name +
         ", namespace: app, labels: {app: web}}\nspec: {ports: [{name: http-metrics, port: 8080}]}\n---\n"
         "apiVersion: v1\nkind: Endpoints\nmetadata: {name: " +
         name + ", namespace: app, labels: {app: web}}\nsubsets: [{addresses: [" + list +
         "], ports: [{name: http-metrics, port: 8080}]}]\n";
}

void apply_yaml(k8s::sim::Cluster& c, const std::string& yaml) {
  for (auto& doc : model::parse_documents(yaml, "bench")) c.apply_manifest(std::move(doc.value));
}

// Targets published for the agent over all shards, and whether `needle`
// (an address) is among them.
std::size_t published(const actors::AgentAllocations& a, const std::string& needle, bool& found) {
  found = false;
  auto l = a.lookup("mon", "agent");
  if (!l || !l->targets) return 0;
  std::size_t n = 0;
  for (const auto& [key, t] : l->targets->answers) {
    for (std::size_t at = t.body->find("\"targets\""); at != std::string::npos;
         at = t.body->find("\"targets\"", at + 1))
      ++n;
    if (!needle.empty() && t.body->find("\"" + needle + ":8080\"") != std::string::npos) found = true;
  }
  return n;
}

bool wait_for(const std::function<bool()>& cond, std::chrono::seconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!cond()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

double ms(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    int v = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--services"))
      o.services = v;
    else if (!std::strcmp(argv[i], "--addresses"))
      o.addresses = v;
    else if (!std::strcmp(argv[i], "--edits"))
      o.edits = v;
    else if (!std::strcmp(argv[i], "--shards"))
      o.shards = v;
    else if (!std::strcmp(argv[i], "--replicas"))
      o.replicas = v;
    else if (!std::strcmp(argv[i], "--simulate-agents"))
      o.simulate_agents = v != 0;
    else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      std::exit(2);
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  k8s::sim::SystemClock clock;
  k8s::sim::Cluster cluster(clock);
  k8s::sim::load_manifests(cluster, {AO_SOURCE_DIR "/deploy/crds", AO_SOURCE_DIR "/deploy/prometheus-operator-crds"});
  k8s::sim::Server server(cluster, k8s::sim::ServerOptions{});
  server.start();
  apply_yaml(cluster, cluster_yaml(o));
  for (int s = 0; s < o.services; ++s) apply_yaml(cluster, service_yaml(s, o.addresses));

  caf::actor_system_config cfg;
  actors::tune_actor_system(cfg);
  caf::actor_system sys{cfg};
  // The operator's discovery, then one copy per agent pod under hashmod.
  const int agents = o.simulate_agents ? o.shards * o.replicas : 0;
  std::vector<std::unique_ptr<Discovery>> discoveries;
  for (int i = 0; i <= agents; ++i) discoveries.push_back(std::make_unique<Discovery>(sys, server.url()));
  Discovery& op = *discoveries.front();
  k8s::ClusterConfig cc;
  cc.server = server.url();
  k8s::Client client(k8s::make_curl_transport(cc));
  actors::ControllerOptions co;
  co.root.debounce = 0ms;
  co.root.on_render = [&discoveries](const actors::RootOutput& out) {
    for (auto& d : discoveries) d->allocations->on_render(out);
  };
  actors::Controller controller(sys, client, std::move(co));
  const auto started = Clock::now();
  controller.start();
  const std::size_t want = static_cast<std::size_t>(o.services) * o.addresses;
  bool found = false;
  if (!wait_for([&] { return published(*op.allocations, "", found) == want; }, 120s)) {
    std::fprintf(stderr, "the first allocation never covered %zu targets\n", want);
    return 1;
  }
  std::printf("targets %zu over %d shards: first allocation after %.0f ms\n", want, o.shards,
              ms(Clock::now() - started));

  std::vector<double> latency;
  for (int e = 0; e < o.edits; ++e) {
    const int n = o.services + e;
    const auto t0 = Clock::now();
    apply_yaml(cluster, service_yaml(n, 1));
    if (!wait_for([&] { return published(*op.allocations, address(n, 0), found), found; }, 30s)) {
      std::fprintf(stderr, "edit %d never reached a shard\n", e);
      return 1;
    }
    latency.push_back(ms(Clock::now() - t0));
  }
  std::sort(latency.begin(), latency.end());
  auto pct = [&](double p) {
    return latency[std::min(latency.size() - 1, static_cast<std::size_t>(p * latency.size()))];
  };
  std::printf("edit -> shard answer over %d edits: p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", o.edits, pct(0.5),
              pct(0.99), latency.back());

  std::uint64_t agent_watches = 0, agent_bytes = 0;
  for (std::size_t i = 1; i < discoveries.size(); ++i) {
    agent_watches += discoveries[i]->transport->watches;
    agent_bytes += discoveries[i]->transport->bytes;
  }
  std::printf(
      "API load: operator alone %llu watches, %.2f MB; %d agents (%d shards x %d replicas) running "
      "kubernetes_sd: %llu watches, %.2f MB\n",
      static_cast<unsigned long long>(op.transport->watches.load()), op.transport->bytes / 1e6, agents, o.shards,
      o.replicas, static_cast<unsigned long long>(agent_watches), agent_bytes / 1e6);
  for (auto& d : discoveries) d->allocations->stop();
  controller.stop();
  server.stop();
  return 0;
}
