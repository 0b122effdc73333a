// target-allocator: assigns the scrape targets of a Prometheus config to
// collectors and serves them over HTTP (reference §2 shapes).
// Usage: target-allocator --config-file FILE [--listen-addr HOST:PORT]
//        [--kubeconfig-path FILE] [--enable-prometheus-cr-watcher[=BOOL]]
//        [--collector-namespace NS] [--leader-elect[=BOOL]] [--leader-elect-*]
//        [--enable-https-server[=BOOL] --https-ca-file F --https-tls-cert-file F
//         --https-tls-key-file F [--listen-addr-https HOST:PORT]]
// http_sd_configs are polled; kubernetes_sd_configs, collector pods
// (collector_selector) and Prometheus CRs are watched (through
// --kubeconfig-path or the in-cluster service account); every discovery
// change reallocates and republishes. With --leader-elect every replica
// allocates, but only the Lease holder answers /readyz with 200, so the
// Service sends every collector to one replica (active/standby).
// --enable-https-server adds a mutual-TLS listener (upstream's flag names)
// whose /scrape_configs carries the real credentials; the plain one masks them.
// Exit codes: 0 after SIGINT/SIGTERM, 2 on bad flags or config (including
// a config that needs the Kubernetes API without a usable cluster
// connection), 1 when the address cannot be bound. Prints "listening on http://HOST:PORT" once the first allocation is
// served.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "allocation/allocator.hpp"
#include "allocation/filter.hpp"
#include "allocation/server.hpp"
#include "cluster_sources.hpp"
#include "config.hpp"
#include "discovery_runner.hpp"
#include "flags.hpp"
#include "k8s/client/client.hpp"
#include "k8s/client/config.hpp"
#include "k8s/client/curl_transport.hpp"
#include "lease_elector.hpp"

namespace {

using target_allocator::Flags;
using target_allocator::parse_listen_addr;
using target_allocator::usage;

std::vector<allocation::Collector> static_collectors(const std::vector<std::string>& names) {
  std::vector<allocation::Collector> out;
  for (const auto& n : names) out.push_back({n, "", true, {}});
  return out;
}

// Upstream's order: the flag, then the config key, then $OTELCOL_NAMESPACE.
std::string collector_namespace(const Flags& flags, const target_allocator::Config& config) {
  if (!flags.collector_namespace.empty()) return flags.collector_namespace;
  if (!config.collector_namespace.empty()) return config.collector_namespace;
  const char* env = std::getenv("OTELCOL_NAMESPACE");
  return env && *env ? env : "default";
}

std::unique_ptr<target_allocator::ClusterSources> cluster_sources(const std::optional<k8s::ClusterConfig>& cluster,
                                                                  const target_allocator::Config& config,
                                                                  const Flags& flags,
                                                                  target_allocator::DiscoveryRunner& discovery,
                                                                  const allocation::Clock& clock) {
  if (!cluster) return nullptr;
  return std::make_unique<target_allocator::ClusterSources>(
      *cluster, config, config.prometheus_cr.enabled || flags.prometheus_cr_watcher, collector_namespace(flags, config),
      discovery, clock, [](const std::string& m) { std::cerr << "target-allocator: " << m << std::endl; });
}

// --leader-elect: the elector, on its own client, flipping the server's
// readiness. The Lease lives in --leader-elect-namespace, else the collector
// namespace.
struct Election {
  std::unique_ptr<k8s::Client> client;
  std::unique_ptr<target_allocator::LeaseElector> elector;
};

Election election(const std::optional<k8s::ClusterConfig>& cluster, const target_allocator::Config& config,
                  const Flags& flags, allocation::AllocationServer& server) {
  Election e;
  if (!flags.leader_elect || !cluster) return e;
  k8s::lease::LeaderConfig lease = flags.lease;
  if (lease.ns.empty()) lease.ns = collector_namespace(flags, config);
  // The elector retries every retry period itself, and an answer later than
  // the renew deadline is worthless; both keep shutdown quick.
  k8s::ClientOptions co;
  co.timeout = lease.renew_deadline;
  co.max_retries = 0;
  co.user_agent = co.field_manager = "target-allocator";
  e.client = std::make_unique<k8s::Client>(k8s::make_curl_transport(*cluster), co);
  e.elector = std::make_unique<target_allocator::LeaseElector>(*e.client, lease, [&server, lease](bool leading) {
    std::cerr << "target-allocator: " << (leading ? "became leader as " : "lost leadership as ") << lease.identity
              << std::endl;
    server.set_leading(leading);
  });
  return e;
}

model::Value concat(const model::Value& a, const model::Value& b) {
  model::Value out = a;
  for (const auto& item : b.as_array()) out.push(item);
  return out;
}

int serve(target_allocator::Config config, const allocation::ServerOptions& options,
          const std::optional<k8s::ClusterConfig>& cluster, const Flags& flags) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before the server thread starts

