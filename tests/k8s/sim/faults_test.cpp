// Fault injection: injected 5xx/429 answers, latency, dropped watches,
// forced compaction and the /sim/faults admin endpoint.
#include <catch2/catch.hpp>

#include <httplib.h>
#include <atomic>
#include <thread>

#include "k8s/sim/faults.hpp"
#include "k8s/sim/server.hpp"
#include "kubectl_env.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"
#include "sim_fixture.hpp"

using namespace k8s::sim;

namespace {

ServerOptions with_faults(FaultConfig faults, std::uint64_t seed = 7) {
  ServerOptions o;
  o.faults = faults;
  o.fault_seed = seed;
  return o;
}

const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";

// Opens a watch on a thread and reports when it saw "ping" and when it ended.
struct WatchThread {
  std::atomic<bool> saw_ping{false}, ended{false};
  std::string body;
  std::thread thread;

  WatchThread(int port, std::string path) {
    thread = std::thread([this, port, path] {
      httplib::Client cli("127.0.0.1", port);
      cli.set_read_timeout(60, 0);
      cli.Get(path, [this](const char* data, std::size_t len) {
        body.append(data, len);
        if (body.find("\"name\":\"ping\"") != std::string::npos) saw_ping = true;
        return true;
      });
      ended = true;
    });
  }
  ~WatchThread() { thread.join(); }
};

bool wait_for(const std::atomic<bool>& flag, int ms) {
  for (int i = 0; i < ms / 10 && !flag; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return flag;
}

}  // namespace

TEST_CASE("rate 1.0 answers every API request with 503 or 429 and a Status", "[k8s][faults]") {
  simtest::SimFixture f;
  FaultConfig c;
  bool throttle = GENERATE(false, true);
  (throttle ? c.error_429_rate : c.error_5xx_rate) = 1.0;
  c.retry_after_seconds = 3;
  Server server(f.cluster, with_faults(c));
  httplib::Client cli("127.0.0.1", server.start());
  for (int i = 0; i < 20; ++i) {
    auto res = i % 2 ? cli.Get(kConfigMaps) : cli.Post(kConfigMaps, R"({"metadata":{"name":"x"}})", "application/json");
    REQUIRE(res);
    if (throttle) {
      CHECK(res->status == 429);
      CHECK(res->get_header_value("Retry-After") == "3");
    } else {
      CHECK((res->status == 500 || res->status == 503));
    }
    auto status = model::parse_json(res->body);
    CHECK(status.find("kind")->as_string() == "Status");
    CHECK(status.find("code")->as_int() == res->status);
  }
  auto version = cli.Get("/version");  // not an API path: never faulted
  REQUIRE(version);
  CHECK(version->status == 200);
}

TEST_CASE("a seeded rate of 0.5 faults about half the requests", "[k8s][faults]") {
  simtest::SimFixture f;
  FaultConfig c;
  c.error_5xx_rate = 0.5;
  Server server(f.cluster, with_faults(c, 12345));
  httplib::Client cli("127.0.0.1", server.start());
  int failed = 0;
  for (int i = 0; i < 200; ++i) {
    auto res = cli.Get(kConfigMaps);
    REQUIRE(res);
    if (res->status >= 500) ++failed;
  }
  CHECK(failed > 60);
  CHECK(failed < 140);
}

TEST_CASE("added latency delays API requests", "[k8s][faults]") {
  simtest::SimFixture f;
  FaultConfig c;
  c.latency_ms = 120;
  Server server(f.cluster, with_faults(c));
  httplib::Client cli("127.0.0.1", server.start());
  auto start = std::chrono::steady_clock::now();
  auto res = cli.Get(kConfigMaps);
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(120));
}

TEST_CASE("drop-watches ends an open watch", "[k8s][faults][watch]") {
  simtest::SimFixture f;
  Server server(f.cluster, ServerOptions{});
  int port = server.start();
  std::string rv = std::to_string(f.cluster.store().current_rv());
  WatchThread watch(port, std::string(kConfigMaps) + "?watch=true&resourceVersion=" + rv);
  httplib::Client cli("127.0.0.1", port);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  REQUIRE(cli.Post(kConfigMaps, R"({"metadata":{"name":"ping"}})", "application/json"));
  REQUIRE(wait_for(watch.saw_ping, 5000));
  CHECK_FALSE(watch.ended);
  auto res = cli.Post("/sim/faults/drop-watches", "", "application/json");
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(wait_for(watch.ended, 5000));
}

