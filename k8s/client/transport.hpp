// The HTTP seam of the client: an asynchronous request/stream interface.
// CurlTransport implements it on one curl multi loop; tests may substitute
// a fake. Contract: `send` completes exactly once through its callback;
// `stream` calls `on_line` for every complete newline-terminated line
// (blank lines skipped) and then `on_done` exactly once, also after
// cancel(). Callbacks run on the transport's I/O thread. `post` and
// `post_after` run a function on that thread (now, or after a delay), which
// is how retries and re-watches wait without blocking anyone.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "k8s/client/retry.hpp"

namespace k8s {

struct Request {
  std::string method = "GET";  // GET, POST, PUT, PATCH, DELETE
  std::string path;            // "/api/v1/namespaces/default/secrets"
  std::string query;           // without '?', already escaped
  std::string body;
  std::string content_type = "application/json";
  std::chrono::milliseconds timeout{0};  // 0 = none (watches)
  std::string user_agent;                // "" = the transport's default
  std::size_t max_body = 0;              // 0 = no limit; a longer body ends the request (Result::too_large)
};

struct Result {
  int status = 0;                            // HTTP status; 0 = transport error or timeout
  std::string body;                          // the response body (a Status object on API errors)
  std::string error;                         // transport error text, or the Status message
  std::string reason;                        // the Status reason: "Conflict", "NotFound", "Expired"...
  std::chrono::milliseconds retry_after{0};  // from a Retry-After header
  std::string resource_version;              // list results: metadata.resourceVersion
  std::string continue_token;                // list results: metadata.continue
  unsigned attempts = 1;                     // including retries made by Client
  std::string content_type;                  // the response's Content-Type header
  bool timed_out = false;                    // Request::timeout (or the connect timeout) ran out
  bool too_large = false;                    // the body passed Request::max_body
  bool ok() const { return status >= 200 && status < 300; }
  ErrorClass error_class() const { return ok() ? ErrorClass::ok : classify(status); }
};

using Callback = std::function<void(Result)>;
using LineHandler = std::function<void(std::string_view line)>;
using StreamId = std::uint64_t;

class Transport {
 public:
  virtual ~Transport() = default;
  virtual void send(Request req, Callback cb) = 0;
  virtual StreamId stream(Request req, LineHandler on_line, Callback on_done) = 0;
  virtual void cancel(StreamId id) = 0;
  virtual void post(std::function<void()> fn) = 0;
  virtual void post_after(std::chrono::milliseconds delay, std::function<void()> fn) = 0;
  // Whether the caller is on the I/O thread (where waiting for a posted
  // function would deadlock). Fakes that run everything inline keep false.
  virtual bool in_io_thread() const { return false; }
};

}  // namespace k8s
