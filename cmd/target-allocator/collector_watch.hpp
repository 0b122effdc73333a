// Collector discovery: one k8s::Reflector on the Pods of the collectors'
// namespace that match collector_selector, kept in an
// allocation::discovery::CollectorSet; every change hands the whole set to
// the DiscoveryRunner, whose serving thread gives it to the allocator.
// Contract: start() starts the watch; stop() (also the destructor) stops
// it, after which no update arrives. The sink runs on the transport's I/O
// thread and takes only this watcher's mutex and the runner's.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "allocation/discovery/collectors.hpp"
#include "discovery_runner.hpp"
#include "k8s/client/client.hpp"
#include "k8s/client/reflector.hpp"

namespace target_allocator {

class CollectorWatcher {
 public:
  CollectorWatcher(std::shared_ptr<k8s::Transport> transport, const std::string& ns,
                   const model::LabelSelector& selector, DiscoveryRunner& runner, const allocation::Clock& clock,
                   std::function<void(const std::string&)> log);
  ~CollectorWatcher();
  CollectorWatcher(const CollectorWatcher&) = delete;
  CollectorWatcher& operator=(const CollectorWatcher&) = delete;

  void start();
  void stop();

 private:
  std::unique_ptr<k8s::Client> client_;
  std::mutex mu_;
  allocation::discovery::CollectorSet set_;
  std::unique_ptr<k8s::Reflector> reflector_;
};

}  // namespace target_allocator
