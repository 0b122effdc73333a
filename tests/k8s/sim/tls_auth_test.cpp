// HTTPS and bearer-token authentication: kubectl through the kubeconfig
// the server makes, kubectl's error for a wrong token, and clients that do
// not trust the generated CA.
#include <catch2/catch.hpp>

#include <httplib.h>
#include <filesystem>
#include <fstream>

#include "golden_util.hpp"
#include "k8s/sim/selector.hpp"
#include "kubectl_env.hpp"
#include "model/codec.hpp"
#include "model/parse.hpp"
#include "sim_fixture.hpp"

using k8s::sim::field_text;

namespace {

k8s::sim::ServerOptions tls_options(const std::string& token) {
  k8s::sim::ServerOptions o;
  o.tls = true;
  o.token = token;
  return o;
}

std::string temp_file(const std::string& text) {
  char tmpl[] = "/tmp/ao-tls-XXXXXX";
  int fd = mkstemp(tmpl);
  close(fd);
  std::ofstream(tmpl) << text;
  return tmpl;
}

}  // namespace

TEST_CASE("kubectl gets and applies over TLS with the token from the kubeconfig", "[k8s][kubectl][tls]") {
  testutil::KubectlEnv env(tls_options("s3cret-token"));
  REQUIRE(env.server().url().rfind("https://127.0.0.1:", 0) == 0);
  auto config = model::parse_documents(env.server().kubeconfig(), "kubeconfig").at(0).value;
  const auto& cluster = config.find("clusters")->as_array().at(0);
  CHECK(model::base64_decode(field_text(cluster, "cluster.certificate-authority-data")) ==
        env.server().tls()->ca_cert_pem);
  CHECK(field_text(config.find("users")->as_array().at(0), "user.token") == "s3cret-token");
  auto ns = env.kubectl({"get", "namespaces", "-o", "name"});
  REQUIRE(ns.code == 0);
  CHECK(ns.out.find("namespace/kube-system") != std::string::npos);
  auto applied = env.kubectl({"apply", "-f", "-"}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: over-tls}\n");
  INFO(applied.err);
  REQUIRE(applied.code == 0);
  CHECK(applied.out == "configmap/over-tls created\n");
  REQUIRE(env.kubectl({"apply", "-f", testutil::reference_path("crds")}).code == 0);
  CHECK(env.kubectl({"get", "configmap", "over-tls"}).code == 0);
}

TEST_CASE("kubectl with a wrong token is told it is not logged in", "[k8s][kubectl][tls]") {
  testutil::KubectlEnv env(tls_options("right-token"));
  auto r = env.kubectl({"--token", "wrong-token", "get", "configmaps"});
  CHECK(r.code == 1);
  CHECK(r.err.find("error: You must be logged in to the server") != std::string::npos);
  CHECK(r.err.find("right-token") == std::string::npos);
}

TEST_CASE("HTTPS clients must trust the generated CA and send the token", "[k8s][tls]") {
  simtest::SimFixture f;
  k8s::sim::Server server(f.cluster, tls_options("tok"));
  int port = server.start();
  {
    httplib::SSLClient untrusting("127.0.0.1", port);
    untrusting.enable_server_certificate_verification(true);
    auto res = untrusting.Get("/healthz");
    CHECK_FALSE(res);
    CHECK(res.error() == httplib::Error::SSLServerVerification);
  }
  std::string ca = temp_file(server.tls()->ca_cert_pem);
  for (std::string host : {"127.0.0.1", "localhost"}) {
    INFO(host);
    httplib::SSLClient cli(host, port);
    cli.set_ca_cert_path(ca.c_str());
    cli.enable_server_certificate_verification(true);
    auto health = cli.Get("/healthz");  // public, as on a real server
    REQUIRE(health);
    CHECK(health->status == 200);
    for (const char* path : {"/api/v1/namespaces", "/sim/faults", "/openapi/v3"}) {
      INFO(path);
      auto denied = cli.Get(path);
      REQUIRE(denied);
      CHECK(denied->status == 401);
      auto status = model::parse_json(denied->body);
      CHECK(field_text(status, "kind") == "Status");
      CHECK(field_text(status, "reason") == "Unauthorized");
      CHECK(field_text(status, "code") == "401");
      auto wrong = cli.Get(path, {{"Authorization", "Bearer tok2"}});
      REQUIRE(wrong);
      CHECK(wrong->status == 401);
      auto allowed = cli.Get(path, {{"Authorization", "Bearer tok"}});
      REQUIRE(allowed);
      CHECK(allowed->status == 200);
    }
    auto bad_health = cli.Get("/healthz", {{"Authorization", "Bearer nope"}});
    REQUIRE(bad_health);
    CHECK(bad_health->status == 401);  // a wrong credential is refused even on public paths
  }
  std::filesystem::remove(ca);
}

TEST_CASE("a token works over plain HTTP too", "[k8s][tls]") {
  simtest::SimFixture f;
  k8s::sim::ServerOptions o;
  o.token = "plain";
  k8s::sim::Server server(f.cluster, o);
  int port = server.start();
  CHECK(server.url().rfind("http://", 0) == 0);
  httplib::Client cli("127.0.0.1", port);
  auto denied = cli.Get("/api");
  REQUIRE(denied);
  CHECK(denied->status == 401);
  auto allowed = cli.Get("/api", {{"Authorization", "Bearer plain"}});
  REQUIRE(allowed);
  CHECK(allowed->status == 200);
  // kube-apiserver reads the scheme in any case and trims surrounding space.
  for (const char* header : {"bearer plain", "BEARER plain", "  Bearer plain  "}) {
    INFO(header);
    auto r = cli.Get("/api", {{"Authorization", header}});
    REQUIRE(r);
    CHECK(r->status == 200);
  }
  for (const char* header : {"Bearer", "Bearer  plain", "Bearer plain extra", "Basic plain", "Bearerplain"}) {
    INFO(header);
    auto r = cli.Get("/api", {{"Authorization", header}});
    REQUIRE(r);
    CHECK(r->status == 401);
  }
}

TEST_CASE("the official Python client lists, paginates, watches and patches", "[k8s][clients][python]") {
  testutil::KubectlEnv env(tls_options("py-token"));
  REQUIRE(env.kubectl({"apply", "-f", testutil::reference_path("crds")}).code == 0);
  auto r = k8s::sim::run(
      {"/usr/bin/python3", std::string(AO_SOURCE_DIR) + "/tests/clients/python_client.py", env.kubeconfig()});
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("ok: watch (watch=True) sees a strategic-merge patch") != std::string::npos);
  CHECK(r.out.find("passed") != std::string::npos);
}

TEST_CASE("the official JavaScript client lists, paginates, watches and patches", "[k8s][clients][javascript]") {
  const std::string dir = std::string(AO_SOURCE_DIR) + "/tests/clients/js";
  INFO("install it with .ci/install-deps (npm install --prefix tests/clients/js)");
  REQUIRE(std::filesystem::exists(dir + "/node_modules/@kubernetes/client-node/package.json"));
  testutil::KubectlEnv env(tls_options("js-token"));
  REQUIRE(env.kubectl({"apply", "-f", testutil::reference_path("crds")}).code == 0);
  auto r = k8s::sim::run({"node", dir + "/client.mjs", env.kubeconfig()});
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("ok: watch sees a merge patch") != std::string::npos);
  CHECK(r.out.find("passed") != std::string::npos);
}
