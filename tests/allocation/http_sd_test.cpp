// http_sd_configs end to end: the poller against an in-process cpp-httplib
// server, and the target-allocator binary serving what an in-process SD
// endpoint lists (with the relabel-config filter), updated on refresh.
#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>

#include "../eventually.hpp"
#include "cmd/target-allocator/config.hpp"
#include "cmd/target-allocator/discovery_runner.hpp"
#include "cmd/target-allocator/http_sd_poller.hpp"
#include "http_fixtures.hpp"

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

std::string fetch_error(const HttpSdConfig& c) {
  try {
    target_allocator::HttpSdPoller::fetch(c);
  } catch (const DiscoveryError& e) {
    return e.what();
  }
  return "no error";
}

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

int read_listening_port(int fd) {
  std::string line;
  char c = 0;
  while (::read(fd, &c, 1) == 1 && c != '\n') line += c;
  const std::string prefix = "listening on http://127.0.0.1:";
  return line.starts_with(prefix) ? std::stoi(line.substr(prefix.size())) : -1;
}

}  // namespace

TEST_CASE("http_sd fetch reads groups and reports failures with the URL", "[http_sd]") {
  SdServer sd;
  HttpSdConfig config{sd.url(), std::chrono::seconds(5)};
  sd.set(R"([{"targets": ["a:1"], "labels": {"env": "prod"}}])", 200, "application/json; charset=utf-8");
  auto groups = target_allocator::HttpSdPoller::fetch(config);
  REQUIRE(groups.size() == 1);
  CHECK(groups[0].source == sd.url() + ":0");
  CHECK(groups[0].group.targets[0]->address() == "a:1");
  CHECK(groups[0].group.labels->get(allocation::Name::intern("__meta_url")) == sd.url());
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
  target_allocator::Config config;
  config.http_sd.push_back({"web", "http_sd_configs[0]", {sd.url(), std::chrono::milliseconds(100)}});
  std::atomic<int> errors{0};
  target_allocator::DiscoveryRunner runner(config, [&](const std::string&) { ++errors; });
  runner.start();
  auto addresses_now = [&] {
    std::set<std::string> out;
    for (const auto& t : runner.targets()) out.insert(std::string(t.address));
    return out;
  };
  CHECK(eventually([&] { return addresses_now() == std::set<std::string>{"a:1"}; }));
  sd.set("not json");
  CHECK(eventually([&] { return errors > 0; }));
  CHECK(addresses_now() == std::set<std::string>{"a:1"});  // kept, as Prometheus does
  sd.set(R"([{"targets": ["b:1", "c:1"]}])");
  CHECK(eventually([&] { return addresses_now() == std::set<std::string>{"b:1", "c:1"}; }));
  CHECK(runner.targets().front().job.text() == "web");
  runner.stop();
  const int after_stop = sd.requests();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(sd.requests() == after_stop);
}

