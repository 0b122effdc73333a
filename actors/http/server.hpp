// The operator's HTTP server (cpp-httplib): /metrics, /healthz, /readyz
// (plus upstream's /-/healthy and /-/ready), /debug/hierarchy?agent=NS/NAME
// and any extra GET handlers registered before start(); every GET path
// also answers HEAD (httplib sends the headers without the body).
// Contract: an endpoint is served only when its source is set, except the
// health check, which answers "ok" when no callback is given. Callbacks run on
// the server's worker threads, concurrently, and must be thread-safe; an
// exception in one becomes a 500 with its message. start() binds, serves in a
// background thread and returns the bound port; stop() (or the destructor)
// closes the socket and joins. Sockets use TCP_NODELAY.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "actors/http/metrics.hpp"

namespace actors {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0 picks a free port
  // Each open connection holds a worker until it has been idle for the
  // keep-alive timeout (2 s) or silent past the read timeout (5 s): 256
  // keep probes answered while 200 slow or idle clients sit connected.
  int threads = 256;
};

// "HOST:PORT", ":PORT" (all interfaces) or "[V6]:PORT"; nullopt if malformed.
std::optional<HttpServerOptions> parse_listen_address(const std::string& text);

struct HttpRequest {
  std::string path;
  std::multimap<std::string, std::string> params;  // decoded query parameters
  std::string method = "GET";                      // GET or HEAD (HEAD answers without the body)
  std::multimap<std::string, std::string> headers;
  // The first header of that name (case-insensitive), or nullptr.
  const std::string* header(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;  // 304 is sent without a body
  std::string body;
  // Sent instead of `body` when set, without copying it (large shared answers).
  std::shared_ptr<const std::string> shared_body;
  // Sent instead of either when set: the views in order, never joined
  // (answers kept in chunks); `owner` keeps what they point into alive.
  struct Pieces {
    std::shared_ptr<const void> owner;
    std::vector<std::string_view> views;
    std::size_t size = 0;
  };
  std::optional<Pieces> pieces;
  std::string content_type = "text/plain; charset=utf-8";
  std::map<std::string, std::string> headers;  // extra response headers
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;
// Returns an empty string when the check passes, otherwise why it fails.
using HttpCheck = std::function<std::string()>;
// The hierarchy of GrafanaAgent namespace/name as JSON text; nullopt if unknown.
using HierarchyView = std::function<std::optional<std::string>(const std::string& ns, const std::string& name)>;

struct OperatorHttpSources {
  const OperatorMetrics* metrics = nullptr;  // must outlive the server
  HttpCheck healthy;                         // the process loop is alive
  HttpCheck ready;                           // the initial sync is done
  HierarchyView hierarchy;
};

class OperatorHttpServer {
 public:
  OperatorHttpServer(HttpServerOptions options, OperatorHttpSources sources);
  ~OperatorHttpServer();
  OperatorHttpServer(const OperatorHttpServer&) = delete;
  OperatorHttpServer& operator=(const OperatorHttpServer&) = delete;

  // Registers one more GET path (exact match). Throws std::logic_error after
  // start() or for a path already served.
  void add_get(const std::string& path, HttpHandler handler);

  // Throws std::runtime_error if the address cannot be bound.
  int start();
  void stop();
  int port() const { return port_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::thread thread_;
  int port_ = 0;
};

// Handler bodies, exposed for unit tests and for callers embedding the
// endpoints in another server.
HttpResponse check_response(const HttpCheck& check, bool absent_means_ok);
HttpResponse hierarchy_response(const HierarchyView& view, const HttpRequest& request);
// The ?agent=NAMESPACE/NAME parameter: its namespace and name, or the 400
// answer saying what is wrong. When absent: a 400 if required, else empty.
std::variant<HttpResponse, std::pair<std::string, std::string>> agent_param(const HttpRequest& request, bool required);

}  // namespace actors
