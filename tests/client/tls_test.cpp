// HTTPS and bearer tokens against simcluster's --tls mode, configured the
// way the operator is: from the kubeconfig the server writes.
#include <catch2/catch.hpp>

#include "client_fixture.hpp"

using namespace k8s;
using clienttest::call;
using clienttest::TempDir;

namespace {

sim::ServerOptions secured() {
  sim::ServerOptions o;
  o.tls = true;
  o.token = "s3cret-token";
  return o;
}

Result list_namespaces(const ClusterConfig& c) {
  ClientOptions o;
  o.max_retries = 1;
  o.backoff = Backoff{std::chrono::milliseconds(5), std::chrono::milliseconds(10)};
  Client client(make_curl_transport(c), o);
  return call([&](Callback cb) { client.list(*resource_for_kind("Namespace"), "", {}, cb); });
}

}  // namespace

TEST_CASE("a client from the server's kubeconfig talks HTTPS with its token", "[client][tls]") {
  clienttest::SimServer sim(secured());
  REQUIRE(sim.url.rfind("https://", 0) == 0);
  TempDir dir;
  ClusterConfig c = from_kubeconfig(dir.write("kubeconfig", sim.server.kubeconfig()));
  CHECK(c.server == sim.url);
  CHECK(c.ca_data == sim.server.tls()->ca_cert_pem);
  CHECK(c.token == "s3cret-token");
  Result r = list_namespaces(c);
  CHECK(r.status == 200);
  CHECK_FALSE(r.resource_version.empty());

  // The same CA from a file instead of inline data.
  c.ca_file = dir.write("ca.crt", c.ca_data);
  c.ca_data.clear();
  CHECK(list_namespaces(c).status == 200);
}

TEST_CASE("a wrong or missing token is a terminal 401", "[client][tls]") {
  clienttest::SimServer sim(secured());
  TempDir dir;
  ClusterConfig c = from_kubeconfig(dir.write("kubeconfig", sim.server.kubeconfig()));
  std::string token = GENERATE(std::string("wrong-token"), std::string());
  c.token = token;
  Result r = list_namespaces(c);
  CHECK(r.status == 401);
  CHECK(r.reason == "Unauthorized");
  CHECK(r.error_class() == ErrorClass::terminal);
  CHECK(r.attempts == 1);
}

TEST_CASE("an unknown CA fails verification unless verification is skipped", "[client][tls]") {
  clienttest::SimServer sim(secured());
  TempDir dir;
  ClusterConfig c = from_kubeconfig(dir.write("kubeconfig", sim.server.kubeconfig()));
  c.ca_data = sim::generate_tls({"127.0.0.1"}).ca_cert_pem;  // some other CA
  Result r = list_namespaces(c);
  CHECK(r.status == 0);
  CHECK(r.error_class() == ErrorClass::retry_call);
  CHECK(r.attempts == 2);
  c.insecure_skip_tls_verify = true;
  CHECK(list_namespaces(c).status == 200);
}
