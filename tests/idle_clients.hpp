// Test helper: connections that sit idle (or send half a request and stall)
// against a local HTTP server, to check that slow clients cannot starve
// health and readiness probes.
// Contract: the sockets are connected when the constructor returns and are
// closed by the destructor.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace testutil {

class IdleClients {
 public:
  // `n` connections; every other one sends the start of a request and stops.
  IdleClients(int port, int n) {
    for (int i = 0; i < n; ++i) {
      int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(static_cast<std::uint16_t>(port));
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        if (fd >= 0) ::close(fd);
        throw std::runtime_error("connect " + std::to_string(i) + " failed");
      }
      if (i % 2 == 1) {
        const std::string partial = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
        if (::write(fd, partial.data(), partial.size()) < 0) throw std::runtime_error("write failed");
      }
      fds_.push_back(fd);
    }
  }
  ~IdleClients() {
    for (int fd : fds_) ::close(fd);
  }
  IdleClients(const IdleClients&) = delete;
  IdleClients& operator=(const IdleClients&) = delete;

 private:
  std::vector<int> fds_;
};

}  // namespace testutil
