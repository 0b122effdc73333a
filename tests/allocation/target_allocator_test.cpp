// The target-allocator binary's exit code 2 with the field named on a bad
// config; a real Prometheus discovering one collector's share from the
// allocator (in-process), and its mutual-TLS listener.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "http_fixtures.hpp"
#include "mutual_tls.hpp"
#include "ta_runtime_fixture.hpp"

using namespace http_test;

namespace {

const std::string kBinary = AO_BIN_DIR "/target-allocator";

std::filesystem::path write_config(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << text;
  return path;
}

// Runs the binary to completion; returns its exit code and stderr.
int run(const std::filesystem::path& config, std::string& err, const std::string& extra_flags = "") {
  const std::string cmd =
      kBinary + " --config-file " + config.string() + " --listen-addr 127.0.0.1:0 " + extra_flags + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p);
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) err += buf;
  const int status = ::pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("target-allocator exits 2 naming the field of an invalid config", "[allocation][cli]") {
  auto path = write_config("ta-bad", "config:\n  scrape_configs:\n    - job_name: a\n      consul_sd_configs: []\n");
  std::string err;
  CHECK(run(path, err) == 2);
  CHECK_THAT(err, Catch::Contains("config.scrape_configs[0].consul_sd_configs"));
  std::filesystem::remove(path);
}

TEST_CASE("target-allocator refuses Kubernetes discovery without a cluster connection", "[allocation][cli]") {
  auto sd = write_config("ta-k8s",
                         "config:\n  scrape_configs:\n    - job_name: a\n      kubernetes_sd_configs: [{role: pod}]\n");
  auto plain = write_config("ta-plain", "collectors: [c1]\n");
  std::string err;
  // Without a kubeconfig (and outside a cluster) the kubeconfig is the problem.
  CHECK(run(sd, err, "--kubeconfig-path /nonexistent/kubeconfig") == 2);
  CHECK_THAT(err, Catch::Contains("config.scrape_configs[0].kubernetes_sd_configs needs the Kubernetes API"));
  CHECK_THAT(err, Catch::Contains("--kubeconfig-path: cannot read /nonexistent/kubeconfig"));
  err.clear();
  CHECK(run(plain, err, "--enable-prometheus-cr-watcher --kubeconfig-path /nonexistent/kubeconfig") == 2);
  CHECK_THAT(err, Catch::Contains("--enable-prometheus-cr-watcher needs the Kubernetes API"));
  // With a usable one everything is served (kubernetes_sd_test.cpp, ta_cluster_test.cpp).
  err.clear();
  CHECK(run(plain, err, "--enable-prometheus-cr-watcher=maybe") == 2);
  CHECK_THAT(err, Catch::Contains("--enable-prometheus-cr-watcher: want true or false"));
  err.clear();
  CHECK(run(plain, err, "--leader-elect --kubeconfig-path /nonexistent/kubeconfig") == 2);
  CHECK_THAT(err, Catch::Contains("--leader-elect needs the Kubernetes API"));
  err.clear();
  CHECK(run(plain, err, "--leader-elect --leader-elect-lease-duration soon") == 2);
  CHECK_THAT(err, Catch::Contains("--leader-elect-lease-duration: \"soon\" is not a positive duration"));
  err.clear();
  CHECK(run(plain, err, "--leader-elect --leader-elect-renew-deadline 20s") == 2);
  CHECK_THAT(err, Catch::Contains("want retry-period < renew-deadline < lease-duration"));
  err.clear();
  CHECK(run(plain, err, "--enable-https-server --https-tls-cert-file a.crt --https-tls-key-file a.key") == 2);
  CHECK_THAT(err, Catch::Contains("--https-ca-file: required with --enable-https-server"));
  err.clear();
  CHECK(run(plain, err,
            "--enable-https-server --https-ca-file /nonexistent/ca.crt --https-tls-cert-file "
            "/nonexistent/a.crt --https-tls-key-file /nonexistent/a.key --listen-addr-https 127.0.0.1:0") == 1);
  CHECK_THAT(err, Catch::Contains("cannot load TLS files: certificate /nonexistent/a.crt"));
  for (const auto& p : {sd, plain}) std::filesystem::remove(p);
}

