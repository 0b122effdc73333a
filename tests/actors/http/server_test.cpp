// OperatorHttpServer over real HTTP (httplib::Client): status codes, bodies
// and content types of every endpoint, the extension point, lifecycle, and
// promtool's verdict on what /metrics serves.
#include <catch2/catch.hpp>

#include <httplib.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include "actors/http/server.hpp"
#include "exposition.hpp"
#include "k8s/sim/process.hpp"
#include "tests/idle_clients.hpp"

using actors::HttpRequest;
using actors::HttpResponse;
using actors::OperatorHttpServer;
using actors::OperatorHttpSources;
using actors::OperatorMetrics;

namespace {

struct Fetched {
  int status = 0;
  std::string body;
  std::string content_type;
};

Fetched get(int port, const std::string& path) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(30);
  client.set_read_timeout(30);
  auto res = client.Get(path.c_str());
  if (!res) throw std::runtime_error("GET " + path + " failed: " + httplib::to_string(res.error()));
  return {res->status, res->body, res->get_header_value("Content-Type")};
}

// A hierarchy source holding one agent, monitoring/agent.
std::optional<std::string> one_agent(const std::string& ns, const std::string& name) {
  if (ns == "monitoring" && name == "agent") return std::string(R"({"agent":"monitoring/agent","members":[]})");
  return std::nullopt;
}

}  // namespace

TEST_CASE("the server serves metrics health readiness and the hierarchy view", "[http][server]") {
  OperatorMetrics metrics;
  metrics.observe_reconcile("grafanaagent", actors::ReconcileResult::success, 0.01);
  std::atomic<bool> alive{true};
  std::mutex mu;
  std::string not_ready = "waiting for the initial sync of 3 informers";
  OperatorHttpSources sources;
  sources.metrics = &metrics;
  sources.healthy = [&] { return alive ? std::string() : std::string("process loop stalled"); };
  sources.ready = [&] {
    std::lock_guard lock(mu);
    return not_ready;
  };
  sources.hierarchy = one_agent;
  OperatorHttpServer server({"127.0.0.1", 0, 2}, sources);
  int port = server.start();
  REQUIRE(port > 0);
  CHECK(server.port() == port);

  SECTION("/metrics") {
    auto r = get(port, "/metrics");
    CHECK(r.status == 200);
    CHECK(r.content_type == "text/plain; version=0.0.4; charset=utf-8");
    auto e = testutil::parse_exposition(r.body);
    CHECK(e.value("controller_runtime_reconcile_total", {{"controller", "grafanaagent"}, {"result", "success"}}) == 1);
    metrics.set_leader(true);
    CHECK(testutil::parse_exposition(get(port, "/metrics").body).value("agent_operator_leader") == 1);
  }
  SECTION("/healthz follows the callback") {
    auto ok = get(port, "/healthz");
    CHECK(ok.status == 200);
    CHECK(ok.body == "ok\n");
    CHECK(get(port, "/-/healthy").status == 200);
    alive = false;
    auto bad = get(port, "/healthz");
    CHECK(bad.status == 503);
    CHECK(bad.body == "process loop stalled\n");
  }
  SECTION("/readyz is 503 with the reason until the initial sync") {
    auto waiting = get(port, "/readyz");
    CHECK(waiting.status == 503);
    CHECK(waiting.body == "waiting for the initial sync of 3 informers\n");
    {
      std::lock_guard lock(mu);
      not_ready.clear();
    }
    auto ready = get(port, "/readyz");
    CHECK(ready.status == 200);
    CHECK(ready.body == "ok\n");
    CHECK(get(port, "/-/ready").status == 200);
  }
  SECTION("/debug/hierarchy") {
    auto found = get(port, "/debug/hierarchy?agent=monitoring/agent");
    CHECK(found.status == 200);
    CHECK(found.content_type == "application/json");
    CHECK(found.body == R"({"agent":"monitoring/agent","members":[]})");
    CHECK(get(port, "/debug/hierarchy?agent=monitoring%2Fagent").status == 200);

    auto missing = get(port, "/debug/hierarchy?agent=monitoring/other");
    CHECK(missing.status == 404);
    CHECK(missing.body == "GrafanaAgent monitoring/other not found\n");

    auto no_param = get(port, "/debug/hierarchy");
    CHECK(no_param.status == 400);
    CHECK(no_param.body.find("missing query parameter: agent=NAMESPACE/NAME") != std::string::npos);
    for (const char* bad : {"agent=noslash", "agent=/name", "agent=ns/", "agent=Upper/name", "agent=ns/a/b",
                            "agent=ns/name&agent=ns/other", "agent=ns/-name"}) {
      INFO(bad);
      auto r = get(port, std::string("/debug/hierarchy?") + bad);
      CHECK(r.status == 400);
      CHECK(r.body.find("agent") != std::string::npos);
    }
  }
  SECTION("unknown paths are 404") {
    CHECK(get(port, "/nope").status == 404);
  }
  server.stop();
  server.stop();
}

