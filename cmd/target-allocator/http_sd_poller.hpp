// Polls one http_sd_configs URL on a background thread every
// refresh_interval and hands each successfully parsed response to a
// callback (Prometheus's HTTP SD: a failed poll keeps the previous groups).
// Contract: fetch() is one GET (cpp-httplib; http and https), checked and
// parsed by allocation/discovery/http_sd; it throws DiscoveryError naming
// the URL and the problem. The poller fetches once at start(), then every
// refresh_interval; stop() (also run by the destructor) wakes and joins the
// thread, and no callback runs after it returns. Callbacks run on the
// poller's thread.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "allocation/discovery/http_sd.hpp"

namespace target_allocator {

class HttpSdPoller {
 public:
  using Update = std::function<void(std::vector<allocation::discovery::SourcedGroup>)>;
  using Failure = std::function<void(const std::string&)>;

  HttpSdPoller(allocation::discovery::HttpSdConfig config, Update on_update, Failure on_error = {});
  ~HttpSdPoller();
  HttpSdPoller(const HttpSdPoller&) = delete;
  HttpSdPoller& operator=(const HttpSdPoller&) = delete;

  void start();
  void stop();

  static std::vector<allocation::discovery::SourcedGroup> fetch(const allocation::discovery::HttpSdConfig& config);

 private:
  void run();

  allocation::discovery::HttpSdConfig config_;
  Update on_update_;
  Failure on_error_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace target_allocator
