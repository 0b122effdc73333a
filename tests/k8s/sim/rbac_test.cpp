// The pure RBAC authorizer (k8s/sim/rbac.hpp) and request attributes
// (k8s/sim/request_info.hpp): verbs and wildcards, subresources,
// resourceNames, RoleBindings (also to ClusterRoles) only in their
// namespace, User/Group/ServiceAccount subjects, the default discovery
// policy, and the exact 403 wording of kube-apiserver.
#include <catch2/catch.hpp>

#include <deque>

#include "k8s/sim/rbac.hpp"
#include "k8s/sim/request_info.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

using k8s::sim::RequestAttributes;
using k8s::sim::UserInfo;
using model::Value;

namespace {

const UserInfo kSa = k8s::sim::service_account_user("ops", "bot");

// RBAC objects from YAML documents, sorted into a policy by kind.
struct Policy {
  std::deque<Value> objects;
  k8s::sim::RbacPolicy policy;

  explicit Policy(const std::string& yaml) {
    for (auto& doc : model::parse_documents(yaml, "policy")) {
      objects.push_back(std::move(doc.value));
      const Value& v = objects.back();
      std::string kind = v.find("kind")->as_string();
      auto& list = kind == "Role"          ? policy.roles
                   : kind == "ClusterRole" ? policy.cluster_roles
                   : kind == "RoleBinding" ? policy.role_bindings
                                           : policy.cluster_role_bindings;
      list.push_back(&v);
    }
  }
};

RequestAttributes request(const UserInfo& user, const std::string& method, const std::string& path,
                          std::multimap<std::string, std::string> query = {}) {
  k8s::sim::HttpRequest r;
  r.method = method;
  r.path = path;
  r.query = std::move(query);
  RequestAttributes a = k8s::sim::request_attributes(r);
  a.user = user;
  return a;
}

bool allowed(const Policy& p, const RequestAttributes& a) {
  return k8s::sim::authorize(a, p.policy).allowed;
}

// A ClusterRole with `rules` bound cluster-wide to the ServiceAccount ops/bot.
std::string cluster_grant(const std::string& rules) {
  return "kind: ClusterRole\nmetadata: {name: r}\nrules:\n" + rules +
         "---\nkind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {kind: ClusterRole, name: r}\n"
         "subjects: [{kind: ServiceAccount, name: bot, namespace: ops}]\n";
}

}  // namespace

TEST_CASE("request attributes follow kube-apiserver's RequestInfo", "[k8s][rbac]") {
  UserInfo u;
  auto a = request(u, "GET", "/api/v1/namespaces/ns/pods");
  CHECK((a.resource_request && a.verb == "list" && a.resource == "pods" && a.ns == "ns" && a.name.empty()));
  CHECK(request(u, "GET", "/api/v1/namespaces/ns/pods", {{"watch", "true"}}).verb == "watch");
  CHECK(request(u, "GET", "/api/v1/namespaces/ns/pods", {{"watch", "false"}}).verb == "list");
  a = request(u, "GET", "/api/v1/watch/namespaces/ns/pods/p");
  CHECK((a.verb == "watch" && a.name == "p"));
  a = request(u, "GET", "/apis/apps/v1/namespaces/ns/deployments/d/scale");
  CHECK((a.verb == "get" && a.api_group == "apps" && a.resource == "deployments" && a.subresource == "scale"));
  CHECK(request(u, "POST", "/api/v1/namespaces/ns/pods").verb == "create");
  CHECK(request(u, "PUT", "/api/v1/namespaces/ns/pods/p/status").subresource == "status");
  CHECK(request(u, "PATCH", "/api/v1/namespaces/ns/pods/p").verb == "patch");
  CHECK(request(u, "DELETE", "/api/v1/namespaces/ns/pods/p").verb == "delete");
  CHECK(request(u, "DELETE", "/api/v1/namespaces/ns/pods").verb == "deletecollection");
  // A namespace is both the object and the namespace of the request.
  a = request(u, "GET", "/api/v1/namespaces/ns");
  CHECK((a.resource == "namespaces" && a.name == "ns" && a.ns == "ns"));
  a = request(u, "PUT", "/api/v1/namespaces/ns/finalize");
  CHECK((a.resource == "namespaces" && a.subresource == "finalize"));
  a = request(u, "GET", "/api/v1/nodes");
  CHECK((a.resource == "nodes" && a.ns.empty()));
  // A list of one name names it (so resourceNames rules can allow it).
  CHECK(request(u, "GET", "/api/v1/namespaces/ns/pods", {{"fieldSelector", "metadata.name=p"}}).name == "p");
  for (const char* path : {"/api", "/api/v1", "/apis/apps/v1", "/healthz", "/openapi/v3"}) {
    INFO(path);
    a = request(u, "GET", path);
    CHECK((!a.resource_request && a.verb == "get" && a.path == path));
  }
}

