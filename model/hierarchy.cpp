#include "model/hierarchy.hpp"

namespace model {
namespace {

template <class T>
bool labels_match(const LabelSelector& sel, const Entry<T>& e) {
  return sel.matches(e.obj.meta.labels);
}

template <class T>
bool labels_match(const LabelSelector& sel, const Member<T>& m) {
  return m.matches(sel);
}

// What a node holds of a selected entry: the decoded object, or the member.
template <class T>
const T* selected(const Key& /*key*/, const Entry<T>& e) {
  return &e.obj;
}

template <class T>
Selected<T> selected(const Key& key, const Member<T>& m) {
  return {&key, &m};
}

// A member is selected when its labels match the selector (nil matches
// nothing) and its namespace passes the namespace selector.
template <class Table>
auto select_all(const Inventory& inv, const Table& table, const std::optional<LabelSelector>& sel,
                const std::optional<LabelSelector>& ns_sel, const std::string& parent_ns) {
  std::vector<decltype(selected(table.begin()->first, table.begin()->second))> out;
  if (!sel) return out;  // nil selects nothing; skip the scan
  for (const auto& [key, entry] : table)
    if (entry.valid && labels_match(*sel, entry) && namespace_selected(inv, ns_sel, parent_ns, key.first))
      out.push_back(selected(key, entry));
  return out;
}

template <class Table>
void explain_table(const Inventory& inv, const Table& table, const char* kind, const std::optional<LabelSelector>& sel,
                   const std::optional<LabelSelector>& ns_sel, const std::string& parent, const std::string& parent_ns,
                   std::vector<std::string>& out) {
  for (const auto& [key, entry] : table) {
    std::string who = std::string(kind) + " " + key.first + "/" + key.second;
    if (!sel) {
      out.push_back(who + ": out: " + parent + " has no selector for it (nil selects nothing)");
    } else if (!labels_match(*sel, entry)) {
      out.push_back(who + ": out: labels do not match " + parent + "'s selector");
    } else if (!namespace_selected(inv, ns_sel, parent_ns, key.first)) {
      out.push_back(who + ": out: namespace not selected by " + parent);
    } else if (!entry.valid) {
      out.push_back(who + ": out: selected by " + parent + " but invalid");
    } else {
      out.push_back(who + ": in: selected by " + parent);
    }
  }
}

}  // namespace

bool namespace_selected(const Inventory& inv, const std::optional<LabelSelector>& ns_selector,
                        const std::string& parent_ns, const std::string& object_ns) {
  if (!ns_selector) return object_ns == parent_ns;
  if (ns_selector->empty()) return true;
  return ns_selector->matches(inv.namespace_labels(object_ns));
}

Hierarchy build_hierarchy(const Inventory& inv, const GrafanaAgent& agent) {
  Hierarchy h;
  h.agent = &agent;
  const std::string& ns = agent.meta.ns;
  for (const MetricsInstance* mi : select_all(inv, inv.metrics_instances, agent.metrics.instance_selector,
                                              agent.metrics.instance_namespace_selector, ns)) {
    MetricsInstanceNode node{mi, {}, {}, {}, {}};
    const std::string& mns = mi->meta.ns;
    node.service_monitors = select_all(inv, inv.service_monitors, mi->service_monitor_selector,
                                       mi->service_monitor_namespace_selector, mns);
    node.pod_monitors =
        select_all(inv, inv.pod_monitors, mi->pod_monitor_selector, mi->pod_monitor_namespace_selector, mns);
    node.probes = select_all(inv, inv.probes, mi->probe_selector, mi->probe_namespace_selector, mns);
    node.integration_monitors = select_all(inv, inv.integration_monitors, mi->integration_monitor_selector,
                                           mi->integration_monitor_namespace_selector, mns);
    h.metrics.push_back(std::move(node));
  }
  for (const LogsInstance* li :
       select_all(inv, inv.logs_instances, agent.logs.instance_selector, agent.logs.instance_namespace_selector, ns)) {
    h.logs.push_back(LogsInstanceNode{
        li, select_all(inv, inv.pod_logs, li->pod_logs_selector, li->pod_logs_namespace_selector, li->meta.ns)});
  }
  h.integrations =
      select_all(inv, inv.integrations, agent.integrations_selector, agent.integrations_namespace_selector, ns);
  h.metrics_integrations = select_all(inv, inv.metrics_integrations, agent.metrics_integrations_selector,
                                      agent.metrics_integrations_namespace_selector, ns);
  return h;
}

std::vector<std::string> explain_hierarchy(const Inventory& inv, const GrafanaAgent& agent) {
  std::vector<std::string> out;
  std::string ga = "GrafanaAgent " + agent.meta.ns + "/" + agent.meta.name;
  const std::string& ns = agent.meta.ns;
  explain_table(inv, inv.metrics_instances, "MetricsInstance", agent.metrics.instance_selector,
                agent.metrics.instance_namespace_selector, ga, ns, out);
  explain_table(inv, inv.logs_instances, "LogsInstance", agent.logs.instance_selector,
                agent.logs.instance_namespace_selector, ga, ns, out);
  explain_table(inv, inv.integrations, "Integration", agent.integrations_selector,
                agent.integrations_namespace_selector, ga, ns, out);
  explain_table(inv, inv.metrics_integrations, "MetricsIntegration", agent.metrics_integrations_selector,
                agent.metrics_integrations_namespace_selector, ga, ns, out);
  Hierarchy h = build_hierarchy(inv, agent);
  for (const auto& node : h.metrics) {
    const auto* mi = node.instance;
    std::string parent = "MetricsInstance " + mi->meta.ns + "/" + mi->meta.name;
    explain_table(inv, inv.service_monitors, "ServiceMonitor", mi->service_monitor_selector,
                  mi->service_monitor_namespace_selector, parent, mi->meta.ns, out);
    explain_table(inv, inv.pod_monitors, "PodMonitor", mi->pod_monitor_selector, mi->pod_monitor_namespace_selector,
                  parent, mi->meta.ns, out);
    explain_table(inv, inv.probes, "Probe", mi->probe_selector, mi->probe_namespace_selector, parent, mi->meta.ns, out);
    explain_table(inv, inv.integration_monitors, "IntegrationMonitor", mi->integration_monitor_selector,
                  mi->integration_monitor_namespace_selector, parent, mi->meta.ns, out);
  }
  for (const auto& node : h.logs) {
    const auto* li = node.instance;
    std::string parent = "LogsInstance " + li->meta.ns + "/" + li->meta.name;
    explain_table(inv, inv.pod_logs, "PodLogs", li->pod_logs_selector, li->pod_logs_namespace_selector, parent,
                  li->meta.ns, out);
  }
  return out;
}

}  // namespace model
