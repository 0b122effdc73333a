#include "k8s/sim/discovery.hpp"

#include <algorithm>
#include <map>
#include <regex>

namespace k8s::sim {

using model::Value;

namespace {

const std::vector<std::string> kVerbs = {"create", "delete", "deletecollection", "get",
                                         "list",   "patch",  "update",           "watch"};
const std::vector<std::string> kBuiltinGroups = {"",
                                                 "apps",
                                                 "authentication.k8s.io",
                                                 "coordination.k8s.io",
                                                 "discovery.k8s.io",
                                                 "rbac.authorization.k8s.io",
                                                 "apiextensions.k8s.io"};

struct KubeVersion {
  bool kube = false;
  int major = 0, stage = 0, minor = 0;  // stage: 2 GA, 1 beta, 0 alpha
};

KubeVersion parse_version(const std::string& v) {
  static const std::regex re("^v([0-9]+)(?:(alpha|beta)([0-9]+))?$");
  std::smatch m;
  if (!std::regex_match(v, m, re)) return {};
  KubeVersion k{true, std::stoi(m[1]), 2, 0};
  if (m[2].matched) {
    k.stage = m[2] == "beta" ? 1 : 0;
    k.minor = std::stoi(m[3]);
  }
  return k;
}

std::size_t group_rank(const std::string& group) {
  auto it = std::find(kBuiltinGroups.begin(), kBuiltinGroups.end(), group);
  return static_cast<std::size_t>(it - kBuiltinGroups.begin());
}

Value gv(const std::string& group, const std::string& version) {
  return Value::obj({{"groupVersion", group.empty() ? version : group + "/" + version}, {"version", version}});
}

Value verbs_of(const ResourceType& t) {
  return t.create_only ? Value::arr({"create"}) : Value::strings(kVerbs);
}

Value resource_entry(const ResourceType& t) {
  Value r = Value::obj({{"name", t.plural},
                        {"singularName", t.singular},
                        {"namespaced", t.namespaced},
                        {"kind", t.kind},
                        {"verbs", verbs_of(t)}});
  r.set_nonempty("shortNames", Value::strings(t.short_names));
  r.set_nonempty("categories", Value::strings(t.categories));
  return r;
}

Value status_entry(const ResourceType& t) {
  return Value::obj({{"name", t.plural + "/status"},
                     {"singularName", ""},
                     {"namespaced", t.namespaced},
                     {"kind", t.kind},
                     {"verbs", Value::arr({"get", "patch", "update"})}});
}

Value scale_entry(const ResourceType& t) {
  return Value::obj({{"name", t.plural + "/scale"},
                     {"singularName", ""},
                     {"namespaced", t.namespaced},
                     {"group", "autoscaling"},
                     {"version", "v1"},
                     {"kind", "Scale"},
                     {"verbs", Value::arr({"get", "patch", "update"})}});
}

std::vector<std::string> versions_of(const std::vector<ResourceType>& types, const std::string& group) {
  std::vector<std::string> out;
  for (const ResourceType& t : types)
    if (t.group == group && std::find(out.begin(), out.end(), t.version) == out.end()) out.push_back(t.version);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return version_less(b, a); });
  return out;
}

std::vector<std::string> groups_of(const std::vector<ResourceType>& types) {
  std::vector<std::string> out;
  for (const ResourceType& t : types)
    if (std::find(out.begin(), out.end(), t.group) == out.end()) out.push_back(t.group);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    auto ra = group_rank(a), rb = group_rank(b);
    return ra != rb ? ra < rb : a < b;
  });
  return out;
}

Value gvk(const ResourceType& t) {
  return Value::obj({{"group", t.group}, {"version", t.version}, {"kind", t.kind}});
}

Value aggregated_resource(const ResourceType& t) {
  Value r = Value::obj({{"resource", t.plural},
                        {"responseKind", gvk(t)},
                        {"scope", t.namespaced ? "Namespaced" : "Cluster"},
                        {"singularResource", t.singular},
                        {"verbs", verbs_of(t)}});
  r.set_nonempty("shortNames", Value::strings(t.short_names));
  r.set_nonempty("categories", Value::strings(t.categories));
  Value subresources = Value::array();
  Value verbs = Value::arr({"get", "patch", "update"});
  if (t.status_subresource)
    subresources.push(Value::obj({{"subresource", "status"}, {"responseKind", gvk(t)}, {"verbs", verbs}}));
  if (t.scale_subresource) {
    Value scale = Value::obj({{"group", "autoscaling"}, {"version", "v1"}, {"kind", "Scale"}});
    subresources.push(Value::obj({{"subresource", "scale"}, {"responseKind", scale}, {"verbs", verbs}}));
  }
  r.set_nonempty("subresources", std::move(subresources));
  return r;
}

}  // namespace