TEST_CASE("RBAC verbs, API groups and their wildcards", "[k8s][rbac]") {
  Policy p(
      cluster_grant("- {apiGroups: [''], resources: [pods], verbs: [get, list]}\n"
                    "- {apiGroups: ['*'], resources: [leases], verbs: ['*']}\n"));
  CHECK(allowed(p, request(kSa, "GET", "/api/v1/namespaces/x/pods/p")));
  CHECK(allowed(p, request(kSa, "GET", "/api/v1/pods")));
  CHECK_FALSE(allowed(p, request(kSa, "GET", "/api/v1/pods", {{"watch", "1"}})));
  CHECK_FALSE(allowed(p, request(kSa, "DELETE", "/api/v1/namespaces/x/pods/p")));
  // The pods rule is for the core group only.
  CHECK_FALSE(allowed(p, request(kSa, "GET", "/apis/metrics.k8s.io/v1beta1/namespaces/x/pods/p")));
  for (const char* method : {"GET", "POST", "PUT", "PATCH", "DELETE"}) {
    INFO(method);
    CHECK(allowed(p, request(kSa, method, "/apis/coordination.k8s.io/v1/namespaces/x/leases/l")));
  }
  CHECK(allowed(p, request(kSa, "DELETE", "/apis/coordination.k8s.io/v1/namespaces/x/leases")));
  CHECK_FALSE(allowed(p, request(kSa, "GET", "/api/v1/namespaces/x/secrets/s")));
}

TEST_CASE("RBAC subresources are resources of their own", "[k8s][rbac]") {
  Policy p(
      cluster_grant("- {apiGroups: [example.com], resources: [widgets/status], verbs: [patch]}\n"
                    "- {apiGroups: [apps], resources: ['*/scale'], verbs: [get]}\n"
                    "- {apiGroups: [''], resources: ['*'], verbs: [list]}\n"));
  CHECK(allowed(p, request(kSa, "PATCH", "/apis/example.com/v1/namespaces/x/widgets/w/status")));
  CHECK_FALSE(allowed(p, request(kSa, "PATCH", "/apis/example.com/v1/namespaces/x/widgets/w")));
  CHECK(allowed(p, request(kSa, "GET", "/apis/apps/v1/namespaces/x/deployments/d/scale")));
  CHECK(allowed(p, request(kSa, "GET", "/apis/apps/v1/namespaces/x/statefulsets/s/scale")));
  CHECK_FALSE(allowed(p, request(kSa, "GET", "/apis/apps/v1/namespaces/x/deployments/d")));
  CHECK(allowed(p, request(kSa, "GET", "/api/v1/secrets")));
}

TEST_CASE("RBAC resourceNames only allow requests that name an object", "[k8s][rbac]") {
  Policy p(
      cluster_grant("- {apiGroups: [''], resources: [configmaps], resourceNames: [mine], "
                    "verbs: [get, list, watch, create, update, delete]}\n"));
  CHECK(allowed(p, request(kSa, "GET", "/api/v1/namespaces/x/configmaps/mine")));
  CHECK(allowed(p, request(kSa, "PUT", "/api/v1/namespaces/x/configmaps/mine")));
  CHECK(allowed(p, request(kSa, "DELETE", "/api/v1/namespaces/x/configmaps/mine")));
  CHECK_FALSE(allowed(p, request(kSa, "GET", "/api/v1/namespaces/x/configmaps/other")));
  CHECK_FALSE(allowed(p, request(kSa, "GET", "/api/v1/namespaces/x/configmaps")));
  CHECK_FALSE(allowed(p, request(kSa, "GET", "/api/v1/namespaces/x/configmaps", {{"watch", "true"}})));
  CHECK_FALSE(allowed(p, request(kSa, "POST", "/api/v1/namespaces/x/configmaps")));
  CHECK_FALSE(allowed(p, request(kSa, "DELETE", "/api/v1/namespaces/x/configmaps")));
  CHECK(allowed(p, request(kSa, "GET", "/api/v1/namespaces/x/configmaps", {{"fieldSelector", "metadata.name=mine"}})));
}

