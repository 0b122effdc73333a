// Everything the target allocator watches in the cluster, over one
// connection: the config's kubernetes_sd_configs (KubernetesWatcher), the
// collector pods selected by collector_selector (CollectorWatcher) and the
// Prometheus CRs (PrometheusCrWatcher, with `prometheus_cr.enabled` or
// --enable-prometheus-cr-watcher).
// Contract: the constructor builds the watchers from the config; start()
// starts them, stop() (also the destructor) stops them. refresh_cr() is for
// the serving thread only. Collectors reach the DiscoveryRunner
// (take_collectors); targets reach it as sources.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "collector_watch.hpp"
#include "config.hpp"
#include "discovery_runner.hpp"
#include "k8s/client/config.hpp"
#include "kubernetes_watch.hpp"
#include "prometheus_cr_watch.hpp"

namespace target_allocator {

class ClusterSources {
 public:
  // `collector_namespace`: where collector pods are watched (already
  // resolved from flag, config and environment).
  ClusterSources(const k8s::ClusterConfig& cluster, const Config& config, bool prometheus_cr,
                 const std::string& collector_namespace, DiscoveryRunner& runner, const allocation::Clock& clock,
                 std::function<void(const std::string&)> log);
  ~ClusterSources();
  ClusterSources(const ClusterSources&) = delete;
  ClusterSources& operator=(const ClusterSources&) = delete;

  void start();
  void stop();
  bool watches_collectors() const { return collectors_ != nullptr; }
  // The Prometheus CR jobs when they changed since the last call.
  std::optional<PrometheusCrWatcher::Jobs> refresh_cr();

 private:
  std::unique_ptr<KubernetesWatcher> sd_;
  std::unique_ptr<CollectorWatcher> collectors_;
  std::unique_ptr<PrometheusCrWatcher> cr_;
};

}  // namespace target_allocator
