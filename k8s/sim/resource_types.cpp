#include "k8s/sim/resource_types.hpp"
#include "model/text.hpp"

#include <cctype>
#include <mutex>

namespace k8s::sim {

std::vector<std::string> ResourceType::selectable_fields() const {
  std::vector<std::string> out = {"metadata.name", "metadata.namespace"};
  out.insert(out.end(), field_selectors.begin(), field_selectors.end());
  return out;
}

namespace {

std::string key_of(const std::string& group, const std::string& version, const std::string& plural) {
  return group + "/" + version + "/" + plural;
}

struct Spec {
  const char* group;
  const char* kind;
  const char* plural;
  bool namespaced;
  std::vector<std::string> short_names;
  bool status = false;
  bool generation = false;
  std::vector<std::string> categories = {};
  std::vector<std::string> fields = {};
};

std::string schema_prefix(const std::string& group) {
  if (group.empty()) return "io.k8s.api.core.v1.";
  if (group == "apiextensions.k8s.io") return "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.";
  std::string first = group.substr(0, group.find('.'));
  return "io.k8s.api." + first + ".v1.";
}

}  // namespace

std::vector<ResourceType> builtin_types() {
  const std::vector<std::string> all = {"all"};
  const std::vector<Spec> specs = {
      {"", "Namespace", "namespaces", false, {"ns"}, true, false, {}, {"status.phase"}},
      {"", "Secret", "secrets", true, {}, false, false, {}, {"type"}},
      {"", "ConfigMap", "configmaps", true, {"cm"}},
      {"", "Service", "services", true, {"svc"}, true, false, all},
      {"", "Endpoints", "endpoints", true, {"ep"}},
      {"",
       "Pod",
       "pods",
       true,
       {"po"},
       true,
       false,
       all,
       {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork",
        "status.phase", "status.podIP", "status.nominatedNodeName"}},
      {"", "ServiceAccount", "serviceaccounts", true, {"sa"}},
      {"", "Node", "nodes", false, {"no"}, true, false, {}, {"spec.unschedulable"}},
      {"",
       "Event",
       "events",
       true,
       {"ev"},
       false,
       false,
       {},
       {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
        "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
        "reportingComponent", "source", "type"}},
      {"apps", "StatefulSet", "statefulsets", true, {"sts"}, true, true, all},
      {"apps", "DaemonSet", "daemonsets", true, {"ds"}, true, true, all},
      {"apps", "Deployment", "deployments", true, {"deploy"}, true, true, all},
      {"authentication.k8s.io", "TokenReview", "tokenreviews", false, {}},
      {"coordination.k8s.io", "Lease", "leases", true, {}},
      {"discovery.k8s.io", "EndpointSlice", "endpointslices", true, {}, false, false, {}, {"addressType"}},
      {"networking.k8s.io", "Ingress", "ingresses", true, {"ing"}, true},
      {"networking.k8s.io", "NetworkPolicy", "networkpolicies", true, {"netpol"}, false, true},
      {"rbac.authorization.k8s.io", "ClusterRole", "clusterroles", false, {}},
      {"rbac.authorization.k8s.io", "ClusterRoleBinding", "clusterrolebindings", false, {}},
      {"rbac.authorization.k8s.io", "Role", "roles", true, {}},
      {"rbac.authorization.k8s.io", "RoleBinding", "rolebindings", true, {}},
      {"apiextensions.k8s.io",
       "CustomResourceDefinition",
       "customresourcedefinitions",
       false,
       {"crd", "crds"},
       true,
       true,
       {"api-extensions"}},
  };
  std::vector<ResourceType> out;
  for (const Spec& s : specs) {
    ResourceType t;
    t.group = s.group;
    t.version = "v1";
    t.kind = s.kind;
    t.plural = s.plural;
    t.singular = model::ascii_lower(s.kind);
    t.namespaced = s.namespaced;
    t.short_names = s.short_names;
    t.categories = s.categories;
    t.status_subresource = s.status;
    t.scale_subresource = t.group == "apps" && (t.kind == "Deployment" || t.kind == "StatefulSet");
    t.tracks_generation = s.generation;
    t.create_only = t.kind == "TokenReview";
    t.field_selectors = s.fields;
    t.schema_ref = schema_prefix(t.group) + t.kind;
    out.push_back(std::move(t));
  }
  return out;
}

TypeRegistry::TypeRegistry() {
  for (auto& t : builtin_types()) add(std::move(t));
}

void TypeRegistry::add(ResourceType t) {
  std::unique_lock lock(mutex_);
  std::string key = key_of(t.group, t.version, t.plural);
  types_[key] = std::move(t);
  ++generation_;
}

void TypeRegistry::remove(const std::string& group, const std::string& plural) {
  std::unique_lock lock(mutex_);
  std::erase_if(types_, [&](const auto& kv) { return kv.second.group == group && kv.second.plural == plural; });
  ++generation_;
}

std::optional<ResourceType> TypeRegistry::find(const std::string& group, const std::string& version,
                                               const std::string& plural) const {
  std::shared_lock lock(mutex_);
  auto it = types_.find(key_of(group, version, plural));
  if (it == types_.end()) return std::nullopt;
  return it->second;
}

std::optional<ResourceType> TypeRegistry::find_kind(const std::string& api_version, const std::string& kind) const {
  std::shared_lock lock(mutex_);
  for (const auto& [key, t] : types_)
    if (t.kind == kind && t.api_version() == api_version) return t;
  return std::nullopt;
}

std::vector<ResourceType> TypeRegistry::all() const {
  std::shared_lock lock(mutex_);
  std::vector<ResourceType> out;
  for (const auto& [key, t] : types_) out.push_back(t);
  return out;
}

unsigned long TypeRegistry::generation() const {
  std::shared_lock lock(mutex_);
  return generation_;
}

}  // namespace k8s::sim