TEST_CASE("RBAC RoleBindings grant only in their namespace, also with a ClusterRole", "[k8s][rbac]") {
  Policy p(
      "kind: ClusterRole\nmetadata: {name: reader}\nrules: [{apiGroups: [''], resources: [secrets], "
      "verbs: [get]}]\n"
      "---\nkind: RoleBinding\nmetadata: {name: b, namespace: team}\nroleRef: {kind: ClusterRole, name: reader}\n"
      "subjects: [{kind: ServiceAccount, name: bot, namespace: ops}]\n"
      "---\nkind: Role\nmetadata: {name: leases, namespace: ops}\nrules: [{apiGroups: [coordination.k8s.io], "
      "resources: [leases], verbs: [update]}]\n"
      "---\nkind: RoleBinding\nmetadata: {name: l, namespace: ops}\nroleRef: {kind: Role, name: leases}\n"
      "subjects: [{kind: ServiceAccount, name: bot}]\n");
  CHECK(allowed(p, request(kSa, "GET", "/api/v1/namespaces/team/secrets/s")));
  CHECK_FALSE(allowed(p, request(kSa, "GET", "/api/v1/namespaces/other/secrets/s")));
  CHECK_FALSE(allowed(p, request(kSa, "GET", "/api/v1/secrets")));  // every namespace is the cluster scope
  // A ServiceAccount subject without a namespace is one of the binding's.
  CHECK(allowed(p, request(kSa, "PUT", "/apis/coordination.k8s.io/v1/namespaces/ops/leases/l")));
  CHECK_FALSE(allowed(p, request(kSa, "PUT", "/apis/coordination.k8s.io/v1/namespaces/team/leases/l")));
  UserInfo other = k8s::sim::service_account_user("team", "bot");
  CHECK_FALSE(allowed(p, request(other, "PUT", "/apis/coordination.k8s.io/v1/namespaces/ops/leases/l")));
  CHECK_FALSE(allowed(p, request(other, "GET", "/api/v1/namespaces/team/secrets/s")));
}