TEST_CASE("a drop-watch rate of 1.0 ends a watch after its first event", "[k8s][faults][watch]") {
  simtest::SimFixture f;
  FaultConfig c;
  c.drop_watch_rate = 1.0;
  Server server(f.cluster, with_faults(c));
  int port = server.start();
  std::string rv = std::to_string(f.cluster.store().current_rv());
  WatchThread watch(port, std::string(kConfigMaps) + "?watch=true&resourceVersion=" + rv);
  httplib::Client cli("127.0.0.1", port);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  REQUIRE(cli.Post(kConfigMaps, R"({"metadata":{"name":"ping"}})", "application/json"));
  CHECK(wait_for(watch.ended, 5000));
  CHECK(watch.saw_ping);
}

TEST_CASE("compact makes a watch from an old resourceVersion get 410 Expired", "[k8s][faults][watch]") {
  simtest::SimFixture f;
  Server server(f.cluster, ServerOptions{});
  httplib::Client cli("127.0.0.1", server.start());
  REQUIRE(cli.Post(kConfigMaps, R"({"metadata":{"name":"a"}})", "application/json"));
  std::string old_rv = std::to_string(f.cluster.store().current_rv());
  REQUIRE(cli.Post(kConfigMaps, R"({"metadata":{"name":"b"}})", "application/json"));
  auto compact = cli.Post("/sim/faults/compact", "", "application/json");
  REQUIRE(compact);
  CHECK(compact->status == 200);
  cli.set_read_timeout(10, 0);
  auto res = cli.Get(std::string(kConfigMaps) + "?watch=true&resourceVersion=" + old_rv);
  REQUIRE(res);
  CHECK(res->body.find("\"type\":\"ERROR\"") != std::string::npos);
  CHECK(res->body.find("\"code\":410") != std::string::npos);
  CHECK(res->body.find("\"reason\":\"Expired\"") != std::string::npos);
}

TEST_CASE("the admin endpoint round-trips the fault config", "[k8s][faults]") {
  simtest::SimFixture f;
  Server server(f.cluster, ServerOptions{});
  httplib::Client cli("127.0.0.1", server.start());
  auto res = cli.Get("/sim/faults");
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(fault_config_from_json(res->body) == FaultConfig{});
  FaultConfig want;
  want.error_5xx_rate = 0.25;
  want.error_429_rate = 0.5;
  want.retry_after_seconds = 4;
  want.latency_ms = 5;
  want.drop_watch_rate = 0.125;
  std::string body = model::to_json(fault_config_to_json(want));
  auto put = cli.Put("/sim/faults", body, "application/json");
  REQUIRE(put);
  CHECK(put->status == 200);
  CHECK(server.faults().config() == want);
  res = cli.Get("/sim/faults");
  REQUIRE(res);
  CHECK(fault_config_from_json(res->body) == want);
  auto bad = cli.Post("/sim/faults", R"({"error5xxRate":2})", "application/json");
  REQUIRE(bad);
  CHECK(bad->status == 400);
  CHECK(server.faults().config() == want);
}

TEST_CASE("kubectl works when faults are off", "[k8s][faults][kubectl]") {
  testutil::KubectlEnv env;
  auto r =
      env.kubectl({"apply", "-f", "-"}, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata:\n  a: b\n");
  INFO(r.err);
  CHECK(r.code == 0);
  r = env.kubectl({"get", "configmap", "plain", "-o", "name"});
  CHECK(r.code == 0);
  CHECK(r.out == "configmap/plain\n");
}

TEST_CASE("simcluster takes the fault flags", "[k8s][faults][cli]") {
  std::string bin = std::string(AO_BIN_DIR) + "/simcluster";
  k8s::sim::Child sim({bin, "--listen", "127.0.0.1:0", "--kubeconfig-out", "/dev/null", "--fault-429-rate", "1",
                       "--fault-latency-ms", "1", "--fault-seed", "9"});
  REQUIRE(sim.read_until([](const std::string& out) { return out.find('\n') != std::string::npos; },
                         std::chrono::seconds(30)));
  std::string line = sim.output();
  REQUIRE(line.rfind("listening on http://127.0.0.1:", 0) == 0);
  int port = std::stoi(line.substr(line.rfind(':') + 1));
  httplib::Client cli("127.0.0.1", port);
  auto res = cli.Get("/api/v1/namespaces");
  REQUIRE(res);
  CHECK(res->status == 429);
  auto config = cli.Get("/sim/faults");
  REQUIRE(config);
  FaultConfig want;
  want.error_429_rate = 1;
  want.latency_ms = 1;
  CHECK(fault_config_from_json(config->body) == want);
  CHECK(sim.terminate() == 0);
  auto bad = k8s::sim::run({bin, "--kubeconfig-out", "/dev/null", "--fault-5xx-rate", "1.5"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--fault-5xx-rate: want a rate") != std::string::npos);
}