TEST_CASE("target-allocator reloads its config file on SIGHUP and survives a bad one", "[allocation][cli][reload]") {
  const auto config = write_config("ta-sighup",
                                   "collectors: [c1]\nconfig:\n  scrape_configs:\n    - job_name: a\n"
                                   "      static_configs: [{targets: ['10.0.0.1:80']}]\n");
  Child ta;
  const int port = start_allocator(
      ta, {kBinary, "--config-file", config.string(), "--listen-addr", "127.0.0.1:0", "--config-reload-interval", "0"});
  REQUIRE(port > 0);
  httplib::Client client("127.0.0.1", port);
  std::ofstream(config) << "collectors: [c1]\nconfig:\n  scrape_configs:\n    - job_name: b\n"
                           "      static_configs: [{targets: ['10.0.0.2:80']}]\n";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // no timer reads it: only SIGHUP does
  CHECK(addresses(get(client, "/jobs/a/targets?collector_id=c1")) == std::set<std::string>{"10.0.0.1:80"});
  REQUIRE(::kill(ta.pid, SIGHUP) == 0);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline &&
         addresses(get(client, "/jobs/b/targets?collector_id=c1")).empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(addresses(get(client, "/jobs/b/targets?collector_id=c1")) == std::set<std::string>{"10.0.0.2:80"});
  CHECK(addresses(get(client, "/jobs/a/targets?collector_id=c1")).empty());
  std::ofstream(config) << "config: [";  // invalid: rejected, b keeps serving
  REQUIRE(::kill(ta.pid, SIGHUP) == 0);
  deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline &&
         get(client, "/metrics").find("opentelemetry_allocator_config_reloads_total{result=\"failure\"} 1") ==
             std::string::npos)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_THAT(get(client, "/metrics"),
             Catch::Contains("opentelemetry_allocator_config_reloads_total{result=\"failure\"} 1"));
  CHECK(addresses(get(client, "/jobs/b/targets?collector_id=c1")) == std::set<std::string>{"10.0.0.2:80"});
  ta.terminate();
  CHECK(WIFEXITED(ta.status));
  CHECK(WEXITSTATUS(ta.status) == 0);
  std::filesystem::remove(config);
}

