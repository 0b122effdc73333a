#include "k8s/client/resources.hpp"

#include <array>

namespace k8s {
namespace {

struct Entry {
  std::string_view key;  // what resource_for_kind() matches
  Resource resource;
};

// events.k8s.io/v1 Event shares its kind with core/v1 Event; it is looked
// up as "events.k8s.io/Event", every other kind by its bare name.
const std::array<Entry, 36>& table() {
  static const std::array<Entry, 36> entries{{
      {"Namespace", {"", "v1", "namespaces", "Namespace", false}},
      {"Node", {"", "v1", "nodes", "Node", false}},
      {"Secret", {"", "v1", "secrets", "Secret", true}},
      {"ConfigMap", {"", "v1", "configmaps", "ConfigMap", true}},
      {"Service", {"", "v1", "services", "Service", true}},
      {"Endpoints", {"", "v1", "endpoints", "Endpoints", true}},
      {"Pod", {"", "v1", "pods", "Pod", true}},
      {"ServiceAccount", {"", "v1", "serviceaccounts", "ServiceAccount", true}},
      {"Event", {"", "v1", "events", "Event", true}},
      {"StatefulSet", {"apps", "v1", "statefulsets", "StatefulSet", true}},
      {"DaemonSet", {"apps", "v1", "daemonsets", "DaemonSet", true}},
      {"Deployment", {"apps", "v1", "deployments", "Deployment", true}},
      {"Lease", {"coordination.k8s.io", "v1", "leases", "Lease", true}},
      {"EndpointSlice", {"discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", true}},
      {"events.k8s.io/Event", {"events.k8s.io", "v1", "events", "Event", true}},
      {"Role", {"rbac.authorization.k8s.io", "v1", "roles", "Role", true}},
      {"RoleBinding", {"rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true}},
      {"ClusterRole", {"rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false}},
      {"ClusterRoleBinding", {"rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", false}},
      {"CustomResourceDefinition",
       {"apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", false}},
      {"Ingress", {"networking.k8s.io", "v1", "ingresses", "Ingress", true}},
      {"GrafanaAgent", {"monitoring.grafana.com", "v1alpha1", "grafanaagents", "GrafanaAgent", true}},
      {"MetricsInstance", {"monitoring.grafana.com", "v1alpha1", "metricsinstances", "MetricsInstance", true}},
      {"LogsInstance", {"monitoring.grafana.com", "v1alpha1", "logsinstances", "LogsInstance", true}},
      {"PodLogs", {"monitoring.grafana.com", "v1alpha1", "podlogs", "PodLogs", true}},
      {"Integration", {"monitoring.grafana.com", "v1alpha1", "integrations", "Integration", true}},
      {"MetricsIntegration", {"monitoring.grafana.com", "v1alpha1", "metricsintegrations", "MetricsIntegration", true}},
      {"IntegrationMonitor", {"monitoring.grafana.com", "v1alpha1", "integrationmonitors", "IntegrationMonitor", true}},
      {"ServiceMonitor", {"monitoring.coreos.com", "v1", "servicemonitors", "ServiceMonitor", true}},
      {"PodMonitor", {"monitoring.coreos.com", "v1", "podmonitors", "PodMonitor", true}},
      {"Probe", {"monitoring.coreos.com", "v1", "probes", "Probe", true}},
      {"ScrapeConfig", {"monitoring.coreos.com", "v1alpha1", "scrapeconfigs", "ScrapeConfig", true}},
      {"PersistentVolumeClaim", {"", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true}},
      {"ReplicaSet", {"apps", "v1", "replicasets", "ReplicaSet", true}},
      {"PodDisruptionBudget", {"policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true}},
      {"PrometheusRule", {"monitoring.coreos.com", "v1", "prometheusrules", "PrometheusRule", true}},
  }};
  return entries;
}

}  // namespace

const Resource* resource_for_kind(std::string_view kind) {
  for (const Entry& e : table())
    if (e.key == kind) return &e.resource;
  return nullptr;
}

std::string resource_path(const Resource& r, std::string_view ns, std::string_view name, std::string_view subresource) {
  std::string p = r.group.empty() ? "/api/" + r.version : "/apis/" + r.group + "/" + r.version;
  if (r.namespaced && !ns.empty()) {
    p += "/namespaces/";
    p += ns;
  }
  p += "/";
  p += r.plural;
  if (!name.empty()) {
    p += "/";
    p += name;
    if (!subresource.empty()) {
      p += "/";
      p += subresource;
    }
  }
  return p;
}

}  // namespace k8s
