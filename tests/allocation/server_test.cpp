// AllocationServer over a real loopback socket: response shapes, readiness,
// snapshot replacement, and a real Prometheus discovering one collector's
// share via http_sd.
#include <catch2/catch.hpp>

#include <filesystem>

#include "../idle_clients.hpp"
#include "allocation/server.hpp"
#include "http_fixtures.hpp"
#include "model/codec.hpp"
#include "model/parse.hpp"
#include "mutual_tls.hpp"

using namespace allocation;
using namespace http_test;

namespace {

TargetList static_targets(const std::string& job, int n) {
  auto group = std::make_shared<const LabelSet>(LabelSet{{"env", "test"}});
  TargetList out;
  for (int i = 0; i < n; ++i) {
    auto own = std::make_shared<const LabelSet>(LabelSet{{"__address__", "127.0.0.1:" + std::to_string(20000 + i)}});
    Target t;
    REQUIRE(make_target(Name::intern(job), group, own, t));
    out.push_back(t);
  }
  return out;
}

struct Fixture {
  ManualClock clock;
  Allocator allocator{make_strategy({}), {}, clock};
  model::Value scrape_configs = model::parse_json(R"([{"job_name":"my job","scrape_interval":"1s"}])");

  Fixture() {
    allocator.set_collectors({{"c1", "", true, {}}, {"c2", "", true, {}}, {"c3", "", true, {}}});
    allocator.set_targets(static_targets("my job", 12));
  }
};

}  // namespace

TEST_CASE("the allocation server serves upstream's endpoints", "[allocation][http]") {
  Fixture f;
  AllocationServer server({"127.0.0.1", 0});
  const int port = server.start();
  httplib::Client client("127.0.0.1", port);
  CHECK(get(client, "/livez") == "ok\n");
  CHECK(get(client, "/-/healthy") == "ok\n");  // Prometheus's spellings too
  get(client, "/readyz", 503);
  CHECK(get(client, "/-/ready", 503) == "no allocation yet\n");

  server.publish(f.allocator, f.scrape_configs);
  get(client, "/readyz");
  CHECK(get(client, "/-/ready") == "ok\n");
  CHECK(get(client, "/jobs") == jobs_json(f.allocator));
  CHECK(get(client, "/scrape_configs") == scrape_configs_json(f.scrape_configs));
  CHECK(get(client, "/jobs/my+job/targets") == job_targets_json(f.allocator, "my job"));
  CHECK(get(client, "/jobs/my%20job/targets?collector_id=c2") == collector_targets_json(f.allocator, "c2", "my job"));
  CHECK(get(client, "/jobs/nojob/targets?collector_id=c1") == "[]\n");
  CHECK(get(client, "/jobs/my+job/targets?collector_id=nobody") == "[]\n");
  CHECK(get(client, "/jobs/nojob/targets") == "{}\n");
  CHECK(get(client, "/jobs/a%2Bb/targets") == "{}\n");
  get(client, "/jobs/a/b/targets", 404);

  std::set<std::string> all;
  std::size_t total = 0;
  for (const char* c : {"c1", "c2", "c3"}) {
    auto share = addresses(get(client, std::string("/jobs/my+job/targets?collector_id=") + c));
    total += share.size();
    all.insert(share.begin(), share.end());
  }
  CHECK(total == 12);
  CHECK(all.size() == 12);
}

TEST_CASE("with leader election only the leader is ready", "[allocation][http][leader]") {
  Fixture f;
  AllocationServer server({"127.0.0.1", 0, true});
  httplib::Client client("127.0.0.1", server.start());
  server.publish(f.allocator, f.scrape_configs);
  CHECK(get(client, "/readyz", 503) == "standby: not the leader\n");
  CHECK(get(client, "/livez") == "ok\n");
  CHECK(get(client, "/jobs") == jobs_json(f.allocator));  // a standby stays warm
  CHECK(get(client, "/-/ready", 503) == "standby: not the leader\n");
  server.set_leading(true);
  CHECK(get(client, "/readyz") == "ok\n");
  server.set_leading(false);  // lost the lease: unready at once
  get(client, "/readyz", 503);
}

