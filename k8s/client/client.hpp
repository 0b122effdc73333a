// The Kubernetes API client: typed verbs over an asynchronous Transport.
// Production uses CurlTransport (k8s/client/curl_transport.hpp): one curl
// multi loop on one I/O thread for every request and watch of the process.
// Contract: every callback runs on the transport's I/O thread and must not
// block (actors post a message and return). Calls are thread-safe. Retries
// of ErrorClass::retry_call (5xx, 429 honouring Retry-After, transport
// errors, timeouts) happen inside the client with exponential backoff and
// jitter, up to ClientOptions::max_retries; every other outcome, including
// 409 Conflict (retry_reconcile), is handed to the caller as a Result.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "k8s/client/resources.hpp"
#include "k8s/client/retry.hpp"
#include "k8s/client/transport.hpp"

namespace k8s {

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;  // "" = most recent
  std::string continue_token;
  std::size_t limit = 0;  // 0 = no pagination
};

enum class PatchType { merge, json, strategic, apply };
enum class Propagation { background, foreground, orphan };

struct ClientOptions {
  double qps = 50;                            // client-side rate limit (token bucket)
  double burst = 100;                         // bucket size
  std::chrono::milliseconds timeout{30'000};  // per non-watch request
  unsigned max_retries = 5;                   // for retry_call outcomes
  Backoff backoff{};
  std::string user_agent = "agent-operator";
  std::string field_manager = "agent-operator";
  // Called on the I/O thread after every HTTP attempt (retries included),
  // for metrics: method, status (0 = transport error), seconds. Must not block.
  std::function<void(const std::string& method, int status, double seconds)> on_request = {};
};

class Client {
 public:
  Client(std::shared_ptr<Transport> transport, ClientOptions options = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  void get(const Resource& r, std::string_view ns, std::string_view name, Callback cb);
  // One page; callers follow Result::continue_token (see list_all).
  void list(const Resource& r, std::string_view ns, const ListOptions& o, Callback cb);
  // Every page, concatenated into one List body's items; `cb` gets the last
  // page's resourceVersion in Result::resource_version.
  void list_all(const Resource& r, std::string_view ns, ListOptions o, Callback cb);
  void create(const Resource& r, std::string_view ns, std::string body, Callback cb);
  // PUT; the body's metadata.resourceVersion is the precondition (409 on mismatch).
  void update(const Resource& r, std::string_view ns, std::string_view name, std::string body, Callback cb,
              std::string_view subresource = {});
  void patch(const Resource& r, std::string_view ns, std::string_view name, PatchType type, std::string body,
             Callback cb, std::string_view subresource = {});
  void remove(const Resource& r, std::string_view ns, std::string_view name, Propagation p, Callback cb);

  // Streams watch events (one JSON object per line) to `on_line` until the
  // server ends the stream (`timeoutSeconds`), an error, or cancel(). It
  // asks for bookmarks (allowWatchBookmarks=true); limit and continue of
  // `o` are ignored.
  // Watches are not rate-limited or retried here: Reflector does that.
  StreamId watch(const Resource& r, std::string_view ns, const ListOptions& o, int timeout_seconds, LineHandler on_line,
                 Callback on_done);
  void cancel(StreamId id);

  Transport& transport() { return *transport_; }
  const ClientOptions& options() const { return options_; }

 private:
  struct Impl;
  std::shared_ptr<Transport> transport_;
  ClientOptions options_;
  std::shared_ptr<Impl> impl_;
};

}  // namespace k8s
