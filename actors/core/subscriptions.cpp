#include "actors/core/subscriptions.hpp"

#include <algorithm>

namespace actors::core {
namespace {

void add_refs(Subscriptions& s, const std::string& ns, const std::vector<model::AssetRef>& refs) {
  for (const model::AssetRef& r : refs) (r.secret ? s.secrets : s.config_maps).insert({ns, r.name});
}

void add_selector(Subscriptions& s, const char* kind, const std::optional<model::LabelSelector>& sel,
                  const std::optional<model::LabelSelector>& ns_sel, const std::string& parent_ns) {
  if (sel) s.selectors.push_back({kind, *sel, ns_sel, parent_ns});
}

void metrics_node(Subscriptions& s, const model::MetricsInstanceNode& node) {
  const model::MetricsInstance& mi = *node.instance;
  const std::string& ns = mi.meta.ns;
  add_selector(s, "ServiceMonitor", mi.service_monitor_selector, mi.service_monitor_namespace_selector, ns);
  add_selector(s, "PodMonitor", mi.pod_monitor_selector, mi.pod_monitor_namespace_selector, ns);
  add_selector(s, "Probe", mi.probe_selector, mi.probe_namespace_selector, ns);
  add_selector(s, "IntegrationMonitor", mi.integration_monitor_selector, mi.integration_monitor_namespace_selector, ns);
  add_refs(s, ns, model::references(mi));
  // A member's references were collected when its inventory stored it.
  for (const auto& sm : node.service_monitors) add_refs(s, sm.ns(), sm.member->refs);
  for (const auto& pm : node.pod_monitors) add_refs(s, pm.ns(), pm.member->refs);
  for (const auto& p : node.probes) add_refs(s, p.ns(), p.member->refs);
}

}  // namespace

bool SelectorSubscription::selects_namespace(const std::string& ns, const model::Value* ns_labels) const {
  if (!namespace_selector) return ns == parent_ns;
  return namespace_selector->empty() || namespace_selector->matches_labels_value(ns_labels);
}

std::string canonical(const model::LabelSelector& sel) {
  std::string out;
  for (const auto& [k, v] : sel.match_labels) out += k + "=" + v + ",";
  std::vector<std::string> exprs;
  for (const auto& r : sel.match_expressions) {
    std::vector<std::string> values = r.values;
    std::sort(values.begin(), values.end());
    std::string e = r.key + " " + r.op + " (";
    for (const auto& v : values) e += v + ",";
    exprs.push_back(e + ")");
  }
  std::sort(exprs.begin(), exprs.end());
  for (const auto& e : exprs) out += ";" + e;
  return out;
}

std::string SelectorSubscription::canonical() const {
  std::string ns = namespace_selector ? "{" + actors::core::canonical(*namespace_selector) + "}" : "nil";
  return kind + "|" + actors::core::canonical(selector) + "|" + ns + "|" + parent_ns;
}

bool Subscriptions::same_as(const Subscriptions& o) const {
  if (selectors.size() != o.selectors.size() || secrets != o.secrets || config_maps != o.config_maps) return false;
  for (std::size_t i = 0; i < selectors.size(); ++i)
    if (selectors[i].canonical() != o.selectors[i].canonical()) return false;
  return true;
}

void normalize(Subscriptions& s) {
  auto less = [](const SelectorSubscription& a, const SelectorSubscription& b) {
    return a.canonical() < b.canonical();
  };
  auto same = [](const SelectorSubscription& a, const SelectorSubscription& b) {
    return a.canonical() == b.canonical();
  };
  std::sort(s.selectors.begin(), s.selectors.end(), less);
  s.selectors.erase(std::unique(s.selectors.begin(), s.selectors.end(), same), s.selectors.end());
}

Subscriptions subscriptions_for(const model::Hierarchy& h) {
  Subscriptions s;
  if (!h.agent) return s;
  const model::GrafanaAgent& a = *h.agent;
  add_selector(s, "MetricsInstance", a.metrics.instance_selector, a.metrics.instance_namespace_selector, a.meta.ns);
  add_selector(s, "LogsInstance", a.logs.instance_selector, a.logs.instance_namespace_selector, a.meta.ns);
  add_selector(s, "Integration", a.integrations_selector, a.integrations_namespace_selector, a.meta.ns);
  add_selector(s, "MetricsIntegration", a.metrics_integrations_selector, a.metrics_integrations_namespace_selector,
               a.meta.ns);
  add_refs(s, a.meta.ns, model::references(a));
  for (const auto& node : h.metrics) metrics_node(s, node);
  for (const auto& node : h.logs) {
    const model::LogsInstance& li = *node.instance;
    add_selector(s, "PodLogs", li.pod_logs_selector, li.pod_logs_namespace_selector, li.meta.ns);
    add_refs(s, li.meta.ns, model::references(li));
  }
  for (const auto* i : h.integrations) add_refs(s, i->meta.ns, model::references(*i));
  for (const auto* i : h.metrics_integrations) add_refs(s, i->meta.ns, model::references(*i));
  normalize(s);
  return s;
}

}  // namespace actors::core
