// Hierarchy discovery: which MetricsInstances, LogsInstances, Integrations
// and MetricsIntegrations a GrafanaAgent selects, and which monitors
// (IntegrationMonitors included) and PodLogs each instance selects,
// following upstream's selector semantics.
// Contract: pure; members are sorted by namespace/name; invalid members are
// skipped (their decode problems are already in the Inventory). A resource
// may appear in many hierarchies.
#pragma once

#include <string>
#include <vector>

#include "model/inventory.hpp"

namespace model {

// A selected ServiceMonitor, PodMonitor or Probe (an inventory Member,
// possibly not decoded: see model::decoded).
template <class T>
struct Selected {
  const Key* key;
  const Member<T>* member;
  const std::string& ns() const { return key->first; }
  const std::string& name() const { return key->second; }
};

// The two forms a member list takes (decoded pointers, and Selected
// members), read alike: namespace, name, and the decoded object (kept, or
// decoded into `scratch`).
template <class T>
const std::string& ns_of(const T* m) {
  return m->meta.ns;
}
template <class T>
const std::string& ns_of(const Selected<T>& s) {
  return s.ns();
}
template <class T>
const std::string& name_of(const T* m) {
  return m->meta.name;
}
template <class T>
const std::string& name_of(const Selected<T>& s) {
  return s.name();
}
template <class T>
const T& object_of(const T* m, std::optional<T>& /*scratch*/) {
  return *m;
}
template <class T>
const T& object_of(const Selected<T>& s, std::optional<T>& scratch) {
  return decoded(*s.member, scratch);
}

struct MetricsInstanceNode {
  const MetricsInstance* instance;
  std::vector<Selected<ServiceMonitor>> service_monitors;
  std::vector<Selected<PodMonitor>> pod_monitors;
  std::vector<Selected<Probe>> probes;
  std::vector<const IntegrationMonitor*> integration_monitors;
};

struct LogsInstanceNode {
  const LogsInstance* instance;
  std::vector<const PodLogs*> pod_logs;
};

struct Hierarchy {
  const GrafanaAgent* agent = nullptr;
  std::vector<MetricsInstanceNode> metrics;
  std::vector<LogsInstanceNode> logs;
  std::vector<const Integration*> integrations;
  std::vector<const MetricsIntegration*> metrics_integrations;
};

// Namespace selector semantics of the agent CRDs: nil means the parent's
// namespace only, {} means every namespace, otherwise the labels of the
// Namespace object must match.
bool namespace_selected(const Inventory& inv, const std::optional<LabelSelector>& ns_selector,
                        const std::string& parent_ns, const std::string& object_ns);

Hierarchy build_hierarchy(const Inventory& inv, const GrafanaAgent& agent);

// Why each candidate is in or out of the hierarchy, for debugging views.
std::vector<std::string> explain_hierarchy(const Inventory& inv, const GrafanaAgent& agent);

}  // namespace model