TEST_CASE("200 idle or stalled connections do not starve /livez and /readyz", "[allocation][http]") {
  Fixture f;
  AllocationServer server({"127.0.0.1", 0});
  const int port = server.start();
  server.publish(f.allocator, f.scrape_configs);
  testutil::IdleClients idle(port, 200);
  for (const char* path : {"/livez", "/readyz"}) {
    INFO(path);
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(1, 0);
    auto started = std::chrono::steady_clock::now();
    auto res = client.Get(path);
    REQUIRE(res);
    CHECK(res->status == 200);
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::milliseconds(900));
  }
}

TEST_CASE("without leader election leadership does not gate readiness", "[allocation][http][leader]") {
  Fixture f;
  AllocationServer server({"127.0.0.1", 0});
  httplib::Client client("127.0.0.1", server.start());
  server.publish(f.allocator, f.scrape_configs);
  server.set_leading(false);
  get(client, "/readyz");
}

TEST_CASE("a new allocation replaces the served one", "[allocation][http]") {
  Fixture f;
  AllocationServer server({"127.0.0.1", 0});
  httplib::Client client("127.0.0.1", server.start());
  server.publish(f.allocator, f.scrape_configs);
  f.allocator.set_collectors({{"c1", "", true, {}}});
  server.publish(f.allocator, f.scrape_configs);
  CHECK(addresses(get(client, "/jobs/my+job/targets?collector_id=c1")).size() == 12);
  CHECK(get(client, "/jobs/my+job/targets?collector_id=c2") == "[]\n");
}

TEST_CASE("Prometheus discovers exactly one collector's targets over http_sd", "[allocation][http][prometheus]") {
  REQUIRE(std::filesystem::exists("/usr/bin/prometheus"));
  Fixture f;
  AllocationServer server({"127.0.0.1", 0});
  const int port = server.start();
  server.publish(f.allocator, f.scrape_configs);
  httplib::Client client("127.0.0.1", port);
  const auto expected = addresses(get(client, "/jobs/my+job/targets?collector_id=c1"));
  REQUIRE(!expected.empty());
  CHECK(prometheus_discovers(port, "my job", "/jobs/my+job/targets?collector_id=c1", expected) == expected);
}

TEST_CASE("the allocation server exports upstream's metrics on /metrics", "[allocation][http]") {
  Fixture f;
  AllocationServer server({"127.0.0.1", 0});
  httplib::Client client("127.0.0.1", server.start());
  server.publish(f.allocator, f.scrape_configs);
  server.metrics().observe_time_to_allocate("SetTargets", "consistent-hashing", 0.002);
  server.metrics().count_event("static_configs");
  get(client, "/jobs/my+job/targets?collector_id=c1");

  auto res = client.Get("/metrics");
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK_THAT(res->get_header_value("Content-Type"), Catch::StartsWith("text/plain; version=0.0.4"));
  const std::string& body = res->body;
  for (const char* family : {"targets_per_collector gauge", "collectors_allocatable gauge",
                             "time_to_allocate histogram", "targets_unassigned gauge", "targets gauge",
                             "collectors_discovered gauge", "events counter", "http_duration_seconds histogram"}) {
    CHECK_THAT(body, Catch::Contains(std::string("# TYPE opentelemetry_allocator_") + family + "\n"));
  }
  for (std::uint32_t c = 0; c < 3; ++c) {
    const std::string& name = f.allocator.collectors()[c].name;
    CHECK_THAT(body,
               Catch::Contains("opentelemetry_allocator_targets_per_collector{collector_name=\"" + name +
                               "\",strategy=\"consistent-hashing\"} " + std::to_string(f.allocator.load(c)) + "\n"));
  }
  CHECK_THAT(body,
             Catch::Contains("opentelemetry_allocator_collectors_allocatable{strategy=\"consistent-hashing\"} 3\n"));
  CHECK_THAT(body, Catch::Contains("opentelemetry_allocator_targets{job_name=\"my job\"} 12\n"));
  CHECK_THAT(body, Catch::Contains("opentelemetry_allocator_targets_unassigned 0\n"));
  CHECK_THAT(body, Catch::Contains("opentelemetry_allocator_collectors_discovered 3\n"));
  CHECK_THAT(body, Catch::Contains("opentelemetry_allocator_events{source=\"static_configs\"} 1\n"));
  CHECK_THAT(body, Catch::Contains("opentelemetry_allocator_time_to_allocate_bucket{method=\"SetTargets\",strategy="
                                   "\"consistent-hashing\",le=\"0.005\"} 1\n"));
  CHECK_THAT(
      body, Catch::Contains("opentelemetry_allocator_http_duration_seconds_count{path=\"/jobs/:job_id/targets\"} 1\n"));

  // A collector that leaves stops being exported.
  f.allocator.set_collectors({{"c1", "", true, {}}});
  server.publish(f.allocator, f.scrape_configs);
  const std::string after = get(client, "/metrics");
  CHECK_THAT(after, Catch::Contains("opentelemetry_allocator_targets_per_collector{collector_name=\"c1\",strategy="
                                    "\"consistent-hashing\"} 12\n"));
  CHECK_THAT(after, !Catch::Contains("collector_name=\"c2\""));
  CHECK_THAT(after,
             Catch::Contains("opentelemetry_allocator_collectors_allocatable{strategy=\"consistent-hashing\"} 1\n"));
}

