// Prometheus CR discovery: k8s::Reflectors on ServiceMonitors, PodMonitors,
// Probes, Secrets (except Helm releases) and ConfigMaps in all namespaces
// and, when a namespace selector is set, Namespaces, feeding an
// allocation::discovery::PrometheusCrIndex. The serving thread calls
// refresh(): after a change it renders the selected monitors into scrape
// configs (credentials inline), runs one KubernetesWatcher per rendered
// job's kubernetes_sd_configs (kept while the job's sd configs are
// unchanged) and returns the jobs and their static targets.
// Contract: start()/stop() as KubernetesWatcher; refresh() only from the
// serving thread. Watch sinks take only this watcher's mutex and the
// runner's. Jobs that fail to render or to parse are left out and logged
// (once per distinct problem set); neither logs nor problems hold Secret
// values. The service account needs list/watch on secrets and configmaps.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "allocation/discovery/prometheus_cr.hpp"
#include "discovery_runner.hpp"
#include "kubernetes_watch.hpp"

namespace target_allocator {

class PrometheusCrWatcher {
 public:
  PrometheusCrWatcher(std::shared_ptr<k8s::Transport> transport, allocation::discovery::PrometheusCrConfig config,
                      DiscoveryRunner& runner, std::function<void(const std::string&)> log);
  ~PrometheusCrWatcher();
  PrometheusCrWatcher(const PrometheusCrWatcher&) = delete;
  PrometheusCrWatcher& operator=(const PrometheusCrWatcher&) = delete;

  void start();
  void stop();

  struct Jobs {
    model::Value scrape_configs;            // the rendered jobs that parsed
    allocation::TargetList static_targets;  // of those jobs' static_configs (Probes)
  };
  // The current jobs when the CRs changed since the last call.
  std::optional<Jobs> refresh();

 private:
  // Keyed by job name + its kubernetes_sd_configs as JSON.
  void update_sd_watchers(std::map<std::string, std::vector<KubernetesSdJob>> wanted);
  void log_problems(std::vector<std::string> problems);

  std::shared_ptr<k8s::Transport> transport_;
  std::unique_ptr<k8s::Client> client_;
  DiscoveryRunner& runner_;
  std::function<void(const std::string&)> log_;
  std::mutex mu_;
  allocation::discovery::PrometheusCrIndex index_;
  bool dirty_ = true;
  std::vector<std::unique_ptr<k8s::Reflector>> reflectors_;
  // Job name + its kubernetes_sd_configs as JSON -> the watcher serving it.
  std::map<std::string, std::unique_ptr<KubernetesWatcher>> sd_watchers_;
  std::vector<std::string> last_problems_;
  bool started_ = false;
};

}  // namespace target_allocator
