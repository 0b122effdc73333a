// HttpSdPoller: one cpp-httplib GET per refresh interval.
#include "http_sd_poller.hpp"

#include <httplib.h>

#include <algorithm>

namespace target_allocator {

namespace {

using allocation::discovery::DiscoveryError;

// "scheme://host[:port]" and the rest ("/path?query", "/" when empty).
std::pair<std::string, std::string> split_url(const std::string& url) {
  const auto host_start = url.find("://") + 3;
  const auto path_start = url.find_first_of("/?", host_start);
  if (path_start == std::string::npos) return {url, "/"};
  std::string path = url.substr(path_start);
  if (path.front() == '?') path = "/" + path;
  return {url.substr(0, path_start), path};
}

}  // namespace

std::vector<allocation::discovery::SourcedGroup> HttpSdPoller::fetch(
    const allocation::discovery::HttpSdConfig& config) {
  const auto [origin, path] = split_url(config.url);
  httplib::Client client(origin);
  client.set_url_encode(false);  // the configured URL is sent as written
  const auto timeout =
      std::max<std::int64_t>(1, std::chrono::duration_cast<std::chrono::seconds>(config.refresh_interval).count());
  client.set_connection_timeout(std::min<std::int64_t>(timeout, 10), 0);
  client.set_read_timeout(std::min<std::int64_t>(timeout, 10), 0);  // bounds how long stop() can wait
  const httplib::Headers headers = {
      {"Accept", "application/json"},
      {"User-Agent", "agent-operator-target-allocator"},
      {"X-Prometheus-Refresh-Interval-Seconds", std::to_string(config.refresh_interval.count() / 1000)}};
  auto res = client.Get(path.c_str(), headers);
  if (!res) throw DiscoveryError(config.url + ": " + httplib::to_string(res.error()));
  try {
    allocation::discovery::check_http_sd_response(res->status, res->get_header_value("Content-Type"));
    return allocation::discovery::parse_http_sd(res->body, config.url);
  } catch (const DiscoveryError& e) {
    throw DiscoveryError(config.url + ": " + e.what());
  }
}

HttpSdPoller::HttpSdPoller(allocation::discovery::HttpSdConfig config, Update on_update, Failure on_error)
    : config_(std::move(config)), on_update_(std::move(on_update)), on_error_(std::move(on_error)) {}

HttpSdPoller::~HttpSdPoller() {
  stop();
}

void HttpSdPoller::start() {
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
}

void HttpSdPoller::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void HttpSdPoller::run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    try {
      auto groups = fetch(config_);
      if (on_update_) on_update_(std::move(groups));
    } catch (const std::exception& e) {
      if (on_error_) on_error_(e.what());
    }
    lock.lock();
    cv_.wait_for(lock, config_.refresh_interval, [this] { return stopping_; });
  }
}

}  // namespace target_allocator
