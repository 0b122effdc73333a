// The TokenReview API of simcluster (POST
// /apis/authentication.k8s.io/v1/tokenreviews) over HTTP: who a
// ServiceAccount or admin token is, for which audiences; unknown, expired
// and orphaned tokens; authorization (create tokenreviews, which
// system:auth-delegator grants in a real cluster); the body checks;
// discovery; and `kubectl create -f` with the real kubectl.
#include <catch2/catch.hpp>

#include <httplib.h>

#include "kubectl_env.hpp"
#include "model/parse.hpp"
#include "sim_fixture.hpp"

using model::Value;

namespace {

const char* kReviewPath = "/apis/authentication.k8s.io/v1/tokenreviews";

const char* kAccounts = R"(
apiVersion: v1
kind: Namespace
metadata: {name: ops}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: agent, namespace: ops}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: operator, namespace: ops}
)";

// What a real cluster's system:auth-delegator grants, bound to ops/operator.
const char* kDelegator = R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: system:auth-delegator}
rules:
- {apiGroups: [authentication.k8s.io], resources: [tokenreviews], verbs: [create]}
- {apiGroups: [authorization.k8s.io], resources: [subjectaccessreviews], verbs: [create]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: operator-auth-delegator}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:auth-delegator}
subjects: [{kind: ServiceAccount, name: operator, namespace: ops}]
)";

void load(k8s::sim::Cluster& cluster, const std::string& yaml) {
  for (auto& doc : model::parse_documents(yaml, "test")) cluster.apply_manifest(std::move(doc.value));
}

k8s::sim::ServerOptions rbac_options() {
  k8s::sim::ServerOptions o;
  o.token = "admin-token";
  o.authorization = k8s::sim::AuthorizationMode::rbac;
  return o;
}

httplib::Headers bearer(const std::string& token) {
  return {{"Authorization", "Bearer " + token}};
}

std::string review_body(const std::string& token, const std::string& audiences = "") {
  std::string spec = R"("token":")" + token + "\"" + (audiences.empty() ? "" : R"(,"audiences":)" + audiences);
  return R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{)" + spec + "}}";
}

// The review's status, after checking it was answered 201.
Value review(httplib::Client& cli, const std::string& caller, const std::string& body) {
  auto res = cli.Post(kReviewPath, bearer(caller), body, "application/json");
  REQUIRE(res);
  INFO(res->body);
  REQUIRE(res->status == 201);
  Value v = model::parse_json(res->body);
  CHECK(v.find("kind")->as_string() == "TokenReview");
  return *v.find("status");
}

bool authenticated(const Value& status) {
  const Value* a = status.find("authenticated");
  return a && a->as_bool();
}

std::string error_of(const Value& status) {
  const Value* e = status.find("error");
  return e ? e->as_string() : "";
}

std::string uid_of(k8s::sim::Cluster& cluster, const std::string& ns, const std::string& name) {
  auto sa = cluster.store().get(*cluster.find_type("", "v1", "serviceaccounts"), ns, name);
  return sa->value.find("metadata")->find("uid")->as_string();
}

}  // namespace

