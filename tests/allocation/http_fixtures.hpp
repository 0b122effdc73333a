// Shared helpers for the target allocator's HTTP tests: a raw-path GET, the
// addresses of an http_sd body, a free loopback port, child processes
// killed by PID on scope exit, and a real Prometheus (Debian's
// /usr/bin/prometheus) polled for what its http_sd discovered.
#pragma once

#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "model/parse.hpp"

namespace http_test {

// The client sends `path` as written (Prometheus sends '+' raw; httplib
// would otherwise encode it as %2B).
inline std::string get(httplib::Client& c, const std::string& path, int expect = 200) {
  c.set_url_encode(false);
  auto res = c.Get(path.c_str());
  REQUIRE(res);
  CHECK(res->status == expect);
  return res->body;
}

// The addresses in an http_sd body ([{"targets":[...],...}]).
inline std::set<std::string> addresses(const std::string& body) {
  std::set<std::string> out;
  const auto doc = model::parse_json(body);
  for (const auto& group : doc.as_array())
    for (const auto& t : group.find("targets")->as_array()) out.insert(t.as_string());
  return out;
}

// A port that was free a moment ago (bind to 0, read it back, close).
inline int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// A forked child; SIGTERM + waitpid by PID on destruction unless waited.
struct Child {
  pid_t pid = -1;
  int status = -1;
  ~Child() { terminate(); }
  void terminate() {
    if (pid <= 0) return;
    ::kill(pid, SIGTERM);
    ::waitpid(pid, &status, 0);
    pid = -1;
  }
};

// Forks and execs `argv` with stdout to `stdout_fd` (or /dev/null when -1)
// and stderr to /dev/null.
inline pid_t spawn(const std::vector<std::string>& argv, int stdout_fd = -1) {
  std::vector<char*> args;  // built before fork: the child only execs
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  int null = ::open("/dev/null", O_WRONLY);
  ::dup2(stdout_fd >= 0 ? stdout_fd : null, 1);
  ::dup2(null, 2);
  ::execv(args[0], args.data());
  ::_exit(127);
}

// The port of a target-allocator whose stdout is `fd`, from its first line
// ("listening on http://127.0.0.1:PORT"); -1 when it exits first.
inline int read_listening_port(int fd) {
  std::string line;
  char c = 0;
  while (::read(fd, &c, 1) == 1 && c != '\n') line += c;
  const std::string prefix = "listening on http://127.0.0.1:";
  return line.starts_with(prefix) ? std::stoi(line.substr(prefix.size())) : -1;
}

// Starts `argv` (a target-allocator command line listening on
// 127.0.0.1:0) as `child`; returns its port, or -1 when it exits first.
inline int start_allocator(Child& child, const std::vector<std::string>& argv) {
  int out[2];
  if (::pipe(out) != 0) return -1;
  child.pid = spawn(argv, out[1]);
  ::close(out[1]);
  const int port = read_listening_port(out[0]);
  ::close(out[0]);
  return port;
}

// The job names of a /scrape_configs body.
inline std::set<std::string> job_names(const std::string& scrape_configs) {
  std::set<std::string> out;
  const auto doc = model::parse_json(scrape_configs);
  for (const auto& [name, job] : doc.as_object()) out.insert(name);
  return out;
}

// Debian's Prometheus on `dir`/prometheus.yml, its TSDB in `dir`/data,
// listening on `port` (loopback); stopped with the returned Child.
inline Child start_prometheus(const std::filesystem::path& dir, int port) {
  return Child{spawn({"/usr/bin/prometheus", "--config.file=" + (dir / "prometheus.yml").string(),
                      "--storage.tsdb.path=" + (dir / "data").string(),
                      "--web.listen-address=127.0.0.1:" + std::to_string(port)})};
}

// Runs Prometheus with one job whose http_sd_configs url is
// http://127.0.0.1:<port><sd_path> (refresh 1s), polls /api/v1/targets for
// at most 20 s until the discovered addresses equal `expected`, and returns
// the last ones seen.
inline std::set<std::string> prometheus_discovers(int port, const std::string& job, const std::string& sd_path,
                                                  const std::set<std::string>& expected) {
  auto dir = std::filesystem::temp_directory_path() / ("ao-prom-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "prometheus.yml") << "global:\n  scrape_interval: 1h\nscrape_configs:\n  - job_name: " << job
                                        << "\n    http_sd_configs:\n      - url: http://127.0.0.1:" << port << sd_path
                                        << "\n        refresh_interval: 1s\n";
  const int prom_port = free_port();
  Child prometheus = start_prometheus(dir, prom_port);
  httplib::Client prom("127.0.0.1", prom_port);
  prom.set_connection_timeout(1);
  std::set<std::string> seen;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline && seen != expected) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    auto res = prom.Get("/api/v1/targets?state=active");
    if (!res || res->status != 200) continue;
    const auto doc = model::parse_json(res->body);
    seen.clear();
    for (const auto& t : doc.find("data")->find("activeTargets")->as_array())
      seen.insert(t.find("discoveredLabels")->find("__address__")->as_string());
  }
  prometheus.terminate();
  std::filesystem::remove_all(dir);
  return seen;
}

}  // namespace http_test
