// The in-memory object store behind simcluster: every object of every kind,
// one global monotonic resourceVersion, and a bounded history of events
// that watches replay.
// Contract: each write bumps the resourceVersion once and is seen by every
// matching watcher in order. The store owns the metadata the server
// assigns (uid, resourceVersion, creationTimestamp, generation,
// generateName, deletionTimestamp) and status-subresource semantics; it
// does not validate kinds or schemas (Cluster does). Failures throw ApiError.
// All methods are thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "k8s/sim/clock.hpp"
#include "k8s/sim/resource_types.hpp"
#include "k8s/sim/selector.hpp"
#include "k8s/sim/watch.hpp"

namespace k8s::sim {

struct StoreOptions {
  std::size_t history_limit = 10000;  // events kept for watch resumption
  std::size_t watcher_queue_limit = 100000;
  std::uint64_t seed = 0;  // uids and generated names; 0 = random
};

struct ListOptions {
  LabelSelector labels;
  FieldSelector fields;
  std::size_t limit = 0;  // 0 = no limit
  std::string continue_token;
};

struct ListResult {
  std::vector<SnapshotPtr> items;
  std::uint64_t rv = 0;
  std::string continue_token;
  std::optional<std::int64_t> remaining;
};

struct WatchOptions {
  LabelSelector labels;
  FieldSelector fields;
  std::string resource_version;  // "" or "0": start with the current state
  bool send_initial_events = false;
};

struct DeleteOptions {
  std::optional<std::string> uid;               // precondition
  std::optional<std::string> resource_version;  // precondition
  bool dry_run = false;
  // "Background" (default), "Foreground" or "Orphan": what happens to the
  // objects whose ownerReferences name the deleted one (Cluster::remove).
  std::string propagation;
};

enum class Subresource { main, status };
using Mutator = std::function<model::Value(const model::Value& current)>;

class Store {
 public:
  explicit Store(const Clock& clock, StoreOptions options = {});

  // Stores a new object. Its namespace is metadata.namespace ("" when the
  // kind is cluster-scoped); a missing name uses metadata.generateName.
  SnapshotPtr create(const ResourceType& t, model::Value object, bool dry_run = false);
  SnapshotPtr get(const ResourceType& t, const std::string& ns, const std::string& name) const;
  // Replaces an object (PUT). A non-empty metadata.resourceVersion must match.
  SnapshotPtr update(const ResourceType& t, const std::string& ns, const std::string& name, model::Value object,
                     Subresource sub, bool dry_run = false);
  // Read-modify-write under the store lock (PATCH): `f` gets the current
  // object and returns the new one, which is then stored as by update().
  SnapshotPtr mutate(const ResourceType& t, const std::string& ns, const std::string& name, const Mutator& f,
                     Subresource sub, bool dry_run = false);
  // Deletes an object, or marks it (deletionTimestamp) while finalizers
  // remain. Returns its last state.
  SnapshotPtr remove(const ResourceType& t, const std::string& ns, const std::string& name,
                     const DeleteOptions& options);
  // Lists in namespace/name order; ns "" lists every namespace.
  ListResult list(const ResourceType& t, const std::string& ns, const ListOptions& options) const;
  // Starts a watch. Throws ApiError 410 Expired when the requested
  // resourceVersion is older than the retained history.
  std::shared_ptr<Watcher> watch(const ResourceType& t, const std::string& ns, const WatchOptions& options);
  void unwatch(const std::shared_ptr<Watcher>& w);
  // The resourceVersion a bookmark may carry now: set only when `w` has
  // no undelivered events.
  std::optional<std::uint64_t> bookmark_rv(const Watcher& w) const;

  // Objects whose ownerReferences name `uid`, as (storage key, object).
  std::vector<std::pair<std::string, SnapshotPtr>> dependents(const std::string& uid) const;

  std::uint64_t current_rv() const;
  // Forgets the event history, so watches from any older version get 410.
  void compact();
  // Closes every watcher (server shutdown).
  void close_watchers();

 private:
  using Collection = std::map<std::string, SnapshotPtr>;  // "ns/name"
  SnapshotPtr commit_update(const ResourceType& t, const SnapshotPtr& old, model::Value next, Subresource sub,
                            bool dry_run);
  SnapshotPtr erase_locked(const ResourceType& t, const SnapshotPtr& old, Collection& c);
  void emit(EventType type, const ResourceType& t, SnapshotPtr object, SnapshotPtr old);
  std::string new_uid();
  std::string random_suffix();
  void replay(Watcher& w, const ResourceType& t, const std::string& ns, const WatchOptions& o);
  void index_owners(const std::string& collection, const SnapshotPtr& before, const SnapshotPtr& after);

  const Clock& clock_;
  StoreOptions options_;
  mutable std::mutex mutex_;
  std::uint64_t rv_ = 0;
  std::uint64_t compacted_rv_ = 0;  // events with rv <= this are gone
  std::unordered_map<std::string, Collection> collections_;
  std::deque<Event> history_;
  std::vector<std::shared_ptr<Watcher>> watchers_;
  // owner uid -> (storage key, object key) of its dependents
  std::unordered_map<std::string, std::set<std::pair<std::string, std::string>>> dependents_;
  std::mt19937_64 rng_;
};

// "ns/name" (or "/name" for cluster-scoped objects): the store's key.
std::string object_key(const std::string& ns, const std::string& name);

}  // namespace k8s::sim
