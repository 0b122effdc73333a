// The target-allocator binary's log on stderr: the config loaded and
// reloaded, target counts per job and the collector set when they change,
// problems (an http_sd poll, a rejected reload) -- at debug level, in both
// formats, and never a password, bearer token or URL password of its config.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../scratch.hpp"
#include "k8s/sim/process.hpp"
#include "model/codec.hpp"
#include "model/parse.hpp"

namespace {

const std::string kPassword = "logtest-ta-password-Lk2Wq";
const std::string kBearer = "logtest-ta-bearer-Hh7Rt";
const std::string kUrlPassword = "logtest-url-password-Pp4Zs";

std::string config(int unreachable_port) {
  return "collectors: [c1, c2]\n"
         "config:\n  scrape_configs:\n"
         "  - job_name: secure\n"
         "    basic_auth: {username: scraper, password: " +
         kPassword +
         "}\n"
         "    static_configs: [{targets: ['10.0.0.1:80', '10.0.0.2:80']}]\n"
         "  - job_name: bearer\n"
         "    authorization: {credentials: " +
         kBearer +
         "}\n"
         "    static_configs: [{targets: ['10.0.1.1:80']}]\n"
         "  - job_name: remote\n"
         "    http_sd_configs: [{url: 'http://scraper:" +
         kUrlPassword + "@127.0.0.1:" + std::to_string(unreachable_port) + "/sd', refresh_interval: 1s}]\n";
}

// Polls `path` until it holds `text`.
bool wait_for(const testutil::TempDir& dir, const std::string& name, const std::string& text) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (dir.read(name).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

}  // namespace

TEST_CASE("target-allocator logs config, discovery and collector changes, and no credential", "[allocation][log]") {
  for (const std::string format : {"logfmt", "json"}) {
    INFO(format);
    const bool json = format == "json";
    testutil::TempDir dir("ao-talog");
    const std::string path = dir.write("ta.yaml", config(testutil::unused_port()));
    k8s::sim::Child ta({"sh", "-c",
                        "exec " + std::string(AO_BIN_DIR) + "/target-allocator --config-file " + path +
                            " --listen-addr 127.0.0.1:0 --config-reload-interval 100ms --log-level debug "
                            "--log-format " +
                            format + " 2>" + dir.file("err")});
    REQUIRE(ta.read_until([](const std::string& out) { return out.find("listening on") != std::string::npos; },
                          std::chrono::seconds(30)));
    auto in_log = [&](const std::string& logfmt, const std::string& json_text) {
      return wait_for(dir, "err", json ? json_text : logfmt);
    };
    CHECK(in_log("component=config msg=loaded file=" + path + " generation=1 scrape_configs=3",
                 "\"component\":\"config\",\"msg\":\"loaded\""));
    CHECK(in_log("component=collectors msg=\"collectors changed\" collectors=2 added=c1,c2",
                 "\"msg\":\"collectors changed\",\"collectors\":2,\"added\":\"c1,c2\""));
    CHECK(in_log("component=discovery msg=\"targets changed\" job=secure targets=2 previous=0",
                 "\"msg\":\"targets changed\",\"job\":\"secure\",\"targets\":2,\"previous\":0"));
    CHECK(in_log("component=discovery msg=\"targets changed\" job=bearer targets=1 previous=0",
                 "\"job\":\"bearer\",\"targets\":1,\"previous\":0"));
    // The http_sd URL is logged without its password.
    CHECK(in_log("msg=\"http_sd poll failed; its last groups stay\"",
                 "\"msg\":\"http_sd poll failed; its last groups stay\""));
    CHECK(dir.read("err").find("scraper:<secret>@127.0.0.1") != std::string::npos);
    // A reload that drops a job, then one that is rejected (with the
    // password still in the file).
    std::ofstream(path) << "collectors: [c2]\nconfig:\n  scrape_configs:\n  - job_name: secure\n"
                           "    basic_auth: {username: scraper, password: "
                        << kPassword << "}\n    static_configs: [{targets: ['10.0.0.1:80']}]\n";
    CHECK(in_log("component=config msg=reloaded", "\"component\":\"config\",\"msg\":\"reloaded\""));
    CHECK(in_log("msg=\"collectors changed\" collectors=1 removed=c1", "\"collectors\":1,\"removed\":\"c1\""));
    CHECK(in_log("job=secure targets=1 previous=2", "\"job\":\"secure\",\"targets\":1,\"previous\":2"));
    CHECK(in_log("job=bearer targets=0 previous=1", "\"job\":\"bearer\",\"targets\":0,\"previous\":1"));
    std::ofstream(path) << "config:\n  scrape_configs:\n  - job_name: secure\n    basic_auth: {password: " << kPassword
                        << "}\n    relabel_configs: [{regex: '('}]\n";
    CHECK(in_log("level=error component=config msg=\"reload rejected; the previous config keeps serving\"",
                 "\"level\":\"error\",\"component\":\"config\",\"msg\":\"reload rejected; the previous config "
                 "keeps serving\""));
    CHECK(ta.terminate() == 0);
    const std::string err = dir.read("err");
    std::istringstream lines(err);
    for (std::string line; std::getline(lines, line);) {
      if (json)
        CHECK_NOTHROW(model::parse_json(line, "stderr line"));
      else
        CHECK(line.rfind("ts=", 0) == 0);
    }
    for (const std::string& value : {kPassword, kBearer, kUrlPassword, std::string("logtest")}) {
      INFO(value);
      CHECK(err.find(value) == std::string::npos);
      CHECK(err.find(model::base64_encode(value)) == std::string::npos);
    }
  }
}
