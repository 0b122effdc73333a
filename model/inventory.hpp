// The set of objects one render (or one controller state) sees: every
// GrafanaAgent, member resource, Secret, ConfigMap and Namespace, decoded
// and keyed by namespace/name so iteration is always sorted.
// Contract: add() never throws; an object with decode errors is kept (so
// its labels still route) but marked invalid, and its problems are recorded.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/agent.hpp"
#include "model/monitors.hpp"
#include "model/object_fields.hpp"

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

class Inventory {
 public:
  // Adds one manifest (any kind; a v1 List is expanded). Objects of kinds
  // the operator does not read are ignored. Problems are appended to
  // problems_. Re-adding the same namespace/name replaces the object.
  // `origin` ("file:line") names the document in problems about it.
  void add(const Value& doc, std::string_view origin = {});
  void add(Value&& doc, std::string_view origin = {});
  // Removes an object by kind and key; returns whether it existed.
  bool remove(const std::string& kind, const Key& key);

  Table<GrafanaAgent> agents;
  Table<MetricsInstance> metrics_instances;
  Table<LogsInstance> logs_instances;
  Table<PodLogs> pod_logs;
  Table<Integration> integrations;
  Table<MetricsIntegration> metrics_integrations;
  Table<IntegrationMonitor> integration_monitors;
  Table<ServiceMonitor> service_monitors;
  Table<PodMonitor> pod_monitors;
  Table<Probe> probes;
  std::map<Key, Secret> secrets;
  std::map<Key, ConfigMap> config_maps;
  std::map<std::string, Namespace> namespaces;

  const std::vector<Problem>& problems() const { return problems_; }
  std::size_t ignored() const { return ignored_; }

  // Labels of a namespace; empty when the Namespace object is unknown.
  const Labels& namespace_labels(const std::string& ns) const;

 private:
  std::optional<Key> normalize_metadata(Value& obj, const std::string& kind, bool namespaced);
  void decode_and_store(const std::string& kind, const Value& obj, FieldErrors& errors);

  std::vector<Problem> problems_;
  std::size_t ignored_ = 0;
};

// Kind names as they appear in manifests.
bool is_known_kind(const std::string& kind);

}  // namespace model
