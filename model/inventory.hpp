// The set of objects one render (or one controller state) sees: every
// GrafanaAgent, member resource, Secret, ConfigMap and Namespace, decoded
// and keyed by namespace/name so iteration is always sorted.
// Contract: add() never throws; an object with decode errors is kept (so
// its labels still route) but marked invalid, and its problems are recorded.
// A lazy inventory (LazyMembers) stores the same members and problems and
// renders the same output; it only holds monitors and Secrets as their
// served trees (see Member and StoredSecret).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/agent.hpp"
#include "model/monitors.hpp"
#include "model/object_fields.hpp"
#include "model/references.hpp"

namespace model {

// One reportable problem: "<kind> <ns>/<name>: <path>: <message>". An
// error means the object (or, for a GrafanaAgent, its whole render) was
// left out. A warning means the object was rendered without one of its
// fields (one the Grafana Agent cannot honour, or one --upstream-compat
// drops as upstream does); its message ends in "ignored".
struct Problem {
  std::string kind, ns, name, path, message;
  bool warning = false;
  std::string str() const;
  friend bool operator<(const Problem& a, const Problem& b);
  friend bool operator==(const Problem& a, const Problem& b);
};

// Whether any of `problems` is an error (not a warning).
bool has_errors(const std::vector<Problem>& problems);

template <class T>
struct Entry {
  T obj;
  bool valid = true;
};

template <class T>
using Table = std::map<Key, Entry<T>>;

using ValuePtr = std::shared_ptr<const Value>;

// A ServiceMonitor, PodMonitor or Probe: the kinds a cluster holds by the
// thousand. An eager inventory keeps each decoded. A lazy one (a
// controller root's) keeps the served tree, which the routing layers
// share, plus what every render reads without decoding: labels (read in
// the tree), uid, resourceVersion and references. The decoded form stays
// only until release_cached_members() finds the member's jobs cached; a
// render that misses decodes the tree again.
template <class T>
struct Member {
  ValuePtr tree;                     // lazy inventories only
  std::shared_ptr<const T> decoded;  // always in an eager inventory
  // As decoded: an update that changes only metadata noise or status
  // keeps it (and so the member's job cache key), as it keeps `decoded`.
  std::string resource_version;
  std::vector<AssetRef> refs;  // in the member's namespace
  bool valid = true;

  std::string_view uid() const;
  bool matches(const LabelSelector& sel) const;
};

template <class T>
using Members = std::map<Key, Member<T>>;

// The decoded member: its kept form, or its tree decoded into `scratch`
// (decode problems were recorded when it was stored).
template <class T>
const T& decoded(const Member<T>& m, std::optional<T>& scratch);

// A Secret: decoded in an eager inventory; in a lazy one, the served tree
// alone, and a render decodes the one key it reads (find_asset in
// assets.hpp). Its decode problems are recorded when it is stored.
struct StoredSecret {
  ValuePtr tree;
  std::shared_ptr<const Secret> decoded;
};

struct LazyMembers {};

class Inventory {
 public:
  Inventory() = default;
  explicit Inventory(LazyMembers) : lazy_(true) {}
  bool lazy() const { return lazy_; }

  // Adds one manifest (any kind; a v1 List is expanded). Objects of kinds
  // the operator does not read are ignored. Problems are appended to
  // problems_. Re-adding the same namespace/name replaces the object.
  // `origin` ("file:line") names the document in problems about it.
  void add(const Value& doc, std::string_view origin = {});
  void add(Value&& doc, std::string_view origin = {});
  // A served object, by the pointer the caller shares: a lazy inventory
  // keeps it as a member's tree instead of a copy.
  void add_shared(const ValuePtr& doc);
  // A lazy inventory's member or Secret now served as `tree` (its content
  // unchanged but for metadata noise or status): the old tree is let go.
  void retree(const std::string& kind, const Key& key, const ValuePtr& tree);
  // Removes an object by kind and key; returns whether it existed.
  bool remove(const std::string& kind, const Key& key);

  Table<GrafanaAgent> agents;
  Table<MetricsInstance> metrics_instances;
  Table<LogsInstance> logs_instances;
  Table<PodLogs> pod_logs;
  Table<Integration> integrations;
  Table<MetricsIntegration> metrics_integrations;
  Table<IntegrationMonitor> integration_monitors;
  Members<ServiceMonitor> service_monitors;
  Members<PodMonitor> pod_monitors;
  Members<Probe> probes;
  std::map<Key, StoredSecret> secrets;
  std::map<Key, ConfigMap> config_maps;
  std::map<std::string, Namespace> namespaces;

  const std::vector<Problem>& problems() const { return problems_; }
  std::size_t ignored() const { return ignored_; }

  // Labels of a namespace; empty when the Namespace object is unknown.
  const Labels& namespace_labels(const std::string& ns) const;

 private:
  std::optional<Key> normalize_metadata(Value& obj, const std::string& kind, bool namespaced);
  void decode_and_store(const std::string& kind, const Value& obj, const ValuePtr& tree, FieldErrors& errors);
  void add_normal(const std::string& kind, const Key& key, const Value& doc, const ValuePtr& tree);

  std::vector<Problem> problems_;
  std::size_t ignored_ = 0;
  bool lazy_ = false;
};

// Kind names as they appear in manifests.
bool is_known_kind(const std::string& kind);

}  // namespace model