TEST_CASE("token review: a ServiceAccount token is its ServiceAccount, until it expires or the account goes",
          "[k8s][rbac]") {
  simtest::SimFixture f;
  load(f.cluster, kAccounts);
  k8s::sim::Server server(f.cluster, rbac_options());
  httplib::Client cli("127.0.0.1", server.start());
  std::string token = server.mint_token("ops", "agent", std::chrono::minutes(20));

  Value ok = review(cli, "admin-token", review_body(token));
  CHECK(authenticated(ok));
  const Value& user = *ok.find("user");
  CHECK(user.find("username")->as_string() == "system:serviceaccount:ops:agent");
  CHECK(user.find("uid")->as_string() == uid_of(f.cluster, "ops", "agent"));
  CHECK(*user.find("groups") ==
        Value::arr({"system:serviceaccounts", "system:serviceaccounts:ops", "system:authenticated"}));
  CHECK(*ok.find("audiences") == Value::arr({"https://kubernetes.default.svc.cluster.local"}));
  CHECK_FALSE(ok.find("error"));

  Value unknown = review(cli, "admin-token", review_body("simcluster-sa.nonsense"));
  CHECK_FALSE(authenticated(unknown));
  CHECK(*unknown.find("user") == Value::object());
  CHECK(error_of(unknown) == "invalid bearer token");

  // The admin token is a static token: a superuser, without a uid.
  Value admin = review(cli, "admin-token", review_body("admin-token"));
  CHECK(authenticated(admin));
  CHECK(admin.find("user")->find("username")->as_string() == "kubernetes-admin");
  CHECK(*admin.find("user")->find("groups") == Value::arr({"system:masters", "system:authenticated"}));

  f.clock.advance(std::chrono::minutes(20));
  CHECK(error_of(review(cli, "admin-token", review_body(token))) == "service account token has expired");
  std::string second = server.mint_token("ops", "agent");
  CHECK(authenticated(review(cli, "admin-token", review_body(second))));
  CHECK(cli.Delete("/api/v1/namespaces/ops/serviceaccounts/agent", bearer("admin-token"))->status == 200);
  load(f.cluster, kAccounts);  // the same name again is another ServiceAccount
  Value orphaned = review(cli, "admin-token", review_body(second));
  CHECK_FALSE(authenticated(orphaned));
  CHECK(error_of(orphaned) == "service account ops/agent has been deleted");
}

