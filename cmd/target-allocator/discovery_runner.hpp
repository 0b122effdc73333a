// The target allocator's live target set: the static_configs targets plus
// the groups each dynamic discovery source (one http_sd_configs entry, or
// later one kubernetes_sd_configs entry fed by k8s::Reflector events through
// allocation::discovery::KubernetesIndex) reported last, per job.
// Contract: thread-safe. update() may be called from any thread (pollers,
// watch threads); the serving thread calls wait_for_change() and then
// targets(), which returns the whole current set and clears the change
// flag, so bursts of updates coalesce into one reallocation. Lock order: a
// source's own lock (held while calling update/mark_changed) before the
// runner's; pull functions run without the runner's lock.
// request_stop() (e.g. from a signal thread) makes wait_for_change() return
// false. Collector discovery (set_collectors) and Prometheus CR changes
// (notify) wake the serving thread through the same wait.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <optional>

#include "allocation/collector.hpp"
#include "allocation/discovery/kubernetes_roles.hpp"
#include "allocation/target.hpp"
#include "config.hpp"
#include "http_sd_poller.hpp"

namespace target_allocator {

class DiscoveryRunner {
 public:
  // Keeps config.targets (the static ones) and makes one poller per
  // http_sd_configs entry; errors go to `log` (stderr when empty).
  explicit DiscoveryRunner(const Config& config, std::function<void(const std::string&)> log = {});
  ~DiscoveryRunner();

  using Pull = std::function<std::vector<allocation::TargetGroup>()>;
  // Adds a dynamic source for `job`; returns its id. A source either pushes
  // its groups with update(), or has a `pull` function that targets() calls
  // (on the serving thread, without the runner's lock held) after
  // mark_changed(): a watch marks on every event and its groups are copied
  // once per reallocation, however many events arrived.
  std::size_t add_source(const std::string& job, Pull pull = {});
  // Replaces the groups of one source.
  void update(std::size_t source, std::vector<allocation::discovery::SourcedGroup> groups);
  void mark_changed(std::size_t source);
  // Drops a source's groups; its id is never reused.
  void remove_source(std::size_t source);
  // Replaces the static targets (config static_configs plus those of
  // Prometheus CR jobs, e.g. Probes with static targets).
  void set_static_targets(allocation::TargetList targets);
  // The latest discovered collectors, taken once by take_collectors().
  void set_collectors(std::vector<allocation::Collector> collectors);
  std::optional<std::vector<allocation::Collector>> take_collectors();
  // Wakes wait_for_change() without a target change (the caller has its
  // own flag, e.g. the Prometheus CR watcher's).
  void notify();

  void start();  // starts the pollers
  void stop();   // stops and joins them
  void request_stop();
  // Blocks until an update or notification arrived since the last wait
  // (true), `until` passed (true; e.g. the allocator's next_refresh()), or
  // a stop was requested (false).
  bool wait_for_change(std::optional<allocation::TimePoint> until = std::nullopt);
  // Whether targets changed since the last targets().
  bool targets_changed();
  allocation::TargetList targets();

 private:
  struct Source {
    allocation::Name job;
    std::vector<allocation::TargetGroup> groups;
    Pull pull;
    bool dirty = false;
    bool removed = false;
  };

  allocation::TargetList static_targets_;
  std::function<void(const std::string&)> log_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Source> sources_;
  bool changed_ = false, targets_changed_ = false, stop_ = false;
  std::optional<std::vector<allocation::Collector>> collectors_;
  std::vector<std::unique_ptr<HttpSdPoller>> pollers_;
};

}  // namespace target_allocator
