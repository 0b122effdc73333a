#include "k8s/sim/rbac.hpp"

#include <algorithm>

#include "k8s/sim/selector.hpp"

namespace k8s::sim {

using model::Value;

namespace {

bool has(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// The strings of an array field ("verbs", "resources", ...); [] otherwise.
std::vector<std::string> strings_at(const Value& v, const char* key) {
  std::vector<std::string> out;
  const Value* list = v.find(key);
  if (!list || !list->is_array()) return out;
  for (const Value& item : list->as_array())
    if (item.is_string()) out.push_back(item.as_string());
  return out;
}

bool resource_matches(const std::vector<std::string>& rule_resources, const RequestAttributes& r) {
  std::string combined = r.subresource.empty() ? r.resource : r.resource + "/" + r.subresource;
  for (const std::string& res : rule_resources) {
    if (res == "*" || res == combined) return true;
    // "*/status" grants a subresource of every resource.
    if (!r.subresource.empty() && res == "*/" + r.subresource) return true;
  }
  return false;
}

bool url_matches(const std::vector<std::string>& urls, const std::string& path) {
  for (const std::string& u : urls) {
    if (u == "*" || u == path) return true;
    if (!u.empty() && u.back() == '*' && path.rfind(u.substr(0, u.size() - 1), 0) == 0) return true;
  }
  return false;
}

bool in_group(const UserInfo& u, const std::string& group) {
  return has(u.groups, group);
}

// The built-in policy every cluster bootstraps (system:discovery and
// system:public-info-viewer): discovery for authenticated users, health
// and version for everyone.
bool default_policy_allows(const RequestAttributes& r) {
  if (r.resource_request || r.verb != "get") return false;
  static const std::vector<std::string> public_urls = {"/healthz", "/healthz/*", "/livez",   "/livez/*",
                                                       "/readyz",  "/readyz/*",  "/version", "/version/"};
  static const std::vector<std::string> discovery_urls = {"/api",    "/api/*",   "/apis",
                                                          "/apis/*", "/openapi", "/openapi/*"};
  if (url_matches(public_urls, r.path))
    return in_group(r.user, "system:authenticated") || in_group(r.user, "system:unauthenticated");
  return in_group(r.user, "system:authenticated") && url_matches(discovery_urls, r.path);
}

const Value* find_object(const std::vector<const Value*>& list, const std::string& ns, const std::string& name) {
  for (const Value* v : list)
    if (field_text(*v, "metadata.name") == name && field_text(*v, "metadata.namespace") == ns) return v;
  return nullptr;
}

// The role a binding refers to; null with an error (as the real server
// words it) when it does not exist.
const Value* referenced_role(const Value& binding, const std::string& binding_ns, const RbacPolicy& p,
                             std::vector<std::string>& errors) {
  std::string kind = field_text(binding, "roleRef.kind"), name = field_text(binding, "roleRef.name");
  const Value* role = nullptr;
  if (kind == "Role")
    role = find_object(p.roles, binding_ns, name);
  else if (kind == "ClusterRole")
    role = find_object(p.cluster_roles, "", name);
  else
    errors.push_back("unsupported role reference kind: \"" + kind + "\"");
  if (!role && (kind == "Role" || kind == "ClusterRole"))
    errors.push_back((kind == "Role" ? "role" : "clusterrole") + std::string(".rbac.authorization.k8s.io \"") + name +
                     "\" not found");
  return role;
}

bool binding_applies(const UserInfo& user, const Value& binding, const std::string& binding_ns) {
  const Value* subjects = binding.find("subjects");
  if (!subjects || !subjects->is_array()) return false;
  for (const Value& s : subjects->as_array())
    if (subject_matches(user, s, binding_ns)) return true;
  return false;
}

// Whether some rule of a binding's role allows the request; fills `why`.
bool binding_allows(const RequestAttributes& r, const Value& binding, const std::string& binding_ns,
                    const RbacPolicy& p, std::vector<std::string>& errors, std::string& why) {
  if (!binding_applies(r.user, binding, binding_ns)) return false;
  const Value* role = referenced_role(binding, binding_ns, p, errors);
  const Value* rules = role ? role->find("rules") : nullptr;
  if (!rules || !rules->is_array()) return false;
  for (const Value& rule : rules->as_array()) {
    if (!rule_allows(r, rule)) continue;
    std::string where = binding_ns.empty() ? "" : binding_ns + "/";
    why = "allowed by " + std::string(binding_ns.empty() ? "ClusterRoleBinding" : "RoleBinding") + " \"" + where +
          field_text(binding, "metadata.name") + "\" of " + field_text(binding, "roleRef.kind") + " \"" +
          field_text(binding, "roleRef.name") + "\"";
    return true;
  }
  return false;
}

std::string aggregate(const std::vector<std::string>& errors) {
  if (errors.size() == 1) return errors[0];
  std::string out = "[";
  for (std::size_t i = 0; i < errors.size(); ++i) out += (i ? ", " : "") + errors[i];
  return out + "]";
}

}  // namespace

bool rule_allows(const RequestAttributes& r, const Value& rule) {
  std::vector<std::string> verbs = strings_at(rule, "verbs");
  if (!has(verbs, "*") && !has(verbs, r.verb)) return false;
  if (!r.resource_request) return url_matches(strings_at(rule, "nonResourceURLs"), r.path);
  std::vector<std::string> groups = strings_at(rule, "apiGroups");
  if (!has(groups, "*") && !has(groups, r.api_group)) return false;
  if (!resource_matches(strings_at(rule, "resources"), r)) return false;
  std::vector<std::string> names = strings_at(rule, "resourceNames");
  return names.empty() || has(names, r.name);
}

bool subject_matches(const UserInfo& user, const Value& subject, const std::string& binding_ns) {
  std::string kind = field_text(subject, "kind"), name = field_text(subject, "name");
  if (kind == "User") return name == user.name;
  if (kind == "Group") return in_group(user, name);
  if (kind != "ServiceAccount") return false;
  std::string ns = field_text(subject, "namespace");
  if (ns.empty()) ns = binding_ns;
  return !ns.empty() && user.name == "system:serviceaccount:" + ns + ":" + name;
}

UserInfo service_account_user(const std::string& ns, const std::string& name) {
  return {"system:serviceaccount:" + ns + ":" + name,
          {"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}};
}

Decision authorize(const RequestAttributes& r, const RbacPolicy& p) {
  if (in_group(r.user, "system:masters")) return {true, "allowed: system:masters"};
  if (default_policy_allows(r)) return {true, "allowed by the default discovery and public-info policy"};
  std::vector<std::string> errors;
  std::string why;
  for (const Value* b : p.cluster_role_bindings)
    if (binding_allows(r, *b, "", p, errors, why)) return {true, why};
  if (!r.ns.empty())
    for (const Value* b : p.role_bindings)
      if (field_text(*b, "metadata.namespace") == r.ns && binding_allows(r, *b, r.ns, p, errors, why))
        return {true, why};
  return {false, errors.empty() ? "" : "RBAC: " + aggregate(errors)};
}

}  // namespace k8s::sim