TEST_CASE("endpoints without a source are not served and health defaults to ok", "[http][server]") {
  OperatorHttpServer server({"127.0.0.1", 0, 1}, OperatorHttpSources{});
  int port = server.start();
  CHECK(get(port, "/healthz").status == 200);
  CHECK(get(port, "/metrics").status == 404);
  CHECK(get(port, "/readyz").status == 404);
  CHECK(get(port, "/debug/hierarchy?agent=a/b").status == 404);
}

TEST_CASE("extra GET handlers see decoded query parameters", "[http][server]") {
  OperatorHttpServer server({"127.0.0.1", 0, 2}, OperatorHttpSources{});
  server.add_get("/operator/api/v1/metrics/integrations/sd", [](const HttpRequest& req) {
    HttpResponse r;
    auto it = req.params.find("pod");
    r.body = req.path + " pod=" + (it == req.params.end() ? std::string("-") : it->second);
    r.content_type = "application/json";
    return r;
  });
  server.add_get("/boom", [](const HttpRequest&) -> HttpResponse { throw std::runtime_error("kaboom"); });
  CHECK_THROWS_AS(server.add_get("/healthz", [](const HttpRequest&) { return HttpResponse{}; }), std::logic_error);
  int port = server.start();
  CHECK_THROWS_AS(server.add_get("/late", [](const HttpRequest&) { return HttpResponse{}; }), std::logic_error);

  auto r = get(port, "/operator/api/v1/metrics/integrations/sd?pod=a%20b");
  CHECK(r.status == 200);
  CHECK(r.body == "/operator/api/v1/metrics/integrations/sd pod=a b");
  CHECK(r.content_type == "application/json");
  auto boom = get(port, "/boom");
  CHECK(boom.status == 500);
  CHECK(boom.body == "internal error: kaboom\n");
}

TEST_CASE("start binds a fixed port and a taken port is an error", "[http][server]") {
  OperatorHttpServer first({"127.0.0.1", 0, 1}, OperatorHttpSources{});
  int port = first.start();
  OperatorHttpServer second({"127.0.0.1", port, 1}, OperatorHttpSources{});
  CHECK_THROWS_AS(second.start(), std::runtime_error);
  first.stop();

  // The port is free again once stop() returns (httplib sets SO_REUSEADDR).
  OperatorHttpServer third({"127.0.0.1", port, 1}, OperatorHttpSources{});
  CHECK(third.start() == port);
  CHECK(get(port, "/healthz").status == 200);
}

TEST_CASE("200 idle or stalled connections do not starve health and readiness", "[http][server]") {
  OperatorHttpSources sources;
  sources.ready = [] { return std::string(); };
  OperatorHttpServer server({"127.0.0.1", 0}, sources);
  int port = server.start();
  testutil::IdleClients idle(port, 200);
  for (const char* path : {"/healthz", "/readyz"}) {
    INFO(path);
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(1, 0);  // a liveness probe's patience
    auto started = std::chrono::steady_clock::now();
    auto res = client.Get(path);
    REQUIRE(res);
    CHECK(res->status == 200);
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::milliseconds(900));
  }
}

TEST_CASE("a server stopped right after start does not hang", "[http][server]") {
  for (int i = 0; i < 20; ++i) {
    OperatorHttpServer server({"127.0.0.1", 0, 1}, OperatorHttpSources{});
    server.start();
    server.stop();
  }
  SUCCEED("every stop() returned");
}

TEST_CASE("parse_listen_address reads upstream-style addresses", "[http][server]") {
  auto all = actors::parse_listen_address(":8080");
  REQUIRE(all);
  CHECK(all->host == "0.0.0.0");
  CHECK(all->port == 8080);
  auto v4 = actors::parse_listen_address("127.0.0.1:0");
  REQUIRE(v4);
  CHECK(v4->host == "127.0.0.1");
  CHECK(v4->port == 0);
  auto v6 = actors::parse_listen_address("[::1]:9090");
  REQUIRE(v6);
  CHECK(v6->host == "::1");
  for (const char* bad : {"8080", "host:", "host:http", ":65536", "::1:80", "[::1:80", ":-1"}) {
    INFO(bad);
    CHECK_FALSE(actors::parse_listen_address(bad));
  }
}

TEST_CASE("promtool check metrics accepts what /metrics serves", "[http][server][promtool]") {
  const char* promtool = "/usr/bin/promtool";
  if (!std::filesystem::exists(promtool)) {
    WARN("promtool not installed: skipping");
    return;
  }
  OperatorMetrics metrics;
  metrics.add_controller("grafanaagent");
  metrics.observe_reconcile("grafanaagent", actors::ReconcileResult::error, 1.5);
  metrics.observe_queue_wait("grafanaagent", 0.2);
  metrics.observe_rest_request("PUT", "kubernetes.default.svc:443", 409, 0.05);
  metrics.set_hierarchy_members("monitoring/agent", "PodLogs", 3);
  OperatorHttpSources sources;
  sources.metrics = &metrics;
  OperatorHttpServer server({"127.0.0.1", 0, 1}, sources);
  auto body = get(server.start(), "/metrics").body;
  auto r = k8s::sim::run({promtool, "check", "metrics"}, body);
  INFO(body);
  INFO(r.out + r.err);
  CHECK(r.code == 0);
  CHECK(r.out.empty());
  CHECK(r.err.empty());  // lint problems go to stderr
}
