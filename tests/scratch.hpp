// Small fixtures several suites share: a loopback port nothing listens on,
// and a temporary directory removed with its contents at scope exit.
// Contract: unused_port() is free when it returns (bound, read, closed), so
// it suits "connection refused" tests and servers started right after;
// TempDir names are unique per process and object.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace testutil {

// A loopback port that refuses connections for as long as this object
// lives: the socket is bound but never listens, so no parallel test can
// take the port and answer (or hang) in its place, as with unused_port().
class RefusingPort {
 public:
  RefusingPort() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~RefusingPort() { ::close(fd_); }
  RefusingPort(const RefusingPort&) = delete;
  RefusingPort& operator=(const RefusingPort&) = delete;
  int port() const { return port_; }

 private:
  int fd_;
  int port_ = 0;
};

// A port that was free when this returned (bound, read, closed).
inline int unused_port() {
  return RefusingPort().port();
}

// Writes `text` to `name`-<pid> in the temporary directory and returns its path.
inline std::string write_temp_file(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  std::ofstream(path) << text;
  return path.string();
}

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& prefix = "ao-test") {
    path = std::filesystem::temp_directory_path() /
           (prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path / name).string(); }
  // Writes `text` to file(name) and returns that path.
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name), std::ios::trunc) << text;
    return file(name);
  }
  // The whole of file(name), "" when it does not exist.
  std::string read(const std::string& name) const {
    std::ifstream in(file(name));
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
};

}  // namespace testutil