TEST_CASE("http_sd_configs config entries are validated with the field named", "[http_sd][config]") {
  auto error = [](const std::string& sd) {
    try {
      target_allocator::load_config("config: {scrape_configs: [{job_name: a, http_sd_configs: [" + sd + "]}]}", "t");
    } catch (const target_allocator::ConfigError& e) {
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
  auto c = target_allocator::load_config(
      "config: {scrape_configs: [{job_name: a, http_sd_configs: [{url: 'https://sd:8443/x?y=1', refresh_interval: "
      "1m30s}]}]}",
      "t");
  REQUIRE(c.http_sd.size() == 1);
  CHECK(c.http_sd[0].job == "a");
  CHECK(c.http_sd[0].sd.url == "https://sd:8443/x?y=1");
  CHECK(c.http_sd[0].sd.refresh_interval == std::chrono::seconds(90));
}

TEST_CASE("target-allocator serves http_sd targets filtered by relabel_configs and follows changes", "[http_sd][cli]") {
  SdServer sd;
  sd.set(R"([{"targets": ["10.0.0.1:80", "10.0.0.2:80"], "labels": {"env": "prod"}},
             {"targets": ["10.0.0.3:80"], "labels": {"env": "dev"}}])");
  const auto path = std::filesystem::temp_directory_path() / ("ta-httpsd-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << "allocation_strategy: consistent-hashing\nfilter_strategy: relabel-config\n"
                         "collectors: [c1, c2]\nconfig:\n  scrape_configs:\n    - job_name: web\n"
                         "      http_sd_configs: [{url: '" +
                             sd.url() +
                             "', refresh_interval: 1s}]\n"
                             "      static_configs: [{targets: ['10.0.0.9:80'], labels: {env: prod}}]\n"
                             "      relabel_configs: [{source_labels: [env], regex: prod, action: keep}]\n";
  int out[2];
  REQUIRE(::pipe(out) == 0);
  Child ta{
      spawn({AO_BIN_DIR "/target-allocator", "--config-file", path.string(), "--listen-addr", "127.0.0.1:0"}, out[1])};
  ::close(out[1]);
  const int port = read_listening_port(out[0]);
  ::close(out[0]);
  REQUIRE(port > 0);
  httplib::Client client("127.0.0.1", port);
  auto served = [&] { return all_addresses(get(client, "/jobs/web/targets")); };
  CHECK(eventually([&] { return served() == std::set<std::string>{"10.0.0.1:80", "10.0.0.2:80", "10.0.0.9:80"}; }));
  CHECK_THAT(get(client, "/jobs/web/targets"), Catch::Contains("\"__meta_url\":\"" + sd.url() + "\""));

  sd.set(R"([{"targets": ["10.0.0.4:80"], "labels": {"env": "prod"}}])");
  CHECK(eventually([&] { return served() == std::set<std::string>{"10.0.0.4:80", "10.0.0.9:80"}; }));
  const auto c1 = addresses(get(client, "/jobs/web/targets?collector_id=c1"));
  const auto c2 = addresses(get(client, "/jobs/web/targets?collector_id=c2"));
  CHECK(c1.size() + c2.size() == 2);
  ta.terminate();
  CHECK(WIFEXITED(ta.status));
  CHECK(WEXITSTATUS(ta.status) == 0);
  std::filesystem::remove(path);
}

TEST_CASE("discovery runner pulls a marked source once per targets call", "[http_sd]") {
  target_allocator::Config config;
  config.targets.push_back({});
  REQUIRE(allocation::make_target(allocation::Name::intern("static"), nullptr,
                                  std::make_shared<const allocation::LabelSet>(
                                      std::vector<allocation::Label>{{allocation::Names::get().address, "s:1"}}),
                                  config.targets.back()));
  target_allocator::DiscoveryRunner runner(config);
  int pulls = 0;
  std::string address = "a:1";
  const auto id = runner.add_source("pulled", [&] {
    ++pulls;
    allocation::TargetGroup g;
    g.targets.push_back(std::make_shared<const allocation::LabelSet>(
        std::vector<allocation::Label>{{allocation::Names::get().address, address}}));
    return std::vector<allocation::TargetGroup>{g};
  });
  for (int i = 0; i < 100; ++i) runner.mark_changed(id);
  REQUIRE(runner.wait_for_change());
  auto targets = runner.targets();
  CHECK(pulls == 1);
  REQUIRE(targets.size() == 2);
  CHECK(targets[0].address == "s:1");
  CHECK(targets[1].address == "a:1");
  CHECK(targets[1].job.text() == "pulled");
  // Unmarked: the last pulled groups are reused.
  address = "b:1";
  CHECK(runner.targets()[1].address == "a:1");
  CHECK(pulls == 1);
  runner.mark_changed(id);
  CHECK(runner.targets()[1].address == "b:1");
  runner.request_stop();
  CHECK_FALSE(runner.wait_for_change());
}