  allocation::SystemClock clock;
  allocation::Allocator allocator(allocation::make_strategy(config.strategy), {}, clock);
  target_allocator::DiscoveryRunner discovery(config);  // keeps the unfiltered static targets
  const allocation::TargetList static_targets = config.targets;
  model::Value scrape_configs = config.scrape_configs;  // plus the Prometheus CR jobs
  auto sources = cluster_sources(cluster, config, flags, discovery, clock);
  std::optional<allocation::RelabelFilter> filter;
  if (config.filter_strategy == "relabel-config") {
    filter.emplace();
    filter->set_scrape_configs(config.scrape_configs);
    filter->apply(config.targets);
  }
  allocation::ServerOptions server_options = options;
  server_options.require_leadership = flags.leader_elect;
  allocation::AllocationServer server(server_options);
  Election elected = election(cluster, config, flags, server);
  auto timed = [&](const char* method, auto&& step) {
    const auto start = std::chrono::steady_clock::now();
    step();
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    server.metrics().observe_time_to_allocate(method, allocator.strategy_name(), took.count());
  };
  server.metrics().count_event("static_configs");
  if (!sources || !sources->watches_collectors())
    timed("SetCollectors", [&] { allocator.set_collectors(static_collectors(config.collectors)); });
  timed("SetTargets", [&] { allocator.set_targets(std::move(config.targets)); });
  server.publish(allocator, config.scrape_configs);
  try {
    server.start();
  } catch (const std::exception& e) {
    std::cerr << "target-allocator: " << e.what() << "\n";
    return 1;
  }
  std::cout << "listening on http://" << options.host << ":" << server.port() << std::endl;
  if (options.https)
    std::cout << "serving credentials over mutual TLS on https://" << options.https->host << ":" << server.https_port()
              << std::endl;
  if (sources) sources->start();
  if (elected.elector) elected.elector->start();
  discovery.start();
  std::thread on_signal([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    discovery.request_stop();
  });
  // Discovery updates coalesce: each pass takes the whole current target set.
  while (discovery.wait_for_change(allocator.next_refresh())) {
    if (auto collectors = discovery.take_collectors())
      timed("SetCollectors", [&] { allocator.set_collectors(std::move(*collectors)); });
    if (auto cr = sources ? sources->refresh_cr() : std::nullopt) {
      scrape_configs = concat(config.scrape_configs, cr->scrape_configs);
      if (filter) filter->set_scrape_configs(scrape_configs);
      auto all = static_targets;
      all.insert(all.end(), cr->static_targets.begin(), cr->static_targets.end());
      discovery.set_static_targets(std::move(all));  // refiltered below with the new jobs' rules
    }
    if (auto due = allocator.next_refresh(); due && *due <= clock.now()) allocator.refresh();
    if (discovery.targets_changed()) {
      auto targets = discovery.targets();
      if (filter) filter->apply(targets);
      server.metrics().count_event("discovery");
      timed("SetTargets", [&] { allocator.set_targets(std::move(targets)); });
    }
    server.publish(allocator, scrape_configs);
  }
  on_signal.join();
  if (elected.elector) {
    elected.elector->stop();
    elected.elector->release();  // the standby takes over on its next round
  }
  if (sources) sources->stop();
  discovery.stop();
  server.stop();
  return 0;
}

// The cluster connection for kubernetes_sd_configs: --kubeconfig-path, or
// the in-cluster service account when it is empty. Throws ConfigError.
k8s::ClusterConfig cluster_config(const Flags& flags) {
  target_allocator::check_kubeconfig(flags.kubeconfig_path);  // names the missing piece
  try {
    return flags.kubeconfig_path.empty() ? k8s::in_cluster() : k8s::from_kubeconfig(flags.kubeconfig_path);
  } catch (const k8s::ConfigError& e) {
    throw target_allocator::ConfigError(e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  // A peer that hangs up during a TLS write must not kill the process
  // (OpenSSL writes with write(2), not send(MSG_NOSIGNAL)).
  std::signal(SIGPIPE, SIG_IGN);
  Flags flags;
  std::string problem;
  if (!target_allocator::parse_flags(argc, argv, flags, problem)) return usage(problem);
  allocation::ServerOptions options;
  if (!parse_listen_addr(flags.listen_addr, options.host, options.port))
    return usage("--listen-addr: want HOST:PORT or :PORT");
  if (flags.https) {
    allocation::HttpsOptions& tls = options.https.emplace();
    if (!parse_listen_addr(flags.https_listen_addr, tls.host, tls.port))
      return usage("--listen-addr-https: want HOST:PORT or :PORT");
    tls.cert_file = flags.https_cert_file;
    tls.key_file = flags.https_key_file;
    tls.client_ca_file = flags.https_ca_file;
  }
  std::ifstream in(flags.config_file);
  if (!in) return usage("--config-file: cannot read " + flags.config_file);
  std::stringstream text;
  text << in.rdbuf();
  try {
    auto config = target_allocator::load_config(text.str(), flags.config_file);
    allocation::make_strategy(config.strategy);  // validate before serving
    if (flags.prometheus_cr_watcher) config.kubernetes_fields.push_back("--enable-prometheus-cr-watcher");
    if (flags.leader_elect) config.kubernetes_fields.push_back("--leader-elect");
    std::optional<k8s::ClusterConfig> cluster;
    if (!config.kubernetes_fields.empty()) {
      try {
        cluster = cluster_config(flags);
      } catch (const target_allocator::ConfigError& e) {
        std::cerr << "target-allocator: " << config.kubernetes_fields.front()
                  << " needs the Kubernetes API: " << e.what() << "\n";
        return 2;
      }
    }
    return serve(std::move(config), options, cluster, flags);
  } catch (const std::exception& e) {
    std::cerr << "target-allocator: " << e.what() << "\n";
  }
  return 2;
}
