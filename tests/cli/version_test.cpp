// Every program's version flags (--version, -version, and the `version`
// subcommand where there are subcommands) print one agreeing line with the
// version and revision CMake configured, and the two servers expose it as
// <binary>_build_info on /metrics.
#include <httplib.h>
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "../scratch.hpp"
#include "bin_path.hpp"
#include "k8s/sim/process.hpp"
#include "model/build_info.hpp"

namespace {

const std::string kVersion = AO_EXPECTED_VERSION;
const std::string kRevision = AO_EXPECTED_REVISION;

std::string expected_line(const std::string& binary) {
  return binary + " version " + kVersion + " (revision " + kRevision + ")\n";
}

// The gauge as prometheus-cpp writes it (labels sorted by name).
std::string expected_sample(const std::string& metric) {
  return metric + "{revision=\"" + kRevision + "\",version=\"" + kVersion + "\"} 1\n";
}

void check_build_info(const std::string& body, const std::string& metric) {
  INFO(body);
  CHECK_THAT(body, Catch::Contains("# HELP " + metric + " "));
  CHECK_THAT(body, Catch::Contains("# TYPE " + metric + " gauge\n"));
  CHECK_THAT(body, Catch::Contains(expected_sample(metric)));
}

std::string get_metrics(int port) {
  httplib::Client client("127.0.0.1", port);
  for (int i = 0; i < 200; ++i) {
    if (auto r = client.Get("/metrics"); r && r->status == 200) return r->body;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return "";
}

std::filesystem::path temp_file(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() / ("ao-version-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("the configured version and revision are well formed", "[cli][version]") {
  CHECK(std::regex_match(kVersion, std::regex(R"(\d+\.\d+\.\d+)")));
  CHECK(std::regex_match(kRevision, std::regex(R"(unknown|[0-9a-f]{7,40}(-dirty)?)")));
}

TEST_CASE("every binary prints the same version line for each version flag", "[cli][version]") {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases{
      {"agent-operator", {"--version", "-version", "version"}},
      {"target-allocator", {"--version", "-version", "version"}},
      {"simcluster", {"--version", "-version"}}};
  for (const auto& [binary, flags] : cases)
    for (const auto& flag : flags) {
      auto r = k8s::sim::run({testutil::bin(binary), flag});
      INFO(binary << " " << flag << ": " << r.err);
      CHECK(r.code == 0);
      CHECK(r.out == expected_line(binary));
    }
  // Other flags around it do not matter: the version is printed, nothing runs.
  auto r = k8s::sim::run({testutil::bin("target-allocator"), "--config-file", "/nonexistent", "--version"});
  CHECK(r.code == 0);
  CHECK(r.out == expected_line("target-allocator"));
}

TEST_CASE("agent-operator run serves agent_operator_build_info on /metrics", "[cli][version]") {
  // An API server nobody answers: /metrics is served while informers retry.
  const auto kc = temp_file("closed.kubeconfig",
                            "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: c, cluster: "
                            "{server: 'http://127.0.0.1:" +
                                std::to_string(testutil::unused_port()) +
                                "'}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\n"
                                "users: [{name: u, user: {}}]\n");
  const int port = testutil::unused_port();
  k8s::sim::Child op({testutil::bin("agent-operator"), "run", "--kubeconfig", kc.string(), "--listen",
                      "127.0.0.1:" + std::to_string(port), "--sync-timeout", "60s"});
  check_build_info(get_metrics(port), "agent_operator_build_info");
  CHECK(op.terminate() == 0);
  std::filesystem::remove(kc);
}

TEST_CASE("target-allocator serves target_allocator_build_info on /metrics", "[cli][version]") {
  const auto config = temp_file("ta.yaml", "collectors: [c1]\n");
  k8s::sim::Child ta(
      {testutil::bin("target-allocator"), "--config-file", config.string(), "--listen-addr", "127.0.0.1:0"});
  std::smatch m;
  const std::regex listening(R"(listening on http://127\.0\.0\.1:(\d+))");
  REQUIRE(ta.read_until([&](const std::string& out) { return std::regex_search(out, m, listening); },
                        std::chrono::seconds(30)));
  const std::string out = ta.output();
  REQUIRE(std::regex_search(out, m, listening));
  const std::string body = get_metrics(std::stoi(m[1].str()));
  check_build_info(body, "target_allocator_build_info");
  // Beside upstream's own families, not instead of them.
  CHECK_THAT(body, Catch::Contains("opentelemetry_allocator_collectors_discovered"));
  CHECK(ta.terminate() == 0);
  std::filesystem::remove(config);
}

TEST_CASE("version_requested and build_info_metric_name", "[cli][version]") {
  const char* version[] = {"x", "version"};
  CHECK(model::version_requested(2, version, true));
  CHECK_FALSE(model::version_requested(2, version, false));  // a flag-only binary has no subcommand
  const char* late[] = {"x", "--config-file", "f", "-version"};
  CHECK(model::version_requested(4, late, false));
  const char* none[] = {"x", "run", "--versions", "-v"};
  CHECK_FALSE(model::version_requested(4, none, true));
  CHECK(model::build_info_metric_name("agent-operator") == "agent_operator_build_info");
  CHECK(model::build_info_metric_name("target-allocator") == "target_allocator_build_info");
  CHECK(model::version_line("simcluster", {"1.2.3", "abc1234"}) == "simcluster version 1.2.3 (revision abc1234)");
}
