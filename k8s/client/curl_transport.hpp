// The production Transport: one background thread runs one curl multi
// handle for every request and watch stream of the process, so a thousand
// watches cost a thousand sockets, not a thousand threads.
// Contract: all Transport members are thread-safe; callbacks and posted
// functions run on the transport thread. The bearer token is sent on every
// request; with token_file it is re-read whenever the file's mtime or size
// changes (service-account rotation). Non-2xx answers carrying a Status
// object have its message in Result::error and its reason in
// Result::reason; a Retry-After header fills Result::retry_after. The
// destructor stops the loop: transfers in flight and queued ones complete
// with status 0 and error "transport stopped", and pending post_after
// functions run at once so that whatever they wrap can complete too. The
// last owner must not release the transport from its own I/O thread (the
// destructor joins that thread).
#pragma once

#include <memory>

#include "k8s/client/config.hpp"
#include "k8s/client/transport.hpp"

namespace k8s {

struct CurlOptions {
  std::string user_agent = "agent-operator";
  std::chrono::seconds keepalive_idle{30};      // TCP keepalive probes after this idle time
  std::chrono::seconds keepalive_interval{10};  // and then this often
  std::chrono::milliseconds connect_timeout{10'000};
  long max_connections = 0;  // per host; 0 = unlimited
  // Idle connections kept for reuse. 0 = libcurl's default, four per
  // transfer in flight, which closes most of a fan-out's connections as
  // its last transfers end.
  long max_idle_connections = 0;
  // 0 = libcurl's DNS cache, which walks every entry on every request. > 0:
  // entries are never pruned one by one; the whole cache is replaced this
  // often instead, so a fan-out over N hosts costs N lookups, not N².
  std::chrono::seconds dns_cache_epoch{0};
  // The loop thread's nice value (0: the process's). A fan-out waits for
  // its slowest pod anyway, so a few ms of CPU later cost it nothing, while
  // the threads answering its pollers share the same cores.
  int nice = 0;
};

// For a transport that asks many hosts at once (the integrations SD
// fan-out over every pod): connections kept for `hosts`, the epoch cache.
CurlOptions many_hosts_options(long hosts);

inline constexpr const char* kTransportStopped = "transport stopped";
inline constexpr const char* kTransportCancelled = "cancelled";

std::shared_ptr<Transport> make_curl_transport(const ClusterConfig& config, CurlOptions options = {});

// Splits a chunked body into lines: feed() calls `on_line` for every
// complete line that is not blank (a lone "\r" counts as blank) and keeps
// the rest for the next chunk. Exposed for tests.
class LineSplitter {
 public:
  template <typename F>
  void feed(std::string_view chunk, F&& on_line) {
    std::size_t start = 0;
    for (std::size_t nl = chunk.find('\n'); nl != std::string_view::npos; nl = chunk.find('\n', start)) {
      std::string_view piece = chunk.substr(start, nl - start);
      start = nl + 1;
      if (!pending_.empty()) {
        pending_.append(piece);
        emit(pending_, on_line);
        pending_.clear();
      } else {
        emit(piece, on_line);
      }
    }
    pending_.append(chunk.substr(start));
  }
  std::size_t pending() const { return pending_.size(); }

 private:
  template <typename F>
  static void emit(std::string_view line, F& on_line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) return;
    on_line(line);
  }
  std::string pending_;
};

}  // namespace k8s
