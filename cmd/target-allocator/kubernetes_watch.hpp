// Live kubernetes_sd_configs: one k8s::Reflector per watch a config needs
// (allocation::discovery::watch_specs), feeding that config's
// KubernetesIndex; every change marks the config's DiscoveryRunner source,
// which copies the index's groups once per reallocation.
// Contract: the constructor registers one DiscoveryRunner source per
// config; start() starts the reflectors; stop() (also the destructor) stops
// them, after which no update arrives. Sinks run on the transport's I/O
// thread and only take the config's own mutex and the runner's.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "allocation/discovery/kubernetes_index.hpp"
#include "config.hpp"
#include "discovery_runner.hpp"
#include "k8s/client/client.hpp"
#include "k8s/client/reflector.hpp"

namespace target_allocator {

class KubernetesWatcher {
 public:
  KubernetesWatcher(std::shared_ptr<k8s::Transport> transport, const std::vector<KubernetesSdJob>& jobs,
                    DiscoveryRunner& runner, std::function<void(const std::string&)> log);
  ~KubernetesWatcher();
  KubernetesWatcher(const KubernetesWatcher&) = delete;
  KubernetesWatcher& operator=(const KubernetesWatcher&) = delete;

  void start();
  void stop();
  // The DiscoveryRunner sources registered by the constructor, one per config.
  std::vector<std::size_t> sources() const;

 private:
  struct Job {
    std::string field;
    std::size_t source = 0;
    std::mutex mu;
    allocation::discovery::KubernetesIndex index;
    Job(std::string f, allocation::discovery::KubernetesSdConfig c) : field(std::move(f)), index(std::move(c)) {}
  };

  std::shared_ptr<k8s::Transport> transport_;
  std::unique_ptr<k8s::Client> client_;
  DiscoveryRunner& runner_;
  std::function<void(const std::string&)> log_;
  std::vector<std::unique_ptr<Job>> jobs_;
  std::vector<std::unique_ptr<k8s::Reflector>> reflectors_;
};

}  // namespace target_allocator
