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

struct MetricsInstanceNode {
  const MetricsInstance* instance;
  std::vector<const ServiceMonitor*> service_monitors;
  std::vector<const PodMonitor*> pod_monitors;
  std::vector<const Probe*> probes;
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
