// HTTPS and bearer tokens against simcluster's --tls mode, configured the
// way the operator is: from the kubeconfig the server writes.
#include <catch2/catch.hpp>

#include <httplib.h>

#include "client_fixture.hpp"
#include "mutual_tls.hpp"

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

namespace {

using testutil::MutualTls;

// An HTTPS server that requires a client certificate signed by the CA.
struct MutualTlsServer {
  httplib::SSLServer server;
  std::thread thread;
  int port = 0;

  explicit MutualTlsServer(const MutualTls& m)
      : server(m.path("server.crt").c_str(), m.path("server.key").c_str(), m.path("ca.crt").c_str()) {
    server.Get(".*", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"kind":"NamespaceList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[]})",
                      "application/json");
    });
    port = server.bind_to_any_port("127.0.0.1");
    thread = std::thread([this] { server.listen_after_bind(); });
  }
  ~MutualTlsServer() {
    server.stop();
    thread.join();
  }
};

}  // namespace

TEST_CASE("client certificates from files or inline data authenticate to a mutual-TLS server", "[client][tls]") {
  MutualTls m;
  MutualTlsServer server(m);
  REQUIRE(server.server.is_valid());
  ClusterConfig c;
  c.server = "https://127.0.0.1:" + std::to_string(server.port);
  c.ca_file = m.path("ca.crt");
  Result anonymous = list_namespaces(c);
  CHECK(anonymous.status == 0);  // the handshake fails without a client certificate

  c.client_cert_file = m.path("client.crt");
  c.client_key_file = m.path("client.key");
  Result from_files = list_namespaces(c);
  CHECK(from_files.status == 200);
  CHECK(from_files.resource_version == "7");

  ClusterConfig inline_data;
  inline_data.server = c.server;
  inline_data.ca_data = clienttest::read_text(m.path("ca.crt"));
  inline_data.client_cert_data = clienttest::read_text(m.path("client.crt"));
  inline_data.client_key_data = clienttest::read_text(m.path("client.key"));
  CHECK(list_namespaces(inline_data).status == 200);

  inline_data.client_cert_data = clienttest::read_text(m.path("server.crt"));  // not a client certificate
  inline_data.client_key_data = clienttest::read_text(m.path("server.key"));
  CHECK(list_namespaces(inline_data).status == 0);
}
