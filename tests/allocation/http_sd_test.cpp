// http_sd_configs end to end: the poller against an in-process cpp-httplib
// server, and the target-allocator binary serving what an in-process SD
// endpoint lists (with the relabel-config filter), updated on refresh.
#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>

#include "../eventually.hpp"
#include "actors/allocation/runtime.hpp"
#include "actors/allocation/sources_actor.hpp"
#include "allocation/runtime/config.hpp"
#include "allocation/runtime/state.hpp"
#include "http_fixtures.hpp"
#include "ta_runtime_fixture.hpp"

using namespace http_test;
using allocation::discovery::DiscoveryError;
using allocation::discovery::HttpSdConfig;

namespace {

// An http_sd endpoint whose body, status and content type tests can change.
class SdServer {
 public:
  SdServer() {
    server_.Get("/sd", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard lock(mu_);
      ++requests_;
      refresh_header_ = req.get_header_value("X-Prometheus-Refresh-Interval-Seconds");
      res.status = status_;
      res.set_content(body_, content_type_.c_str());
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~SdServer() {
    // stop() is a no-op before the accept loop runs (httplib 0.11).
    for (int i = 0; i < 2000 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    server_.stop();
    thread_.join();
  }
  void set(std::string body, int status = 200, std::string type = "application/json") {
    std::lock_guard lock(mu_);
    body_ = std::move(body), status_ = status, content_type_ = std::move(type);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/sd"; }
  int requests() {
    std::lock_guard lock(mu_);
    return requests_;
  }
  std::string refresh_header() {
    std::lock_guard lock(mu_);
    return refresh_header_;
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::string body_ = "[]", content_type_ = "application/json", refresh_header_;
  int status_ = 200, requests_ = 0;
};

// One poll as the runtime makes it (a GET, then the fold checks and parses
// the answer): the groups of job "web", or the error line without its field.
struct Poll {
  std::vector<allocation::Target> targets;
  std::string error = "no error";
};

Poll poll(const HttpSdConfig& c) {
  allocation::runtime::State state;
  allocation::runtime::Input config;
  config.type = allocation::runtime::InputType::config;
  config.config.path = "t.yaml";
  config.config.text = "collectors: [c]\nconfig: {scrape_configs: [{job_name: web, http_sd_configs: [{url: '" + c.url +
                       "', refresh_interval: " + std::to_string(c.refresh_interval.count()) + "ms}]}]}";
  state.apply(config);
  REQUIRE(state.http_sd().size() == 1);
  allocation::runtime::Input got;
  got.type = allocation::runtime::InputType::http_sd;
  got.http_sd = actors::fetch_http_sd(state.http_sd()[0]);
  Poll out;
  auto fx = state.apply(got);
  // The logged poll failure as "URL: error".
  if (!fx.logs.empty()) out.error = fx.logs[0].value("url") + ": " + fx.logs[0].value("error");
  allocation::runtime::Input reallocate;
  state.apply(reallocate);
  for (const auto& t : state.allocator().targets()) out.targets.push_back(t);
  return out;
}

std::string fetch_error(const HttpSdConfig& c) {
  return poll(c).error;
}

using ta_test::Runtime;

using testutil::eventually;

// Every address in a /jobs/<job>/targets body (all collectors).
std::set<std::string> all_addresses(const std::string& body) {
  std::set<std::string> out;
  const auto doc = model::parse_json(body);
  for (const auto& [collector, entry] : doc.as_object())
    for (const auto& group : entry.find("targets")->as_array())
      for (const auto& t : group.find("targets")->as_array()) out.insert(t.as_string());
  return out;
}

}  // namespace

TEST_CASE("http_sd fetch reads groups and reports failures with the URL", "[http_sd]") {
  SdServer sd;
  HttpSdConfig config{sd.url(), std::chrono::seconds(5)};
  sd.set(R"([{"targets": ["a:1"], "labels": {"env": "prod"}}])", 200, "application/json; charset=utf-8");
  auto polled = poll(config);
  CHECK(polled.error == "no error");
  REQUIRE(polled.targets.size() == 1);
  CHECK(polled.targets[0].address == "a:1");
  CHECK(polled.targets[0].job.text() == "web");
  CHECK(polled.targets[0].get(allocation::Name::intern("__meta_url")) == sd.url());
  CHECK(polled.targets[0].get(allocation::Name::intern("env")) == "prod");
  CHECK(sd.refresh_header() == "5");

  sd.set("[]", 500);
  CHECK(fetch_error(config) == sd.url() + ": status: server returned HTTP status 500");
  sd.set("[]", 200, "text/plain");
  CHECK(fetch_error(config) == sd.url() + ": Content-Type: unsupported content type \"text/plain\"");
  sd.set(R"([{"targets": [1]}])");
  CHECK(fetch_error(config) == sd.url() + ": [0].targets[0]: must be a string");
  HttpSdConfig refused{"http://127.0.0.1:" + std::to_string(free_port()) + "/sd", std::chrono::seconds(1)};
  CHECK_THAT(fetch_error(refused), Catch::StartsWith(refused.url + ": "));
}

TEST_CASE("http_sd poller refreshes and keeps the last groups on failure", "[http_sd]") {
  SdServer sd;
  sd.set(R"([{"targets": ["a:1"]}])");
  std::optional<Runtime> rt;
  rt.emplace("collectors: [c]\nconfig: {scrape_configs: [{job_name: web, http_sd_configs: [{url: '" + sd.url() +
             "', refresh_interval: 100ms}]}]}");
  auto addresses_now = [&] {
    std::set<std::string> out;
    const auto assigned = rt->ta.assignment().second;
    if (assigned.count("c"))
      for (const auto& t : assigned.at("c")) out.insert(t.substr(t.rfind('/') + 1));
    return out;
  };
  CHECK(eventually([&] { return addresses_now() == std::set<std::string>{"a:1"}; }));
  const int before = sd.requests();
  sd.set("not json");
  CHECK(eventually([&] { return sd.requests() >= before + 2; }));
  CHECK(addresses_now() == std::set<std::string>{"a:1"});  // kept, as Prometheus does
  sd.set(R"([{"targets": ["b:1", "c:1"]}])");
  CHECK(eventually([&] { return addresses_now() == std::set<std::string>{"b:1", "c:1"}; }));
  CHECK(rt->ta.assignment().second.at("c").front().starts_with("web/"));
  rt.reset();
  const int after_stop = sd.requests();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(sd.requests() == after_stop);
}

TEST_CASE("http_sd_configs config entries are validated with the field named", "[http_sd][config]") {
  auto error = [](const std::string& sd) {
    try {
      allocation::runtime::load_config("config: {scrape_configs: [{job_name: a, http_sd_configs: [" + sd + "]}]}", "t");
    } catch (const allocation::runtime::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string f = "config.scrape_configs[0].http_sd_configs[0]";
  CHECK(error("{}") == f + ".url: URL is missing");
  CHECK(error("{url: 'ftp://x/sd'}") == f + ".url: URL scheme must be 'http' or 'https'");
  CHECK(error("{url: 'http:///sd'}") == f + ".url: host is missing in URL");
  CHECK(error("{url: 'http://x/sd', refresh_interval: 5 parsecs}") ==
        f + ".refresh_interval: must be a positive duration such as 30s");
  CHECK_THAT(error("{url: 'http://x/sd', basic_auth: {username: u}}"),
             Catch::StartsWith(f + ".basic_auth: not supported"));
  auto c = allocation::runtime::load_config(
      "config: {scrape_configs: [{job_name: a, http_sd_configs: [{url: 'https://sd:8443/x?y=1', refresh_interval: "
      "1m30s}]}]}",
      "t");
  REQUIRE(c.http_sd.size() == 1);
  CHECK(c.http_sd[0].job == "a");
  CHECK(c.http_sd[0].sd.url == "https://sd:8443/x?y=1");
  CHECK(c.http_sd[0].sd.refresh_interval == std::chrono::seconds(90));
}

TEST_CASE("target-allocator serves http_sd targets filtered by relabel_configs and follows changes", "[http_sd]") {
  SdServer sd;
  sd.set(R"([{"targets": ["10.0.0.1:80", "10.0.0.2:80"], "labels": {"env": "prod"}},
             {"targets": ["10.0.0.3:80"], "labels": {"env": "dev"}}])");
  Runtime rt(
      "allocation_strategy: consistent-hashing\nfilter_strategy: relabel-config\n"
      "collectors: [c1, c2]\nconfig:\n  scrape_configs:\n    - job_name: web\n"
      "      http_sd_configs: [{url: '" +
      sd.url() +
      "', refresh_interval: 1s}]\n"
      "      static_configs: [{targets: ['10.0.0.9:80'], labels: {env: prod}}]\n"
      "      relabel_configs: [{source_labels: [env], regex: prod, action: keep}]\n");
  httplib::Client client("127.0.0.1", rt.ta.port());
  auto served = [&] { return all_addresses(get(client, "/jobs/web/targets")); };
  CHECK(eventually([&] { return served() == std::set<std::string>{"10.0.0.1:80", "10.0.0.2:80", "10.0.0.9:80"}; }));
  CHECK_THAT(get(client, "/jobs/web/targets"), Catch::Contains("\"__meta_url\":\"" + sd.url() + "\""));

  sd.set(R"([{"targets": ["10.0.0.4:80"], "labels": {"env": "prod"}}])");
  CHECK(eventually([&] { return served() == std::set<std::string>{"10.0.0.4:80", "10.0.0.9:80"}; }));
  const auto c1 = addresses(get(client, "/jobs/web/targets?collector_id=c1"));
  const auto c2 = addresses(get(client, "/jobs/web/targets?collector_id=c2"));
  CHECK(c1.size() + c2.size() == 2);
}
