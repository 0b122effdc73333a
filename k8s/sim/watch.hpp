// Watch plumbing of the simulated API server: stored object snapshots, the
// events the store emits, and a Watcher, the per-client queue a watch
// stream drains.
// Contract: the store pushes events while holding its lock, so each
// Watcher sees events in resourceVersion order. A Watcher whose queue
// exceeds its bound is closed (as the real server drops slow watchers);
// the client then re-watches from its last resourceVersion.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "k8s/sim/selector.hpp"
#include "model/value.hpp"

namespace k8s::sim {

// An immutable stored object with its JSON text, shared by lists, watches
// and the history, so serialising happens once per write.
struct Snapshot {
  model::Value value;
  std::string json;
  std::uint64_t rv = 0;
};
using SnapshotPtr = std::shared_ptr<const Snapshot>;
SnapshotPtr make_snapshot(model::Value v, std::uint64_t rv);

enum class EventType { added, modified, deleted, bookmark, error };
const char* event_type_name(EventType t);

struct Event {
  EventType type;
  std::string collection;  // ResourceType::storage_key()
  std::string ns;
  SnapshotPtr object;
  SnapshotPtr old;  // the previous state of a MODIFIED object, else null
  std::uint64_t rv = 0;
};

struct WatchFilter {
  std::string collection;
  std::string ns;  // "" = all namespaces
  LabelSelector labels;
  FieldSelector fields;
  bool matches(const model::Value& object) const;
};

class Watcher {
 public:
  Watcher(WatchFilter filter, std::size_t max_queue) : filter_(std::move(filter)), max_queue_(max_queue) {}

  const WatchFilter& filter() const { return filter_; }
  // Filters the event (an object entering or leaving the selector becomes
  // ADDED or DELETED) and queues it. Called by the store under its lock.
  void offer(const Event& e);
  void push(EventType type, SnapshotPtr object);
  // Waits up to `timeout` for events; returns what is queued (maybe none).
  std::vector<std::pair<EventType, SnapshotPtr>> take(std::chrono::milliseconds timeout);
  bool closed() const;
  bool queue_empty() const;
  void close();

 private:
  WatchFilter filter_;
  std::size_t max_queue_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::pair<EventType, SnapshotPtr>> queue_;
  bool closed_ = false;
};

}  // namespace k8s::sim
