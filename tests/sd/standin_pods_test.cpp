// The stand-in pods' sockets: answers over keep-alive connections, and a
// process out of file descriptors pauses accepting instead of spinning on
// a listener that stays readable.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "sd/standin_pods.hpp"

namespace {

bool connect_fd(int fd, const std::string& address) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(std::stoi(address.substr(address.find(':') + 1))));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
}

int connect_to(const std::string& address) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (connect_fd(fd, address)) return fd;
  if (fd >= 0) ::close(fd);
  return -1;
}

int highest_open_fd() {
  int highest = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd"))
    highest = std::max(highest, std::stoi(e.path().filename().string()));
  return highest;
}

// Sends one request and reads until the body ends (Content-Length) or
// 5 s pass without data.
std::string ask(int fd) {
  const std::string req = "GET /agent/api/v1/metrics/integrations/sd HTTP/1.1\r\nHost: x\r\n\r\n";
  if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size())) return "";
  std::string got;
  char buf[4096];
  pollfd p{fd, POLLIN, 0};
  while (::poll(&p, 1, 5000) == 1) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
    auto head_end = got.find("\r\n\r\n");
    auto cl = got.find("Content-Length: ");
    if (head_end != std::string::npos && cl != std::string::npos &&
        got.size() >= head_end + 4 + std::stoul(got.substr(cl + 16)))
      break;
  }
  return got;
}

struct NoFileLimit {
  rlimit saved{};
  explicit NoFileLimit(rlim_t soft) {
    ::getrlimit(RLIMIT_NOFILE, &saved);
    rlimit lowered = saved;
    lowered.rlim_cur = soft;
    ::setrlimit(RLIMIT_NOFILE, &lowered);
  }
  ~NoFileLimit() { ::setrlimit(RLIMIT_NOFILE, &saved); }
};

}  // namespace

TEST_CASE("a stand-in pod answers each request on a kept-alive connection", "[sd][standin]") {
  sd::StandinBehaviour b;
  b.body = R"([{"targets":["a:1"],"labels":{}}])";
  sd::StandinPods pods({b});
  int fd = connect_to(pods.addresses().at(0));
  REQUIRE(fd >= 0);
  for (int i = 0; i < 3; ++i) {
    std::string got = ask(fd);
    CHECK(got.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
    CHECK(got.substr(got.size() - b.body.size()) == b.body);
  }
  ::close(fd);
  CHECK(pods.requests() == 3);
  CHECK(pods.connections() == 1);
}

TEST_CASE("out of file descriptors, a stand-in pod pauses accepting and serves again once some are free",
          "[sd][standin]") {
  sd::StandinPods pods({sd::StandinBehaviour{}});
  std::vector<int> clients;
  for (int i = 0; i < 3; ++i) clients.push_back(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  std::vector<int> fillers;
  {
    // No descriptor left to open: the limit sits just above the highest
    // open one, and dups fill every hole below it.
    NoFileLimit limit(static_cast<rlim_t>(highest_open_fd()) + 1);
    for (int fd; (fd = ::dup(0)) >= 0;) fillers.push_back(fd);
    for (int fd : clients) REQUIRE(connect_fd(fd, pods.addresses().at(0)));
    // The loop now has connections it cannot accept. Spinning on the
    // listener would fail accept() thousands of times in this window.
    std::this_thread::sleep_for(std::chrono::milliseconds(350));
    CHECK(pods.accept_failures() >= 1);
    CHECK(pods.accept_failures() <= 10);
  }
  for (int fd : fillers) ::close(fd);
  for (int fd : clients) CHECK(ask(fd).rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  for (int fd : clients) ::close(fd);
  CHECK(pods.connections() == 3);
}