bool version_less(const std::string& a, const std::string& b) {
  KubeVersion x = parse_version(a), y = parse_version(b);
  if (x.kube != y.kube) return !x.kube;
  if (!x.kube) return a > b;  // non-Kubernetes versions sort alphabetically, lowest priority last
  if (x.stage != y.stage) return x.stage < y.stage;
  if (x.major != y.major) return x.major < y.major;
  return x.minor < y.minor;
}

std::vector<std::pair<std::string, std::string>> group_versions(const std::vector<ResourceType>& types) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& g : groups_of(types))
    for (const std::string& v : versions_of(types, g)) out.emplace_back(g, v);
  return out;
}

Value version_info() {
  return Value::obj({{"major", "1"},
                     {"minor", "32"},
                     {"gitVersion", "v1.32.0-simcluster"},
                     {"gitCommit", ""},
                     {"gitTreeState", "clean"},
                     {"buildDate", "2025-01-01T00:00:00Z"},
                     {"goVersion", "go1.23"},
                     {"compiler", "gc"},
                     {"platform", "linux/amd64"}});
}

Value api_versions(const std::string& server_address) {
  return Value::obj({{"kind", "APIVersions"},
                     {"versions", Value::arr({"v1"})},
                     {"serverAddressByClientCIDRs",
                      Value::arr({Value::obj({{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}})})}});
}

Value api_group(const std::vector<ResourceType>& types, const std::string& group) {
  auto versions = versions_of(types, group);
  if (versions.empty() || group.empty()) return Value();
  Value list = Value::array();
  for (const auto& v : versions) list.push(gv(group, v));
  return Value::obj({{"kind", "APIGroup"},
                     {"apiVersion", "v1"},
                     {"name", group},
                     {"versions", std::move(list)},
                     {"preferredVersion", gv(group, versions.front())}});
}

Value api_group_list(const std::vector<ResourceType>& types) {
  Value groups = Value::array();
  for (const std::string& g : groups_of(types)) {
    if (g.empty()) continue;
    Value entry = api_group(types, g);
    entry.erase("kind");
    entry.erase("apiVersion");
    groups.push(std::move(entry));
  }
  return Value::obj({{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(groups)}});
}

Value api_resource_list(const std::vector<ResourceType>& types, const std::string& group, const std::string& version) {
  Value resources = Value::array();
  for (const ResourceType& t : types) {
    if (t.group != group || t.version != version) continue;
    resources.push(resource_entry(t));
    if (t.status_subresource) resources.push(status_entry(t));
    if (t.scale_subresource) resources.push(scale_entry(t));
  }
  if (resources.size() == 0) return Value();
  return Value::obj({{"kind", "APIResourceList"},
                     {"apiVersion", "v1"},
                     {"groupVersion", group.empty() ? version : group + "/" + version},
                     {"resources", std::move(resources)}});
}

Value aggregated_discovery(const std::vector<ResourceType>& types, bool core) {
  Value items = Value::array();
  for (const std::string& g : groups_of(types)) {
    if (g.empty() != core) continue;
    Value versions = Value::array();
    for (const std::string& v : versions_of(types, g)) {
      Value resources = Value::array();
      for (const ResourceType& t : types)
        if (t.group == g && t.version == v) resources.push(aggregated_resource(t));
      versions.push(Value::obj({{"version", v}, {"resources", std::move(resources)}, {"freshness", "Current"}}));
    }
    Value meta = Value::obj({{"creationTimestamp", nullptr}});
    if (!core) meta.set("name", g);
    items.push(Value::obj({{"metadata", std::move(meta)}, {"versions", std::move(versions)}}));
  }
  return Value::obj({{"kind", "APIGroupDiscoveryList"},
                     {"apiVersion", "apidiscovery.k8s.io/v2"},
                     {"metadata", Value::object()},
                     {"items", std::move(items)}});
}

}  // namespace k8s::sim