TEST_CASE("token review: audiences are those of the token the review asks for", "[k8s][rbac]") {
  simtest::SimFixture f;
  load(f.cluster, kAccounts);
  k8s::sim::Server server(f.cluster, rbac_options());
  httplib::Client cli("127.0.0.1", server.start());
  // A token for the operator's agent endpoint, not for the API server.
  auto minted = cli.Post("/api/v1/namespaces/ops/serviceaccounts/agent/token", bearer("admin-token"),
                         R"({"spec":{"audiences":["agent-operator"]}})", "application/json");
  REQUIRE(minted);
  REQUIRE(minted->status == 201);
  std::string token = model::parse_json(minted->body).find("status")->find("token")->as_string();

  Value granted = review(cli, "admin-token", review_body(token, R"(["other","agent-operator"])"));
  CHECK(authenticated(granted));
  CHECK(*granted.find("audiences") == Value::arr({"agent-operator"}));
  Value api = review(cli, "admin-token", review_body(token));
  CHECK_FALSE(authenticated(api));
  CHECK(error_of(api) == R"(token audiences ["agent-operator"] is invalid for the target audiences )"
                         R"(["https://kubernetes.default.svc.cluster.local"])");
  // Nor does it open the API itself, as on a real server.
  CHECK(cli.Get("/api/v1/namespaces/ops/configmaps", bearer(token))->status == 401);
  CHECK_FALSE(authenticated(review(cli, "admin-token", review_body("admin-token", R"(["agent-operator"])"))));
}

TEST_CASE("token review: creating one needs create on tokenreviews, as system:auth-delegator grants", "[k8s][rbac]") {
  simtest::SimFixture f;
  load(f.cluster, kAccounts);
  k8s::sim::Server server(f.cluster, rbac_options());
  httplib::Client cli("127.0.0.1", server.start());
  std::string agent = server.mint_token("ops", "agent"), op = server.mint_token("ops", "operator");

  auto denied = cli.Post(kReviewPath, bearer(op), review_body(agent), "application/json");
  REQUIRE(denied);
  CHECK(denied->status == 403);
  CHECK(model::parse_json(denied->body).find("message")->as_string() ==
        "tokenreviews.authentication.k8s.io is forbidden: User \"system:serviceaccount:ops:operator\" cannot create "
        "resource \"tokenreviews\" in API group \"authentication.k8s.io\" at the cluster scope");
  CHECK(cli.Post(kReviewPath, review_body(agent), "application/json")->status == 403);  // anonymous
  CHECK(cli.Post(kReviewPath, bearer("wrong"), review_body(agent), "application/json")->status == 401);
  load(f.cluster, kDelegator);
  Value status = review(cli, op, review_body(agent));
  CHECK(authenticated(status));
  CHECK(status.find("user")->find("username")->as_string() == "system:serviceaccount:ops:agent");
}

TEST_CASE("token review: the body is checked as the API server decodes it, and nothing else is served", "[k8s][rbac]") {
  simtest::SimFixture f;
  k8s::sim::Server server(f.cluster, rbac_options());
  httplib::Client cli("127.0.0.1", server.start());
  auto answer = [&](const std::string& path, const std::string& body) {
    auto res = cli.Post(path, bearer("admin-token"), body, "application/json");
    REQUIRE(res);
    return std::make_pair(res->status, model::parse_json(res->body).find("message")->as_string());
  };
  using Answer = std::pair<int, std::string>;
  CHECK(answer(kReviewPath, R"({"kind":"TokenReview","spec":{}})") ==
        Answer{400, "token is required for TokenReview in authentication"});
  CHECK(answer(kReviewPath, R"({"kind":"TokenReview","metadata":{"namespace":"ops"},"spec":{"token":"t"}})") ==
        Answer{400, "namespace is not allowed on this type: ops"});
  CHECK(answer(std::string(kReviewPath) + "?fieldValidation=Strict",
               R"({"kind":"TokenReview","spec":{"token":"t","x":1}})") ==
        Answer{400,
               "TokenReview in version \"v1\" cannot be handled as a TokenReview: strict decoding error: unknown "
               "field \"spec.x\""});
  CHECK(answer(kReviewPath, R"({"apiVersion":"v1","kind":"ConfigMap","spec":{"token":"t"}})").first == 400);
  auto list = cli.Get(kReviewPath, bearer("admin-token"));
  REQUIRE(list);
  CHECK(list->status == 405);
  CHECK(cli.Get(std::string(kReviewPath) + "/x", bearer("admin-token"))->status == 404);

  auto discovery = cli.Get("/apis/authentication.k8s.io/v1", bearer("admin-token"));
  REQUIRE(discovery);
  REQUIRE(discovery->status == 200);
  const Value doc = model::parse_json(discovery->body);
  const Value& resources = *doc.find("resources");
  REQUIRE(resources.size() == 1);
  CHECK(resources.as_array()[0].find("name")->as_string() == "tokenreviews");
  CHECK(*resources.as_array()[0].find("verbs") == Value::arr({"create"}));
  CHECK_FALSE(resources.as_array()[0].find("namespaced")->as_bool());
}

TEST_CASE("kubectl create -f of a TokenReview prints who the token is", "[k8s][kubectl][rbac]") {
  auto options = rbac_options();
  options.tls = true;  // kubectl sends tokens over TLS only
  testutil::KubectlEnv env(options);
  load(env.cluster(), kAccounts);
  std::string token = env.server().mint_token("ops", "agent");
  std::string file = env.write_file("review.yaml",
                                    "apiVersion: authentication.k8s.io/v1\nkind: TokenReview\n"
                                    "spec:\n  token: " +
                                        token + "\n");
  auto created = env.kubectl({"create", "-f", file, "-o", "yaml"});
  INFO(created.err);
  REQUIRE(created.code == 0);
  CHECK(created.err.empty());
  Value v = model::parse_documents(created.out, "kubectl").at(0).value;
  const Value& status = *v.find("status");
  CHECK(authenticated(status));
  CHECK(status.find("user")->find("username")->as_string() == "system:serviceaccount:ops:agent");
  CHECK(status.find("user")->find("uid")->as_string() == uid_of(env.cluster(), "ops", "agent"));

  auto resources = env.kubectl({"api-resources", "--api-group=authentication.k8s.io", "--no-headers"});
  INFO(resources.err);
  CHECK(resources.out == "tokenreviews         authentication.k8s.io/v1   false   TokenReview\n");
}