namespace {

// A config of `n` static targets under job `job`.
std::string big_config(const std::string& job, int n) {
  std::string text = "collectors: [c1, c2]\nconfig:\n  scrape_configs:\n    - job_name: " + job +
                     "\n      static_configs:\n        - targets: [";
  for (int i = 0; i < n; ++i)
    text += (i ? ", '10.1." : "'10.1.") + std::to_string(i / 250) + "." + std::to_string(i % 250) + ":80'";
  return text + "]\n";
}

// SIGTERM, then up to 10 s for the exit; SIGKILL (and a failed check) if it hangs.
int terminate_within_10s(Child& child) {
  ::kill(child.pid, SIGTERM);
  for (int i = 0; i < 200; ++i) {
    if (::waitpid(child.pid, &child.status, WNOHANG) == child.pid) {
      child.pid = -1;
      return WIFEXITED(child.status) ? WEXITSTATUS(child.status) : 128 + WTERMSIG(child.status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(child.pid, SIGKILL);
  ::waitpid(child.pid, &child.status, 0);
  child.pid = -1;
  return -1;
}

}  // namespace

// A shutdown path of issue 17: SIGTERM while reloads of a large config are
// being read, folded and allocated, from the file watch and from SIGHUP.
TEST_CASE("target-allocator exits 0 on SIGTERM in the middle of config reloads", "[allocation][cli][reload]") {
  const auto config = write_config("ta-reload-term", big_config("a", 20000));
  const auto next = std::filesystem::path(config.string() + ".next");
  for (int delay_ms : {0, 150, 600}) {
    INFO("SIGTERM " << delay_ms << " ms into the reloads");
    Child ta;
    const int port = start_allocator(ta, {kBinary, "--config-file", config.string(), "--listen-addr", "127.0.0.1:0",
                                          "--config-reload-interval", "10ms"});
    REQUIRE(port > 0);
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; std::chrono::steady_clock::now() - start < std::chrono::milliseconds(delay_ms) || i < 2; ++i) {
      std::ofstream(next) << big_config(i % 2 ? "a" : "b", 20000 + i);
      std::filesystem::rename(next, config);  // what a ConfigMap update does
      ::kill(ta.pid, SIGHUP);
    }
    if (delay_ms == 600) {  // by then reloads have landed, so SIGTERM meets a working reload path
      httplib::Client client("127.0.0.1", port);
      CHECK_THAT(get(client, "/metrics"),
                 Catch::Contains("opentelemetry_allocator_config_reloads_total{result=\"success\"}"));
    }
    CHECK(terminate_within_10s(ta) == 0);
  }
  std::filesystem::remove(config);
}

TEST_CASE("Prometheus discovers one collector's share from the target allocator", "[allocation][prometheus]") {
  REQUIRE(std::filesystem::exists("/usr/bin/prometheus"));
  ta_test::Runtime rt(R"(allocation_strategy: consistent-hashing
collectors: [c1, c2]
config:
  scrape_configs:
    - job_name: node
      static_configs:
        - targets: ["127.0.0.1:21000", "127.0.0.1:21001", "127.0.0.1:21002", "127.0.0.1:21003"]
        - targets: ["127.0.0.1:21004", "127.0.0.1:21005"]
)");
  const int port = rt.port();
  httplib::Client client("127.0.0.1", port);
  get(client, "/readyz");
  const auto c1 = addresses(get(client, "/jobs/node/targets?collector_id=c1"));
  const auto c2 = addresses(get(client, "/jobs/node/targets?collector_id=c2"));
  CHECK(c1.size() + c2.size() == 6);
  std::set<std::string> all(c1.begin(), c1.end());
  all.insert(c2.begin(), c2.end());
  CHECK(all.size() == 6);
  REQUIRE(!c1.empty());
  const auto metrics = get(client, "/metrics");
  CHECK_THAT(metrics, Catch::Contains("opentelemetry_allocator_targets_per_collector{collector_name=\"c1\",strategy="
                                      "\"consistent-hashing\"} " +
                                      std::to_string(c1.size())));
  CHECK_THAT(metrics, Catch::Contains("opentelemetry_allocator_time_to_allocate_count{method=\"SetTargets\","
                                      "strategy=\"consistent-hashing\"} 1"));
  CHECK(prometheus_discovers(port, "node", "/jobs/node/targets?collector_id=c1", c1) == c1);
}

TEST_CASE("target-allocator --enable-https-server serves credentials over mutual TLS only", "[allocation][tls]") {
  testutil::MutualTls m;
  ta_test::Runtime rt(R"(collectors: [c1]
config:
  scrape_configs:
    - job_name: secured
      basic_auth: {username: u, password: hunter2}
      static_configs: [{targets: ["10.0.0.1:80"]}]
)",
                      [&](actors::ta::RuntimeOptions& o) {
                        allocation::HttpsOptions& tls = o.server.https.emplace();
                        tls.host = "127.0.0.1";
                        tls.port = 0;
                        tls.client_ca_file = m.path("ca.crt");
                        tls.cert_file = m.path("server.crt");
                        tls.key_file = m.path("server.key");
                      });
  const int port = rt.port();
  const int https_port = rt.ta.https_port();
  REQUIRE(https_port > 0);

  httplib::Client plain("127.0.0.1", port);
  CHECK_THAT(get(plain, "/scrape_configs"), Catch::Contains(R"("password":"<secret>")"));
  httplib::SSLClient with_cert("127.0.0.1", https_port, m.path("client.crt"), m.path("client.key"));
  with_cert.set_ca_cert_path(m.path("ca.crt").c_str());
  with_cert.enable_server_certificate_verification(true);
  auto res = with_cert.Get("/scrape_configs");
  REQUIRE(res);
  CHECK_THAT(res->body, Catch::Contains(R"("password":"hunter2")"));
  httplib::SSLClient without_cert("127.0.0.1", https_port);
  without_cert.enable_server_certificate_verification(false);
  CHECK_FALSE(without_cert.Get("/scrape_configs"));
}
