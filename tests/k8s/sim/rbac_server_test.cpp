// simcluster with --authorization rbac over HTTP: ServiceAccount tokens
// from the TokenRequest API (and `kubectl create token`), 401 for bad,
// expired or orphaned tokens, 403 Status bodies for denials, anonymous
// requests, the admin token as superuser, and the default mode unchanged.
#include <catch2/catch.hpp>

#include <httplib.h>
#include <mutex>

#include "kubectl_env.hpp"
#include "model/parse.hpp"
#include "sim_fixture.hpp"

using model::Value;

namespace {

const char* kRbac = R"(
apiVersion: v1
kind: Namespace
metadata: {name: ops}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: bot, namespace: ops}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cm, namespace: ops}
rules: [{apiGroups: [''], resources: [configmaps], verbs: [get, list, create]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: cm, namespace: ops}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cm}
subjects: [{kind: ServiceAccount, name: bot, namespace: ops}]
)";

void load(k8s::sim::Cluster& cluster, const std::string& yaml) {
  for (auto& doc : model::parse_documents(yaml, "test")) cluster.apply_manifest(std::move(doc.value));
}

k8s::sim::ServerOptions rbac_options(std::vector<std::string>* denials = nullptr, std::mutex* mutex = nullptr) {
  k8s::sim::ServerOptions o;
  o.token = "admin-token";
  o.authorization = k8s::sim::AuthorizationMode::rbac;
  if (denials)
    o.on_denied = [denials, mutex](const std::string& m) {
      std::lock_guard lock(*mutex);
      denials->push_back(m);
    };
  return o;
}

httplib::Headers bearer(const std::string& token) {
  return {{"Authorization", "Bearer " + token}};
}

std::string token_from(const httplib::Result& res) {
  REQUIRE(res);
  INFO(res->body);
  REQUIRE(res->status == 201);
  Value v = model::parse_json(res->body);
  return v.find("status")->find("token")->as_string();
}

}  // namespace

TEST_CASE("rbac: a ServiceAccount token does what its bindings allow and no more", "[k8s][rbac]") {
  simtest::SimFixture f;
  load(f.cluster, kRbac);
  std::vector<std::string> denials;
  std::mutex mutex;
  k8s::sim::Server server(f.cluster, rbac_options(&denials, &mutex));
  httplib::Client cli("127.0.0.1", server.start());
  // Minting a token is itself authorized: the admin may, anonymous may not.
  const std::string path = "/api/v1/namespaces/ops/serviceaccounts/bot/token";
  auto anon = cli.Post(path, "{}", "application/json");
  REQUIRE(anon);
  CHECK(anon->status == 403);
  std::string token = token_from(cli.Post(path, bearer("admin-token"), "{}", "application/json"));

  auto ok = cli.Get("/api/v1/namespaces/ops/configmaps", bearer(token));
  REQUIRE(ok);
  CHECK(ok->status == 200);
  auto created = cli.Post("/api/v1/namespaces/ops/configmaps", bearer(token),
                          R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})", "application/json");
  REQUIRE(created);
  CHECK(created->status == 201);
  auto denied = cli.Delete("/api/v1/namespaces/ops/configmaps/c", bearer(token));
  REQUIRE(denied);
  CHECK(denied->status == 403);
  CHECK(denied->body ==
        R"({"apiVersion":"v1","code":403,"details":{"kind":"configmaps","name":"c"},"kind":"Status","message":)"
        R"("configmaps \"c\" is forbidden: User \"system:serviceaccount:ops:bot\" cannot delete resource )"
        R"(\"configmaps\" in API group \"\" in the namespace \"ops\"","metadata":{},"reason":"Forbidden",)"
        R"("status":"Failure"})");
  auto elsewhere = cli.Get("/api/v1/namespaces/default/configmaps", bearer(token));
  REQUIRE(elsewhere);
  CHECK(elsewhere->status == 403);
  // Discovery is open to every authenticated user; the admin can do anything.
  CHECK(cli.Get("/apis", bearer(token))->status == 200);
  CHECK(cli.Delete("/api/v1/namespaces/ops/configmaps/c", bearer("admin-token"))->status == 200);
  // Health for everyone; a wrong token is a 401 even there.
  CHECK(cli.Get("/healthz")->status == 200);
  CHECK(cli.Get("/healthz", bearer("wrong"))->status == 401);
  CHECK(cli.Get("/api/v1/namespaces/ops/configmaps", bearer("wrong"))->status == 401);

  std::lock_guard lock(mutex);
  REQUIRE(denials.size() == 3);
  CHECK(denials[0] ==
        "serviceaccounts \"bot\" is forbidden: User \"system:anonymous\" cannot create resource "
        "\"serviceaccounts/token\" in API group \"\" in the namespace \"ops\"");
}

