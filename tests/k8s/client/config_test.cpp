// Kubeconfig and in-cluster configuration, and the bearer token that
// reaches the server (including service-account token rotation).
#include <catch2/catch.hpp>

#include <httplib.h>

#include "client_fixture.hpp"
#include "model/codec.hpp"

using namespace k8s;
using clienttest::call;
using clienttest::TempDir;

namespace {

const char* kFull = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: prod-cluster
  cluster:
    server: https://prod.example:6443
    certificate-authority-data: CA_DATA
- name: dev-cluster
  cluster:
    server: https://dev.example:6443
    certificate-authority: certs/ca.crt
    insecure-skip-tls-verify: true
contexts:
- name: prod
  context: {cluster: prod-cluster, user: prod-user}
- name: dev
  context: {cluster: dev-cluster, user: dev-user, namespace: team}
users:
- name: dev-user
  user:
    tokenFile: token
    client-certificate: certs/client.crt
    client-key: /abs/client.key
- name: prod-user
  user:
    token: static-token
    client-certificate-data: CERT_DATA
    client-key-data: KEY_DATA
)";

std::string full_kubeconfig() {
  std::string s = kFull;
  auto put = [&](const std::string& key, const std::string& value) {
    s.replace(s.find(key), key.size(), model::base64_encode(value));
  };
  put("CA_DATA", "-----BEGIN CERTIFICATE-----ca");
  put("CERT_DATA", "-----BEGIN CERTIFICATE-----cert");
  put("KEY_DATA", "-----BEGIN PRIVATE KEY-----key");
  return s;
}

std::string config_error(const std::string& path, const std::string& context = "") {
  try {
    from_kubeconfig(path, context);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

// Records the Authorization header of every request.
struct HeaderRecorder {
  httplib::Server server;
  std::mutex mutex;
  std::vector<std::string> seen;
  std::string user_agent;
  std::thread thread;
  int port = 0;

  HeaderRecorder() {
    server.Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard lock(mutex);
      seen.push_back(req.get_header_value("Authorization"));
      user_agent = req.get_header_value("User-Agent");
      res.set_content(R"({"kind":"NamespaceList","apiVersion":"v1","metadata":{},"items":[]})", "application/json");
    });
    port = server.bind_to_any_port("127.0.0.1");
    thread = std::thread([this] { server.listen_after_bind(); });
  }
  ~HeaderRecorder() {
    server.stop();
    thread.join();
  }
  std::string last() {
    std::lock_guard lock(mutex);
    return seen.empty() ? "" : seen.back();
  }
};

Result get_namespaces(Transport& t) {
  Request r;
  r.path = "/api/v1/namespaces";
  r.timeout = std::chrono::seconds(20);
  return call([&](Callback cb) { t.send(r, cb); });
}

}  // namespace

TEST_CASE("kubeconfig current-context picks cluster and user with paths relative to the file", "[client][config]") {
  TempDir dir;
  std::string path = dir.write("kube/config", full_kubeconfig());
  ClusterConfig c = from_kubeconfig(path);
  std::string base = (dir.path / "kube").string();
  CHECK(c.server == "https://dev.example:6443");
  CHECK(c.ca_file == base + "/certs/ca.crt");
  CHECK(c.ca_data.empty());
  CHECK(c.insecure_skip_tls_verify);
  CHECK(c.token_file == base + "/token");
  CHECK(c.token.empty());
  CHECK(c.client_cert_file == base + "/certs/client.crt");
  CHECK(c.client_key_file == "/abs/client.key");
}

TEST_CASE("kubeconfig with an explicit context decodes the data fields", "[client][config]") {
  TempDir dir;
  ClusterConfig c = from_kubeconfig(dir.write("config", full_kubeconfig()), "prod");
  CHECK(c.server == "https://prod.example:6443");
  CHECK(c.ca_data == "-----BEGIN CERTIFICATE-----ca");
  CHECK(c.client_cert_data == "-----BEGIN CERTIFICATE-----cert");
  CHECK(c.client_key_data == "-----BEGIN PRIVATE KEY-----key");
  CHECK(c.token == "static-token");
  CHECK_FALSE(c.insecure_skip_tls_verify);
  CHECK(c.ca_file.empty());
}