TEST_CASE("the mutual-TLS listener serves real credentials only to clients with a certificate from the CA",
          "[allocation][http][tls]") {
  Fixture f;
  f.scrape_configs = model::parse_json(
      R"([{"job_name":"my job","basic_auth":{"username":"u","password":"hunter2"},"static_configs":[]}])");
  testutil::MutualTls m;
  ServerOptions o{"127.0.0.1", 0};
  o.https = HttpsOptions{"127.0.0.1", 0, m.path("server.crt"), m.path("server.key"), m.path("ca.crt")};
  AllocationServer server(o);
  httplib::Client plain("127.0.0.1", server.start());
  server.publish(f.allocator, f.scrape_configs);
  CHECK(get(plain, "/scrape_configs") == scrape_configs_json(f.scrape_configs));  // masked
  CHECK(get(plain, "/scrape_configs").find("hunter2") == std::string::npos);

  auto https_get = [&](const char* cert, const char* key) {
    httplib::SSLClient client("127.0.0.1", server.https_port(), cert ? m.path(cert) : std::string(),
                              key ? m.path(key) : std::string());
    client.set_ca_cert_path(m.path("ca.crt").c_str());
    client.enable_server_certificate_verification(true);
    return client.Get("/scrape_configs");
  };
  auto res = https_get("client.crt", "client.key");
  REQUIRE(res);
  CHECK(res->status == 200);
  CHECK(res->body == scrape_configs_json(f.scrape_configs, false));
  CHECK(res->body.find("\"password\":\"hunter2\"") != std::string::npos);
  CHECK_FALSE(https_get(nullptr, nullptr));                        // no client certificate
  CHECK_FALSE(https_get("other-client.crt", "other-client.key"));  // signed by another CA
  // The other routes are the same on both listeners.
  httplib::SSLClient jobs("127.0.0.1", server.https_port(), m.path("client.crt"), m.path("client.key"));
  jobs.enable_server_certificate_verification(false);
  auto listed = jobs.Get("/jobs");
  REQUIRE(listed);
  CHECK(listed->body == jobs_json(f.allocator));
}

TEST_CASE("unreadable TLS files are an error naming them", "[allocation][http][tls]") {
  ServerOptions o{"127.0.0.1", 0};
  o.https = HttpsOptions{"127.0.0.1", 0, "/nonexistent/tls.crt", "/nonexistent/tls.key", "/nonexistent/ca.crt"};
  AllocationServer server(o);
  CHECK_THROWS_WITH(server.start(), Catch::Contains("/nonexistent/tls.crt"));
}

