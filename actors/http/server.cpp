#include "actors/http/server.hpp"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <iterator>
#include <stdexcept>

#include "model/http_sd.hpp"
#include "model/listen_address.hpp"
#include "model/names.hpp"

namespace actors {

namespace {

// Debian's cpp-httplib 0.11 is a compiled library that listens with a
// backlog of 5, so a burst of connections is dropped (the client's SYN is
// retried a second later). Listening again on the bound socket raises it.
struct BacklogAccess : httplib::Server {
  static void raise(httplib::Server& server, int backlog) { ::listen(server.*(&BacklogAccess::svr_sock_), backlog); }
};
constexpr int kListenBacklog = 1024;

HttpResponse text(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

HttpResponse metrics_response(const OperatorMetrics& metrics) {
  HttpResponse r;
  r.body = metrics.render();
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  return r;
}

}  // namespace

std::optional<HttpServerOptions> parse_listen_address(const std::string& address) {
  auto parsed = model::parse_listen_address(address);
  if (!parsed) return std::nullopt;
  HttpServerOptions out;
  out.host = parsed->host;
  out.port = parsed->port;
  return out;
}

HttpResponse check_response(const HttpCheck& check, bool absent_means_ok) {
  if (!check) return absent_means_ok ? text(200, "ok\n") : text(503, "no check configured\n");
  std::string problem = check();
  return problem.empty() ? text(200, "ok\n") : text(503, problem + "\n");
}

std::variant<HttpResponse, std::pair<std::string, std::string>> agent_param(const HttpRequest& request, bool required) {
  auto [first, last] = request.params.equal_range("agent");
  if (first == last) {
    if (required) return text(400, "missing query parameter: agent=NAMESPACE/NAME (the GrafanaAgent to show)\n");
    return std::pair<std::string, std::string>{};
  }
  if (std::next(first) != last) return text(400, "query parameter agent given more than once\n");
  const std::string& agent = first->second;
  std::size_t slash = agent.find('/');
  if (slash == std::string::npos) return text(400, "malformed agent \"" + agent + "\": want NAMESPACE/NAME\n");
  std::string ns = agent.substr(0, slash), name = agent.substr(slash + 1);
  if (!model::dns_label_problem(ns).empty())
    return text(400, "malformed agent \"" + agent + "\": invalid namespace \"" + ns + "\"\n");
  if (!model::dns_subdomain_problem(name).empty())
    return text(400, "malformed agent \"" + agent + "\": invalid name \"" + name + "\"\n");
  return std::pair{ns, name};
}

const std::string* HttpRequest::header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (k.size() == name.size() && std::equal(k.begin(), k.end(), name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        }))
      return &v;
  return nullptr;
}

HttpResponse hierarchy_response(const HierarchyView& view, const HttpRequest& request) {
  auto agent = agent_param(request, true);
  if (auto* error = std::get_if<HttpResponse>(&agent)) return *error;
  const auto& [ns, name] = std::get<1>(agent);
  std::optional<std::string> json = view(ns, name);
  if (!json) return text(404, "GrafanaAgent " + ns + "/" + name + " not found\n");
  HttpResponse r;
  r.body = std::move(*json);
  r.content_type = "application/json";
  return r;
}

namespace {

void send_pieces(httplib::Response& res, HttpResponse::Pieces pieces, const std::string& content_type) {
  auto shared = std::make_shared<const HttpResponse::Pieces>(std::move(pieces));
  res.set_content_provider(
      shared->size, content_type.c_str(), [shared](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
        return model::write_pieces(shared->views, offset, length,
                                   [&sink](const char* d, std::size_t n) { return sink.write(d, n); });
      });
}

}  // namespace

struct OperatorHttpServer::Impl {
  HttpServerOptions options;
  httplib::Server server;
  std::map<std::string, HttpHandler> handlers;
  std::atomic<bool> started{false};
  std::atomic<bool> exited{false};