TEST_CASE("kubeconfig errors name the file and the field", "[client][config]") {
  TempDir dir;
  std::string missing = (dir.path / "nope").string();
  CHECK(config_error(missing).find(missing) != std::string::npos);
  std::string full = full_kubeconfig();
  std::string path = dir.write("config", full);
  CHECK(config_error(path, "staging").find("contexts: no entry named \"staging\"") != std::string::npos);
  CHECK(config_error(path, "staging").find(path) != std::string::npos);

  auto broken = [&](const std::string& from, const std::string& to) {
    std::string s = full;
    s.replace(s.find(from), from.size(), to);
    return config_error(dir.write("broken", s));
  };
  CHECK(broken("current-context: dev", "").find("current-context is not set") != std::string::npos);
  CHECK(broken("server: https://dev.example:6443", "").find("clusters[dev-cluster].cluster.server is missing") !=
        std::string::npos);
  CHECK(broken("insecure-skip-tls-verify: true", "insecure-skip-tls-verify: maybe")
            .find("clusters[dev-cluster].cluster.insecure-skip-tls-verify is not a boolean") != std::string::npos);
  CHECK(broken("tokenFile: token", "auth-provider: {name: gcp}")
            .find("users[dev-user].user.auth-provider is not supported") != std::string::npos);
  CHECK(broken("user: dev-user,", "user: ghost,").find("users: no entry named \"ghost\"") != std::string::npos);
  std::string bad64 = full;
  bad64.replace(bad64.find("client-key-data: ") + 17, 4, "AB$$");
  CHECK(config_error(dir.write("bad64", bad64), "prod")
            .find("users[prod-user].user.client-key-data is not valid base64") != std::string::npos);
  CHECK(config_error(dir.write("list", "- a\n- b\n")).find("not a kubeconfig") != std::string::npos);
}

TEST_CASE("in-cluster config reads the service-account directory and follows token rotation", "[client][config]") {
  TempDir dir;
  setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  CHECK_THROWS_AS(in_cluster(dir.path.string()), ConfigError);  // no token yet
  std::string token = dir.write("token", "token-one\n");
  dir.write("ca.crt", "-----BEGIN CERTIFICATE-----");
  ClusterConfig c = in_cluster(dir.path.string());
  CHECK(c.server == "https://10.0.0.1:443");
  CHECK(c.token_file == token);
  CHECK(c.ca_file == (dir.path / "ca.crt").string());

  HeaderRecorder recorder;
  c.server = "http://127.0.0.1:" + std::to_string(recorder.port);
  c.ca_file.clear();
  auto t = make_curl_transport(c);
  REQUIRE(get_namespaces(*t).status == 200);
  CHECK(recorder.last() == "Bearer token-one");
  dir.write("token", "token-two\n");  // same size: only the mtime tells
  // Coarse-timestamp filesystems could keep the old mtime within a tick.
  std::filesystem::last_write_time(token, std::filesystem::file_time_type::clock::now() + std::chrono::seconds(2));
  REQUIRE(get_namespaces(*t).status == 200);
  CHECK(recorder.last() == "Bearer token-two");

  unsetenv("KUBERNETES_SERVICE_HOST");
  CHECK_THROWS_AS(in_cluster(dir.path.string()), ConfigError);
}

TEST_CASE("the client's user agent and a static token reach the server", "[client][config]") {
  HeaderRecorder recorder;
  ClusterConfig c;
  c.server = "http://127.0.0.1:" + std::to_string(recorder.port);
  c.token = "static";
  ClientOptions o;
  o.user_agent = "ao-test/1.0";
  Client client(make_curl_transport(c), o);
  Result r = call([&](Callback cb) { client.list(*resource_for_kind("Namespace"), "", {}, cb); });
  CHECK(r.status == 200);
  CHECK(recorder.last() == "Bearer static");
  std::lock_guard lock(recorder.mutex);
  CHECK(recorder.user_agent == "ao-test/1.0");
}
