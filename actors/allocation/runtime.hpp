// The target allocator as one object: informers and http_sd pollers
// (sources actor) -> allocation journal -> allocation actor (the pure
// allocation::runtime::State) -> the HTTP server's published snapshot,
// plus the Lease elector (the operator's elector actor) with --leader-elect.
// cmd/target-allocator only parses flags and calls this; tests run it
// in-process.
// Contract: the constructor validates the config (throws
// allocation::runtime::ConfigError naming the field, or
// std::invalid_argument for a bad strategy) and, when the config or the
// options need the Kubernetes API, the cluster connection (ConfigError
// "<field> needs the Kubernetes API: ..."). start() records the config as
// the journal's first input, waits until the first allocation is
// published, then binds (throws std::runtime_error when it cannot) and
// starts discovery, the config file watch and the elector. A changed config
// file (read every config_reload_interval, and on reload()) is journaled as
// a config input and applied live, or rejected with a log line and the
// opentelemetry_allocator_config_reloads_total{result="failure"} metric
// while the previous config keeps serving. stop() (also the destructor)
// hands the Lease back when leading, stops discovery, the actors and the
// server.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "allocation/runtime/replay.hpp"
#include "allocation/server.hpp"
#include "k8s/client/config.hpp"
#include "k8s/lease/leader.hpp"
#include "model/log.hpp"

namespace actors::ta {

struct RuntimeOptions {
  std::string config_text, config_path;
  allocation::ServerOptions server;
  std::string kubeconfig_path;  // "" = the in-cluster service account
  bool prometheus_cr_watcher = false;
  std::string collector_namespace;  // the flag; then the config key, then $OTELCOL_NAMESPACE
  bool leader_elect = false;
  k8s::lease::LeaderConfig lease;  // ns "" = the collector namespace
  std::string journal_path;        // "" = no journal
  // How often the config file is read for changes (0: only on reload()).
  std::chrono::milliseconds config_reload_interval{1000};
  model::Log log;  // every component's entries; default: none
};

// Checks that `path` (or, when empty, what k8s::load_config finds:
// $KUBECONFIG, the in-cluster service account, ~/.kube/config) gives
// a cluster connection: a readable kubeconfig whose current-context names a
// cluster with a server. Returns the server URL; throws ConfigError naming
// the file and field (or the in-cluster variable or file) otherwise.
std::string check_kubeconfig(const std::string& path,
                             const std::string& sa_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

class TargetAllocator {
 public:
  explicit TargetAllocator(RuntimeOptions options);
  ~TargetAllocator();
  TargetAllocator(const TargetAllocator&) = delete;
  TargetAllocator& operator=(const TargetAllocator&) = delete;

  void start();
  void stop();
  // SIGHUP: read the config file now; a change is applied as a reload.
  void reload();
  int port() const;
  int https_port() const;
  allocation::AllocationServer& server();
  // The allocation actor's last applied seq and its assignment.
  std::pair<std::uint64_t, allocation::runtime::Assignment> assignment();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace actors::ta