TEST_CASE("RBAC subjects: users, groups and service accounts", "[k8s][rbac]") {
  Policy p(
      "kind: ClusterRole\nmetadata: {name: r}\nrules: [{apiGroups: [''], resources: [nodes], verbs: [get]}]\n"
      "---\nkind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {kind: ClusterRole, name: r}\n"
      "subjects: [{kind: User, name: alice}, {kind: Group, name: 'system:serviceaccounts:ops'}]\n");
  UserInfo alice{"alice", {"system:authenticated"}}, bob{"bob", {"system:authenticated"}};
  CHECK(allowed(p, request(alice, "GET", "/api/v1/nodes/n")));
  CHECK_FALSE(allowed(p, request(bob, "GET", "/api/v1/nodes/n")));
  CHECK(allowed(p, request(kSa, "GET", "/api/v1/nodes/n")));  // through the group of its namespace
  CHECK_FALSE(allowed(p, request(k8s::sim::service_account_user("kube-system", "x"), "GET", "/api/v1/nodes/n")));
  // A user merely named like a ServiceAccount is not one without the binding.
  CHECK(kSa.name == "system:serviceaccount:ops:bot");
  CHECK(kSa.groups ==
        std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:ops", "system:authenticated"});
  UserInfo master{"root", {"system:masters"}};
  CHECK(allowed(p, request(master, "DELETE", "/api/v1/namespaces/kube-system")));
}

TEST_CASE("RBAC non-resource URLs and the default discovery policy", "[k8s][rbac]") {
  Policy none("");
  UserInfo anonymous{"system:anonymous", {"system:unauthenticated"}};
  for (const char* path : {"/api", "/api/v1", "/apis", "/apis/apps/v1", "/openapi/v3", "/version", "/healthz"})
    CHECK(allowed(none, request(kSa, "GET", path)));
  CHECK(allowed(none, request(anonymous, "GET", "/healthz")));
  CHECK(allowed(none, request(anonymous, "GET", "/version")));
  CHECK_FALSE(allowed(none, request(anonymous, "GET", "/api")));
  CHECK_FALSE(allowed(none, request(kSa, "POST", "/api")));
  CHECK_FALSE(allowed(none, request(kSa, "GET", "/metrics")));
  Policy metrics(cluster_grant("- {nonResourceURLs: ['/metrics', '/debug/*'], verbs: [get]}\n"));
  CHECK(allowed(metrics, request(kSa, "GET", "/metrics")));
  CHECK(allowed(metrics, request(kSa, "GET", "/debug/pprof/heap")));
  CHECK_FALSE(allowed(metrics, request(kSa, "GET", "/debugger")));
}

TEST_CASE("RBAC denials carry kube-apiserver's exact 403", "[k8s][rbac]") {
  Policy none("");
  auto status = [&](const RequestAttributes& a) {
    return k8s::sim::forbidden(a, k8s::sim::authorize(a, none.policy).reason).status();
  };
  Value s = status(request(kSa, "GET", "/api/v1/namespaces/x/pods"));
  CHECK(model::to_json(s) ==
        R"({"apiVersion":"v1","code":403,"details":{"kind":"pods"},"kind":"Status","message":"pods is forbidden: )"
        R"(User \"system:serviceaccount:ops:bot\" cannot list resource \"pods\" in API group \"\" in the namespace )"
        R"(\"x\"","metadata":{},"reason":"Forbidden","status":"Failure"})");
  s = status(request(kSa, "PUT", "/apis/apps/v1/namespaces/x/deployments/web/status"));
  CHECK(s.find("message")->as_string() ==
        "deployments.apps \"web\" is forbidden: User \"system:serviceaccount:ops:bot\" cannot update resource "
        "\"deployments/status\" in API group \"apps\" in the namespace \"x\"");
  CHECK(model::to_json(*s.find("details")) == R"({"group":"apps","kind":"deployments","name":"web"})");
  s = status(request(kSa, "GET", "/api/v1/nodes/n1"));
  CHECK(s.find("message")->as_string() ==
        "nodes \"n1\" is forbidden: User \"system:serviceaccount:ops:bot\" cannot "
        "get resource \"nodes\" in API group \"\" at the cluster scope");
  s = status(request(kSa, "GET", "/metrics"));
  CHECK(s.find("message")->as_string() ==
        "forbidden: User \"system:serviceaccount:ops:bot\" cannot get path \"/metrics\"");
  CHECK(model::to_json(*s.find("details")) == "{}");
}

TEST_CASE("RBAC bindings to missing roles are named in the denial", "[k8s][rbac]") {
  Policy p(
      "kind: RoleBinding\nmetadata: {name: b, namespace: x}\nroleRef: {kind: Role, name: gone}\n"
      "subjects: [{kind: ServiceAccount, name: bot, namespace: ops}]\n"
      "---\nkind: ClusterRoleBinding\nmetadata: {name: c}\nroleRef: {kind: ClusterRole, name: gone-too}\n"
      "subjects: [{kind: Group, name: 'system:authenticated'}]\n"
      "---\nkind: ClusterRoleBinding\nmetadata: {name: d}\nroleRef: {kind: ClusterRole, name: unrelated}\n"
      "subjects: [{kind: User, name: someone-else}]\n");
  auto a = request(kSa, "GET", "/api/v1/namespaces/x/pods/p");
  auto d = k8s::sim::authorize(a, p.policy);
  CHECK_FALSE(d.allowed);
  CHECK(d.reason ==
        "RBAC: [clusterrole.rbac.authorization.k8s.io \"gone-too\" not found, role.rbac.authorization.k8s.io \"gone\" "
        "not found]");
  CHECK(k8s::sim::forbidden_message(a, d.reason) ==
        "pods \"p\" is forbidden: User \"system:serviceaccount:ops:bot\" cannot get resource \"pods\" in API group "
        "\"\" in the namespace \"x\": " +
            d.reason);
}
