// Keeps one kind's objects in sync with the API server: list, then watch
// from the list's resourceVersion; resume from the last seen version
// (bookmarks included) when a watch ends; relist on 410 Gone; back off with
// jitter on errors. Each change reaches the sink as an ObjectEvent.
// Contract: events for one Reflector arrive in order on the transport's I/O
// thread. A relist reports only differences from what the sink has already
// been told (ADDED for new keys, MODIFIED for a changed resourceVersion,
// DELETED for keys that disappeared), so the sink never sees a duplicate.
// on_synced fires once, after the first list has been delivered. Objects
// missing kind/apiVersion (list items) get the resource's. The Client and
// the Resource must outlive the Reflector (resource_for_kind() entries
// live forever); stop() may be called from any thread, sinks included.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "k8s/client/client.hpp"
#include "model/change.hpp"
#include "model/value.hpp"

namespace k8s {

struct ObjectEvent {
  model::Change type;
  const Resource* resource;
  std::shared_ptr<const model::Value> object;  // decoded with simdjson
};

struct ReflectorOptions {
  std::string ns;  // "" = all namespaces
  std::string label_selector;
  std::string field_selector;
  std::size_t page_size = 500;
  int watch_timeout_seconds = 300;  // server-side timeoutSeconds, then re-watch
  Backoff backoff{std::chrono::milliseconds(200), std::chrono::milliseconds(30'000)};
  // Metadata fields dropped before an object is cached and told, for a
  // caller that never reads them: managedFields (the server's
  // field-ownership records, often larger than the rest of the metadata;
  // client-go's TransformStripManagedFields), creationTimestamp. A
  // resourceVersion or name here is ignored: the reflector needs them.
  std::vector<std::string> drop_metadata;
};

struct ReflectorStats {
  std::uint64_t lists = 0, watches = 0, relists_410 = 0, errors = 0, events = 0, bookmarks = 0;
};

class Reflector {
 public:
  using Sink = std::function<void(ObjectEvent)>;
  using Synced = std::function<void()>;
  using ErrorSink = std::function<void(const Result&)>;  // for logs and metrics; never fatal

  Reflector(Client& client, const Resource& r, ReflectorOptions o, Sink sink, Synced on_synced = {},
            ErrorSink on_error = {});
  ~Reflector();  // stops
  void start();
  void stop();  // cancels the watch; no callback runs after stop() returns
  ReflectorStats stats() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace k8s