TEST_CASE("rbac: tokens expire and die with their ServiceAccount", "[k8s][rbac]") {
  simtest::SimFixture f;
  load(f.cluster, kRbac);
  k8s::sim::Server server(f.cluster, rbac_options());
  httplib::Client cli("127.0.0.1", server.start());
  const std::string path = "/api/v1/namespaces/ops/serviceaccounts/bot/token";
  auto too_short = cli.Post(path, bearer("admin-token"), R"({"spec":{"expirationSeconds":60}})", "application/json");
  REQUIRE(too_short);
  CHECK(too_short->status == 422);
  CHECK(model::parse_json(too_short->body).find("message")->as_string() ==
        "TokenRequest.authentication.k8s.io \"bot\" is invalid: spec.expirationSeconds: Invalid value: 60: may not "
        "specify a duration less than 10 minutes");
  auto missing =
      cli.Post("/api/v1/namespaces/ops/serviceaccounts/nobody/token", bearer("admin-token"), "{}", "application/json");
  REQUIRE(missing);
  CHECK(missing->status == 404);

  auto res = cli.Post(path, bearer("admin-token"), R"({"spec":{"expirationSeconds":600}})", "application/json");
  std::string token = token_from(res);
  Value tr = model::parse_json(res->body);
  CHECK(tr.find("spec")->find("expirationSeconds")->as_int() == 600);
  CHECK(tr.find("status")->find("expirationTimestamp")->as_string() == "2024-05-01T12:10:00Z");
  CHECK(cli.Get("/api/v1/namespaces/ops/configmaps", bearer(token))->status == 200);
  f.clock.advance(std::chrono::seconds(600));
  CHECK(cli.Get("/api/v1/namespaces/ops/configmaps", bearer(token))->status == 401);

  std::string second = token_from(cli.Post(path, bearer("admin-token"), "{}", "application/json"));
  CHECK(cli.Get("/api/v1/namespaces/ops/configmaps", bearer(second))->status == 200);
  CHECK(cli.Delete("/api/v1/namespaces/ops/serviceaccounts/bot", bearer("admin-token"))->status == 200);
  CHECK(cli.Get("/api/v1/namespaces/ops/configmaps", bearer(second))->status == 401);
  load(f.cluster, kRbac);  // a new ServiceAccount of the same name does not revive the token
  CHECK(cli.Get("/api/v1/namespaces/ops/configmaps", bearer(second))->status == 401);
}

TEST_CASE("rbac off (the default): ServiceAccount tokens authenticate and everything is allowed", "[k8s][rbac]") {
  simtest::SimFixture f;
  load(f.cluster, kRbac);
  k8s::sim::ServerOptions o;
  o.token = "admin-token";
  k8s::sim::Server server(f.cluster, o);
  httplib::Client cli("127.0.0.1", server.start());
  std::string token = server.mint_token("ops", "bot");
  CHECK(cli.Get("/api/v1/nodes", bearer(token))->status == 200);
  CHECK(cli.Get("/api/v1/nodes")->status == 401);
  CHECK(cli.Get("/api/v1/nodes", bearer("wrong"))->status == 401);
  CHECK(cli.Get("/healthz")->status == 200);
}

TEST_CASE("kubectl create token mints a token kubectl is then authorized with", "[k8s][kubectl][rbac]") {
  auto options = rbac_options();
  options.tls = true;  // kubectl sends tokens over TLS only
  testutil::KubectlEnv env(options);
  load(env.cluster(), kRbac);
  auto minted = env.kubectl({"create", "token", "bot", "-n", "ops", "--duration", "20m"});
  INFO(minted.err);
  REQUIRE(minted.code == 0);
  std::string token = minted.out.substr(0, minted.out.find('\n'));
  auto ok = env.kubectl({"--token", token, "get", "configmaps", "-n", "ops"});
  INFO(ok.err);
  CHECK(ok.code == 0);
  auto denied = env.kubectl({"--token", token, "get", "secrets", "-n", "ops"});
  CHECK(denied.code == 1);
  CHECK(denied.err ==
        "Error from server (Forbidden): secrets is forbidden: User \"system:serviceaccount:ops:bot\" "
        "cannot list resource \"secrets\" in API group \"\" in the namespace \"ops\"\n");
  auto gone = env.kubectl({"create", "token", "nobody", "-n", "ops"});
  CHECK(gone.err == "error: failed to create token: serviceaccounts \"nobody\" not found\n");
}