  void dispatch(const httplib::Request& req, httplib::Response& res) const {
    auto it = handlers.find(req.path);
    HttpResponse out;
    if (it == handlers.end()) {
      out = text(404, "not found: " + req.path + "\n");
    } else {
      try {
        out = it->second(HttpRequest{req.path, req.params, req.method, {req.headers.begin(), req.headers.end()}});
      } catch (const std::exception& e) {
        out = text(500, std::string("internal error: ") + e.what() + "\n");
      }
    }
    res.status = out.status;
    for (const auto& [k, v] : out.headers) res.set_header(k.c_str(), v);
    if (out.status == 304) return;
    if (out.pieces) return send_pieces(res, std::move(*out.pieces), out.content_type);
    if (!out.shared_body) {
      res.set_content(out.body, out.content_type.c_str());
      return;
    }
    std::shared_ptr<const std::string> body = std::move(out.shared_body);
    res.set_content_provider(body->size(), out.content_type.c_str(),
                             [body](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                               return sink.write(body->data() + offset, length);
                             });
  }
};

OperatorHttpServer::OperatorHttpServer(HttpServerOptions options, OperatorHttpSources sources)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  if (const OperatorMetrics* m = sources.metrics)
    add_get("/metrics", [m](const HttpRequest&) { return metrics_response(*m); });
  auto healthy = [check = sources.healthy](const HttpRequest&) { return check_response(check, true); };
  add_get("/healthz", healthy);
  add_get("/-/healthy", healthy);
  if (sources.ready) {
    auto ready = [check = sources.ready](const HttpRequest&) { return check_response(check, false); };
    add_get("/readyz", ready);
    add_get("/-/ready", ready);
  }
  if (sources.hierarchy)
    add_get("/debug/hierarchy",
            [view = sources.hierarchy](const HttpRequest& r) { return hierarchy_response(view, r); });
}

OperatorHttpServer::~OperatorHttpServer() {
  stop();
}

void OperatorHttpServer::add_get(const std::string& path, HttpHandler handler) {
  if (impl_->started) throw std::logic_error("add_get(" + path + ") after start()");
  if (!impl_->handlers.emplace(path, std::move(handler)).second) throw std::logic_error("path already served: " + path);
}

int OperatorHttpServer::start() {
  if (impl_->started.exchange(true)) throw std::logic_error("OperatorHttpServer started twice");
  Impl& im = *impl_;
  int threads = im.options.threads > 0 ? im.options.threads : 1;
  im.server.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<std::size_t>(threads)); };
  im.server.set_keep_alive_timeout(2);  // bounds how long stop() waits for idle clients
  im.server.set_read_timeout(5, 0);
  im.server.set_write_timeout(5, 0);
  // httplib's default adds SO_REUSEPORT, which would let a second operator
  // silently share (and answer probes on) this port.
  im.server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  // Without TCP_NODELAY, a body sent after its headers waits for the ACK of
  // the headers, and a client that has nothing to send delays that ACK by
  // up to 40 ms: every SD answer and scrape of /metrics paid it (Nagle's
  // algorithm meeting delayed ACKs). Accepted sockets inherit the option.
  im.server.set_tcp_nodelay(true);
  // One route; dispatch() owns the path table, so paths need no regex escaping.
  im.server.Get(".*", [&im](const httplib::Request& req, httplib::Response& res) { im.dispatch(req, res); });
  const std::string& host = im.options.host.empty() ? "0.0.0.0" : im.options.host;
  if (im.options.port == 0) {
    port_ = im.server.bind_to_any_port(host);
  } else {
    port_ = im.server.bind_to_port(host, im.options.port) ? im.options.port : -1;
  }
  if (port_ < 0) throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(im.options.port));
  BacklogAccess::raise(im.server, kListenBacklog);
  thread_ = std::thread([&im] {
    im.server.listen_after_bind();
    im.exited = true;
  });
  // httplib's stop() does nothing until the accept loop runs; wait for it so
  // that an early stop() cannot leave the thread serving forever.
  while (!im.server.is_running() && !im.exited) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return port_;
}

void OperatorHttpServer::stop() {
  if (!thread_.joinable()) return;
  impl_->server.stop();
  thread_.join();
}

}  // namespace actors
