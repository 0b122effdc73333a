// Parsing and validation of one kubernetes_sd_config.
#include "allocation/discovery/kubernetes_config.hpp"

#include <algorithm>

#include "allocation/discovery/meta.hpp"

namespace allocation::discovery {

namespace {

using model::Value;

constexpr std::array<std::string_view, kKinds> kRoleNames = {"pod", "service", "endpoints", "endpointslice", "ingress"};
constexpr std::array<std::string_view, kKinds> kKindNames = {"Pod", "Service", "Endpoints", "EndpointSlice", "Ingress"};

std::optional<Role> role_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kRoleNames.size(); ++i)
    if (kRoleNames[i] == name) return static_cast<Role>(i);
  return std::nullopt;
}

std::string optional_string(const Value& v, std::string_view key, const std::string& field) {
  const Value* s = v.find(key);
  if (!s || s->is_null()) return "";
  if (!s->is_string()) fail_field(field + "." + std::string(key), "must be a string");
  return s->as_string();
}

// Prometheus's allowedSelectors: which selector roles each role accepts.
std::vector<Role> allowed_selectors(Role role) {
  if (role == Role::endpoints) return {Role::pod, Role::service, Role::endpoints};
  if (role == Role::endpointslice) return {Role::pod, Role::service, Role::endpointslice};
  return {role};
}

std::string joined(const std::vector<Role>& roles) {
  std::string out;
  for (auto r : roles) out += (out.empty() ? "" : ", ") + std::string(role_name(r));
  return out;
}

void read_namespaces(const Value* v, const std::string& field, std::string_view own, KubernetesSdConfig& out) {
  if (!v || v->is_null()) return;
  if (!v->is_object()) fail_field(field, "must be an object");
  if (const Value* names = v->find("names"); names && !names->is_null()) {
    if (!names->is_array()) fail_field(field + ".names", "must be a list of strings");
    for (std::size_t i = 0; i < names->as_array().size(); ++i) {
      const Value& n = names->as_array()[i];
      if (!n.is_string()) fail_field(field + ".names[" + std::to_string(i) + "]", "must be a string");
      out.namespaces.push_back(n.as_string());
    }
  }
  bool include_own = false;
  if (const Value* o = v->find("own_namespace"); o && !o->is_null()) {
    if (!o->is_bool()) fail_field(field + ".own_namespace", "must be a boolean");
    include_own = o->as_bool();
  }
  if (out.namespaces.empty() && !include_own) return;
  out.all_namespaces = false;
  if (include_own && !own.empty()) out.namespaces.emplace_back(own);
}

void read_selectors(const Value* v, const std::string& field, KubernetesSdConfig& out) {
  if (!v || v->is_null()) return;
  if (!v->is_array()) fail_field(field, "must be a list");
  std::vector<Role> seen;
  for (std::size_t i = 0; i < v->as_array().size(); ++i) {
    const Value& s = v->as_array()[i];
    const std::string item = field + "[" + std::to_string(i) + "]";
    if (!s.is_object()) fail_field(item, "must be an object");
    const std::string name = optional_string(s, "role", item);
    auto role = role_from_name(name);
    if (!role) fail_field(item + ".role", "unknown Kubernetes SD role \"" + name + "\"");
    if (std::find(seen.begin(), seen.end(), *role) != seen.end())
      fail_field(item + ".role", "duplicated selector role: " + name);
    seen.push_back(*role);
    const auto allowed = allowed_selectors(out.role);
    if (std::find(allowed.begin(), allowed.end(), *role) == allowed.end())
      fail_field(item + ".role",
                 std::string(role_name(out.role)) + " role supports only " + joined(allowed) + " selectors");
    auto& sel = out.selectors[static_cast<std::size_t>(*role)];
    try {
      sel.label = Selector::parse_labels(optional_string(s, "label", item));
    } catch (const SelectorError& e) {
      fail_field(item + ".label", e.what());
    }
    try {
      sel.field = Selector::parse_fields(optional_string(s, "field", item));
    } catch (const SelectorError& e) {
      fail_field(item + ".field", e.what());
    }
  }
}

}  // namespace

std::string_view role_name(Role r) {
  return kRoleNames[static_cast<std::size_t>(r)];
}
std::string_view kind_name(Kind k) {
  return kKindNames[static_cast<std::size_t>(k)];
}

std::optional<Kind> kind_from_name(std::string_view kind) {
  for (std::size_t i = 0; i < kKindNames.size(); ++i)
    if (kKindNames[i] == kind) return static_cast<Kind>(i);
  return std::nullopt;
}

bool KubernetesSdConfig::watches_namespace(std::string_view ns) const {
  return all_namespaces || std::find(namespaces.begin(), namespaces.end(), ns) != namespaces.end();
}

bool KubernetesSdConfig::accepts(Kind kind, const model::Value& object) const {
  if (!watches_namespace(model::string_at(object, {"metadata", "namespace"}))) return false;
  const auto& sel = selectors[static_cast<std::size_t>(kind)];
  return sel.label.matches(object) && sel.field.matches(object);
}

KubernetesSdConfig parse_kubernetes_sd_config(const Value& config, const std::string& field,
                                              std::string_view own_namespace) {
  if (!config.is_object()) fail_field(field, "must be an object");
  KubernetesSdConfig out;
  const std::string role = optional_string(config, "role", field);
  if (role.empty())
    fail_field(field + ".role", "role missing (one of: pod, service, endpoints, endpointslice, node, ingress)");
  if (role == "node") fail_field(field + ".role", "role node is not supported yet");
  auto r = role_from_name(role);
  if (!r) fail_field(field + ".role", "unknown Kubernetes SD role \"" + role + "\"");
  out.role = *r;
  if (const Value* am = config.find("attach_metadata"); am && am->is_object()) {
    if (const Value* node = am->find("node"); node && node->is_bool() && node->as_bool())
      fail_field(field + ".attach_metadata.node", "not supported yet");
  }
  read_namespaces(config.find("namespaces"), field + ".namespaces", own_namespace, out);
  read_selectors(config.find("selectors"), field + ".selectors", out);
  return out;
}

std::vector<Kind> kinds_of(Role role) {
  switch (role) {
    case Role::endpoints:
      return {Kind::endpoints, Kind::service, Kind::pod};
    case Role::endpointslice:
      return {Kind::endpointslice, Kind::service, Kind::pod};
    default:
      return {static_cast<Kind>(role)};
  }
}

std::vector<WatchSpec> watch_specs(const KubernetesSdConfig& config) {
  std::vector<WatchSpec> out;
  for (Kind k : kinds_of(config.role)) {
    const auto& sel = config.selectors[static_cast<std::size_t>(k)];
    if (config.all_namespaces)
      out.push_back({k, "", sel.label.text(), sel.field.text()});
    else
      for (const auto& ns : config.namespaces) out.push_back({k, ns, sel.label.text(), sel.field.text()});
  }
  return out;
}

}  // namespace allocation::discovery