TEST_CASE("/jobs/{job}/targets answers conditional requests with 304", "[allocation][http]") {
  Fixture f;
  AllocationServer server({"127.0.0.1", 0});
  httplib::Client client("127.0.0.1", server.start());
  client.set_url_encode(false);
  server.publish(f.allocator, f.scrape_configs);
  auto fetch = [&](const std::string& path, const std::string& inm = "") {
    httplib::Headers h;
    if (!inm.empty()) h.emplace("If-None-Match", inm);
    auto res = client.Get(path.c_str(), h);
    REQUIRE(res);
    return res;
  };
  const std::string c1 = "/jobs/my+job/targets?collector_id=c1", c2 = "/jobs/my+job/targets?collector_id=c2";
  auto first = fetch(c1);
  CHECK(addresses(first->body).size() == 4);
  const std::string tag = first->get_header_value("ETag");
  // What any replica serving the same targets tags them with.
  auto fresh_tag = [&](const char* collector) {
    return ResponseCache().collector_targets(f.allocator, collector, "my job")->etag();
  };
  CHECK(tag == fresh_tag("c1"));
  CHECK(tag.size() == 18);
  CHECK(first->get_header_value("Cache-Control") == "no-cache");
  auto again = fetch(c1, tag);
  CHECK(again->status == 304);
  CHECK(again->body.empty());
  CHECK(again->get_header_value("ETag") == tag);
  CHECK(fetch(c1, "\"other\", W/" + tag)->status == 304);  // lists and weak tags match
  CHECK(fetch(c1, "*")->status == 304);
  CHECK(fetch(c1, "\"other\"")->status == 200);
  // Tags are per collector and job, and change exactly when the body does.
  const std::string tag2 = fetch(c2)->get_header_value("ETag");
  CHECK(tag2 != tag);
  CHECK(fetch(c2, tag)->status == 200);
  const std::string all = fetch("/jobs/my+job/targets")->get_header_value("ETag");
  CHECK(fetch("/jobs/my+job/targets", all)->status == 304);
  server.publish(f.allocator, f.scrape_configs);  // same allocation: same tags
  CHECK(fetch(c1, tag)->status == 304);
  f.allocator.set_collectors({{"c1", "", true, {}}, {"c2", "", true, {}}});
  server.publish(f.allocator, f.scrape_configs);
  auto moved = fetch(c1, tag);
  CHECK(moved->status == 200);
  CHECK(moved->get_header_value("ETag") == fresh_tag("c1"));
  CHECK(moved->body == collector_targets_json(f.allocator, "c1", "my job"));
  CHECK(fetch("/jobs/my+job/targets", all)->status == 200);
  const std::string none = fetch("/jobs/nojob/targets?collector_id=c1")->get_header_value("ETag");
  CHECK(fetch("/jobs/nojob/targets?collector_id=c1", none)->status == 304);
}

TEST_CASE("/jobs/{job}/targets?collector_id= is gzipped for clients that accept it", "[allocation][http][chunks]") {
  Fixture f;
  AllocationServer server({"127.0.0.1", 0});
  httplib::Client client("127.0.0.1", server.start());
  client.set_url_encode(false);
  client.set_decompress(false);
  server.publish(f.allocator, f.scrape_configs);
  const std::string path = "/jobs/my+job/targets?collector_id=c1";
  const std::string plain = collector_targets_json(f.allocator, "c1", "my job");
  auto identity = client.Get(path.c_str());
  REQUIRE(identity);
  CHECK(identity->body == plain);
  CHECK_FALSE(identity->has_header("Content-Encoding"));
  CHECK(identity->get_header_value("Vary") == "Accept-Encoding");
  auto zipped = client.Get(path.c_str(), {{"Accept-Encoding", "gzip, deflate"}});
  REQUIRE(zipped);
  CHECK(zipped->get_header_value("Content-Encoding") == "gzip");
  CHECK(model::gzip_decompress(zipped->body) == plain);
  const std::string tag = zipped->get_header_value("ETag");
  CHECK(tag != identity->get_header_value("ETag"));
  CHECK(client.Get(path.c_str(), {{"Accept-Encoding", "gzip"}, {"If-None-Match", tag}})->status == 304);
  CHECK(client.Get(path.c_str(), {{"If-None-Match", tag}})->status == 200);  // another representation
  auto refused = client.Get(path.c_str(), {{"Accept-Encoding", "gzip;q=0"}});
  CHECK(refused->body == plain);
  // Nothing for this collector: "[]" either way.
  auto none = client.Get("/jobs/nojob/targets?collector_id=c1", {{"Accept-Encoding", "gzip"}});
  CHECK(model::gzip_decompress(none->body) == "[]\n");
}
