// The RBAC authorizer of simcluster: pure functions that decide a request
// the way kube-apiserver's RBAC authorizer does, from the request's
// attributes and the stored Roles, ClusterRoles, RoleBindings and
// ClusterRoleBindings (rbac.authorization.k8s.io/v1, as JSON values).
// Contract: nothing here reads the store or the clock. A request is allowed
// when its user is in system:masters, when the built-in discovery and
// public-info policy covers it, or when a rule of a role bound to the user
// matches: ClusterRoleBindings everywhere, RoleBindings only for requests in
// their namespace (a RoleBinding may name a ClusterRole). resourceNames
// restrict a rule to requests that name an object. Aggregated ClusterRoles
// are not expanded (no aggregation controller runs).
#pragma once

#include <string>
#include <vector>

#include "model/value.hpp"

namespace k8s::sim {

struct UserInfo {
  std::string name;
  std::vector<std::string> groups;
};

// What the authorizer sees of a request (k8s.io/apiserver's RequestInfo).
struct RequestAttributes {
  UserInfo user;
  std::string verb;  // get, list, watch, create, ... or the lower-case method for paths
  bool resource_request = false;
  std::string api_group;
  std::string api_version;
  std::string resource;
  std::string subresource;
  std::string ns;
  std::string name;
  std::string path;  // the URL path (what non-resource rules match)
};

// The RBAC objects in force. Pointers stay owned by the caller.
struct RbacPolicy {
  std::vector<const model::Value*> roles;
  std::vector<const model::Value*> cluster_roles;
  std::vector<const model::Value*> role_bindings;
  std::vector<const model::Value*> cluster_role_bindings;
};

struct Decision {
  bool allowed = false;
  // Allowed: which binding and role allowed it. Denied: "" or, when a
  // binding that applies to the user names a missing role, "RBAC: <errors>"
  // as the real server appends to the 403 message.
  std::string reason;
};

Decision authorize(const RequestAttributes& request, const RbacPolicy& policy);

// One PolicyRule against a request: verbs, apiGroups, resources (with
// "*", "*/subresource" and "resource/subresource"), resourceNames, or
// nonResourceURLs (exact, "*" or a trailing-"*" prefix).
bool rule_allows(const RequestAttributes& request, const model::Value& rule);

// Whether a binding subject (User, Group or ServiceAccount) names the user.
// A ServiceAccount subject without a namespace means `binding_ns`.
bool subject_matches(const UserInfo& user, const model::Value& subject, const std::string& binding_ns);

// The user a ServiceAccount token authenticates as, with its groups.
UserInfo service_account_user(const std::string& ns, const std::string& name);

}  // namespace k8s::sim
