// consistent_bench (issue 19): shardingStrategy consistent against an
// in-process simcluster, with the real controller and AgentAllocations.
//   edit latency  a new Service with its Endpoints behind the ServiceMonitor
//                 -> its address in some shard's published answer, over N
//                 edits (p50, p99, max)
//   API load      watch connections opened and bytes the API server sent
//                 to the operator's discovery, against `agents` copies of
//                 the same discovery: what shards x replicas agents running
//                 kubernetes_sd themselves would open and receive
//   polling       (with --poll-seconds) the targets endpoint under
//                 closed-loop agents' http_sd polls: requests/s, latency,
//                 CPU per request (consistent_poll.hpp)
// Usage: consistent_bench [--services S] [--addresses A] [--monitors M] [--edits N]
//                         [--shards K] [--replicas R] [--simulate-agents 0|1]
//                         [--poll-seconds S] [--poll-clients C] [--poll-etag 0|1]
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

#include <httplib.h>

#include "actors/allocation/agent_allocations.hpp"
#include "actors/allocation/targets_endpoint.hpp"
#include "actors/controller.hpp"
#include "consistent_poll.hpp"
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
  int monitors = 1;             // ServiceMonitors selecting the same Services (identical discovery, one job each)
  bool simulate_agents = true;  // 0: the operator's discovery alone (latency without the copies' load)
  double poll_seconds = 0;      // 0: no polling measurement
  int poll_clients = 2;
  bool poll_etag = false;
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
apiVersion: v1
kind: ServiceAccount
metadata: {name: agent, namespace: mon}
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
)";
  for (int m = 0; m < o.monitors; ++m)
    y += "---\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: web" +
         (m ? "-" + std::to_string(m) : std::string()) +
         ", namespace: app}\nspec:\n  selector: {matchLabels: {app: web}}\n  endpoints: [{port: http-metrics}]\n";
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
  const std::string quoted = "\"" + needle + ":8080\"";
  for (const auto& [key, body] : l->targets->answers) {
    for (const auto& chunk : body->chunks()) {
      n += chunk->fragments().size();
      if (!needle.empty() && chunk->text().find(quoted) != std::string::npos) found = true;
    }
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
    else if (!std::strcmp(argv[i], "--monitors"))
      o.monitors = std::max(1, v);
    else if (!std::strcmp(argv[i], "--simulate-agents"))
      o.simulate_agents = v != 0;
    else if (!std::strcmp(argv[i], "--poll-seconds"))
      o.poll_seconds = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--poll-clients"))
      o.poll_clients = v;
    else if (!std::strcmp(argv[i], "--poll-etag"))
      o.poll_etag = v != 0;
    else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      std::exit(2);
    }
  }
  return o;
}

// A token of mon/agent for the targets endpoint's audience, from simcluster.
std::string mint_agent_token(const std::string& api) {
  httplib::Client c(api);
  const std::string body = std::string(R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest",)") +
                           R"("spec":{"audiences":[")" + actors::kTargetsAudience + R"("]}})";
  auto r = c.Post("/api/v1/namespaces/mon/serviceaccounts/agent/token", body, "application/json");
  if (!r || r->status != 201) return "";
  return model::parse_json(r->body).find("status")->find("token")->as_string();
}

// The targets endpoint as the operator serves it, polled by closed-loop
// agents: one query per shard, as each shard's pods ask.
int run_polling(const Options& o, const std::string& api, k8s::Client& client,
                const actors::AgentAllocations& allocations) {
  actors::TokenReviewCache tokens(actors::make_token_reviewer(client, 10s));
  actors::OperatorHttpServer http(actors::HttpServerOptions{}, actors::OperatorHttpSources{});
  actors::add_targets_route(http, allocations, tokens);
  consistent_bench::PollOptions p;
  p.host = "127.0.0.1";
  p.port = http.start();
  p.token = mint_agent_token(api);
  if (p.token.empty()) {
    std::fprintf(stderr, "could not mint a token for mon/agent\n");
    return 1;
  }
  for (int s = 0; s < o.shards; ++s)
    p.queries.push_back(std::string(actors::kTargetsPath) +
                        "?agent=mon/agent&job=serviceMonitor/app/web/0&shard=" + std::to_string(s));
  p.seconds = o.poll_seconds;
  p.clients = o.poll_clients;
  p.etag = o.poll_etag;
  const consistent_bench::PollResult r = consistent_bench::measure_polling(p);
  http.stop();
  const double rate = r.requests / r.seconds;
  std::printf(
      "polling (%d clients, %s): %llu requests in %.1f s = %.0f/s, %.1f KB per answer, p50 %.2f ms, p99 %.2f ms, "
      "max %.1f ms, errors %llu; process CPU %.1f us per request (server and clients); at a 30 s refresh: "
      "%.0f (pod, job) polls\n",
      p.clients, p.etag ? "If-None-Match" : "plain GET", static_cast<unsigned long long>(r.requests), r.seconds, rate,
      r.requests ? r.bytes / 1e3 / r.requests : 0.0, r.p50_ms, r.p99_ms, r.max_ms,
      static_cast<unsigned long long>(r.errors), r.requests ? r.cpu_seconds / r.requests * 1e6 : 0.0, rate * 30);
  return r.errors == 0 ? 0 : 1;
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
  const std::size_t want = static_cast<std::size_t>(o.services) * o.addresses * o.monitors;
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
  const int polled = o.poll_seconds > 0 ? run_polling(o, server.url(), client, *op.allocations) : 0;
  for (auto& d : discoveries) d->allocations->stop();
  controller.stop();
  server.stop();
  return polled;
}
