// Shared helpers for the client tests: an in-process simcluster served on
// a free port, a curl transport pointed at it, and waiting with deadlines.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "k8s/client/client.hpp"
#include "k8s/client/curl_transport.hpp"
#include "k8s/sim/server.hpp"
#include "tests/eventually.hpp"
#include "tests/k8s/sim/sim_fixture.hpp"

namespace clienttest {

using testutil::eventually;

// A Result delivered on the transport thread, awaited by the test thread.
class Pending {
 public:
  k8s::Callback callback() {
    return [this](k8s::Result r) {
      std::lock_guard lock(mutex_);
      result_ = std::move(r);
      ++calls_;
      cv_.notify_all();
    };
  }
  k8s::Result wait(std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    std::unique_lock lock(mutex_);
    if (!cv_.wait_for(lock, timeout, [this] { return result_.has_value(); }))
      throw std::runtime_error("no result within the timeout");
    return *result_;
  }
  int calls() {
    std::lock_guard lock(mutex_);
    return calls_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::optional<k8s::Result> result_;
  int calls_ = 0;
};

struct SimServer {
  simtest::SimFixture fixture;
  k8s::sim::Server server;
  std::string url;

  explicit SimServer(k8s::sim::ServerOptions o = {}) : server(fixture.cluster, o) {
    server.start();
    url = server.url();
  }
  k8s::ClusterConfig config() const {
    k8s::ClusterConfig c;
    c.server = url;
    return c;
  }
  k8s::sim::Cluster& cluster() { return fixture.cluster; }
};

// A fresh directory under /tmp, removed with everything in it.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "ao-client-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::filesystem::path p = path / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
    return p.string();
  }
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Issues a call synchronously: `start` gets the callback to pass on.
inline k8s::Result call(const std::function<void(k8s::Callback)>& start) {
  Pending p;
  start(p.callback());
  return p.wait();
}

}  // namespace clienttest
