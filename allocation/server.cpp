// AllocationServer: immutable snapshots served by cpp-httplib.
#include "allocation/server.hpp"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "model/http_sd.hpp"

namespace allocation {

namespace {

// Debian's cpp-httplib 0.11 is a compiled library that listens with a
// backlog of 5, so a burst of connections is dropped (the client's SYN is
// retried a second later). Listening again on the bound socket raises it.
struct BacklogAccess : httplib::Server {
  static void raise(httplib::Server& server, int backlog) { ::listen(server.*(&BacklogAccess::svr_sock_), backlog); }
};
constexpr int kListenBacklog = 1024;

// Runs the accept loop on its own thread and returns once it is running:
// httplib's stop() is a no-op before that, so an early stop() would leave
// the thread serving forever and its join() hanging.
std::thread run_listener(httplib::Server& server) {
  auto exited = std::make_shared<std::atomic<bool>>(false);
  std::thread t([&server, exited] {
    server.listen_after_bind();
    exited->store(true);
  });
  while (!server.is_running() && !exited->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return t;
}

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};
using BodyMap = std::unordered_map<std::string, ResponseCache::Body, StringHash, std::equal_to<>>;

// Everything a request can ask for, built once per publish().
struct Snapshot {
  std::string scrape_configs;
  std::string scrape_configs_unmasked;  // only with an https listener
  std::string jobs;
  std::unordered_map<std::string, std::shared_ptr<const JobBody>, StringHash, std::equal_to<>>
      job_targets;            // job -> body, assembled on first request
  BodyMap collector_targets;  // collector + '\0' + job -> body
};

const std::string kEmptyObject = "{}\n";

// Tags the answer with `etag` and answers 304 without a body when the
// client's If-None-Match names it (pollers other than Prometheus
// revalidate so); true when it did.
bool not_modified(const httplib::Request& req, httplib::Response& res, const std::string& etag) {
  res.set_header("ETag", etag);
  res.set_header("Cache-Control", "no-cache");
  if (!req.has_header("If-None-Match") || !model::etag_matches(req.get_header_value("If-None-Match"), etag))
    return false;
  res.status = 304;
  return true;
}

// Sends `body` with its ETag, or 304.
void send_tagged(const httplib::Request& req, httplib::Response& res, const std::string& body,
                 const std::string& etag) {
  if (!not_modified(req, res, etag)) res.set_content(body, "application/json");
}

// Go's url.QueryUnescape-like decoding of one path segment ('+' is a space,
// matching the links query_escape() writes).
std::string unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The raw job segment of "/jobs/<job>/targets[?...]", or false.
bool job_from_target(std::string_view target, std::string& job) {
  target = target.substr(0, target.find('?'));
  constexpr std::string_view prefix = "/jobs/", suffix = "/targets";
  if (!target.starts_with(prefix) || !target.ends_with(suffix)) return false;
  auto raw = target.substr(prefix.size(), target.size() - prefix.size() - suffix.size());
  if (raw.empty() || raw.find('/') != std::string_view::npos) return false;
  job = unescape(raw);
  return true;
}

// A collector's body, sent chunk by chunk without joining them, or its
// gzip form (compressed once per body, on first request) when the client
// accepts it. httplib compresses only bodies it holds whole, never a
// provider's.
void send_targets(const httplib::Request& req, httplib::Response& res, ResponseCache::Body body) {
  const bool gzip = model::accepts_gzip(req.get_header_value("Accept-Encoding"));
  res.set_header("Vary", "Accept-Encoding");
  if (not_modified(req, res, gzip ? body->gzip_etag() : body->etag())) return;
  if (gzip) res.set_header("Content-Encoding", "gzip");
  auto pieces = std::make_shared<const std::vector<std::string_view>>(
      gzip ? std::vector<std::string_view>{body->gzipped()} : body->pieces());
  const std::size_t size = gzip ? body->gzipped().size() : body->size();
  res.set_content_provider(
      size, "application/json",
      [body = std::move(body), pieces](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
        return model::write_pieces(*pieces, offset, length,
                                   [&sink](const char* d, std::size_t n) { return sink.write(d, n); });
      });
}

void send_json(httplib::Response& res, const std::string& body) {
  res.set_content(body, "application/json");
}

}  // namespace

struct AllocationServer::Impl {
  httplib::Server http;
  std::unique_ptr<httplib::SSLServer> https;
  std::thread https_thread;
  AllocatorMetrics metrics{"/livez", "/readyz", "/metrics", "/scrape_configs", "/jobs", "/jobs/:job_id/targets"};
  std::thread thread;
  std::atomic<std::shared_ptr<const Snapshot>> snapshot;
  bool require_leadership = false;
  std::atomic<bool> leading{false};
  ResponseCache cache;  // publisher thread only

  // `unmasked`: /scrape_configs with credentials (the mTLS listener).
  void install_routes(httplib::Server& server, bool unmasked);
  // Registers `handler` for `pattern`, timed under the route name `path`.
  void get(httplib::Server& server, const std::string& pattern, std::string_view path,
           httplib::Server::Handler handler);
  void serve_job_targets(const httplib::Request& req, httplib::Response& res) const;
};

void AllocationServer::Impl::serve_job_targets(const httplib::Request& req, httplib::Response& res) const {
  std::string job;
  if (!job_from_target(req.target, job)) {
    res.status = 404;
    return;
  }
  static const std::string empty_object_etag = body_etag(kEmptyObject);
  auto snap = snapshot.load();
  if (!req.has_param("collector_id")) {
    auto it = snap ? snap->job_targets.find(job) : decltype(snap->job_targets)::const_iterator();
    if (!snap || it == snap->job_targets.end()) return send_tagged(req, res, kEmptyObject, empty_object_etag);
    return send_tagged(req, res, it->second->body(), it->second->etag());
  }
  const std::string key = req.get_param_value("collector_id") + '\0' + job;
  auto it = snap ? snap->collector_targets.find(key) : BodyMap::const_iterator();
  send_targets(req, res, !snap || it == snap->collector_targets.end() ? TargetsBody::empty() : it->second);
}

void AllocationServer::Impl::get(httplib::Server& server, const std::string& pattern, std::string_view path,
                                 httplib::Server::Handler handler) {
  server.Get(pattern, [this, path, handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
    const auto start = std::chrono::steady_clock::now();
    handler(req, res);
    metrics.observe_http(path, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  });
}

constexpr std::size_t kHttpWorkers = 256;

void AllocationServer::Impl::install_routes(httplib::Server& server, bool unmasked) {
  server.set_tcp_nodelay(true);
  // A connection holds a worker until idle past keep-alive (2 s) or silent
  // past the read timeout (5 s); enough workers that 200 idle collectors
  // or slow clients cannot starve /readyz and /livez.
  server.new_task_queue = [] { return new httplib::ThreadPool(kHttpWorkers); };
  server.set_keep_alive_timeout(2);
  server.set_read_timeout(5, 0);
  server.set_write_timeout(5, 0);
  auto get = [&](const std::string& pattern, std::string_view path, httplib::Server::Handler handler) {
    this->get(server, pattern, path, std::move(handler));
  };
  // /-/healthy and /-/ready as Prometheus and the Grafana Agent spell them,
  // so probes written for either work; timed under /livez and /readyz.
  auto live = [](const httplib::Request&, httplib::Response& res) { res.set_content("ok\n", "text/plain"); };
  auto ready = [this](const httplib::Request&, httplib::Response& res) {
    const bool published = snapshot.load() != nullptr;
    const bool standby = require_leadership && !leading.load();
    res.status = published && !standby ? 200 : 503;
    res.set_content(!published ? "no allocation yet\n" : standby ? "standby: not the leader\n" : "ok\n", "text/plain");
  };
  get("/livez", "/livez", live);
  get("/-/healthy", "/livez", live);
  get("/readyz", "/readyz", ready);
  get("/-/ready", "/readyz", ready);
  get("/metrics", "/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics.render(), "text/plain; version=0.0.4; charset=utf-8");
  });
  get("/scrape_configs", "/scrape_configs", [this, unmasked](const httplib::Request&, httplib::Response& res) {
    auto snap = snapshot.load();
    send_json(res, !snap ? kEmptyObject : unmasked ? snap->scrape_configs_unmasked : snap->scrape_configs);
  });
  get("/jobs", "/jobs", [this](const httplib::Request&, httplib::Response& res) {
    auto snap = snapshot.load();
    send_json(res, snap ? snap->jobs : kEmptyObject);
  });
  get(R"(/jobs/.+/targets)", "/jobs/:job_id/targets",
      [this](const httplib::Request& req, httplib::Response& res) { serve_job_targets(req, res); });
}

AllocationServer::AllocationServer(ServerOptions options)
    : impl_(std::make_unique<Impl>()), options_(std::move(options)) {
  impl_->require_leadership = options_.require_leadership;
  impl_->install_routes(impl_->http, false);
  if (const auto& tls = options_.https) {
    impl_->https = std::make_unique<httplib::SSLServer>(tls->cert_file.c_str(), tls->key_file.c_str(),
                                                        tls->client_ca_file.c_str());
    impl_->install_routes(*impl_->https, true);
  }
}

AllocationServer::~AllocationServer() {
  stop();
}

void AllocationServer::publish(const Allocator& a, const model::Value& scrape_configs) {
  auto snap = std::make_shared<Snapshot>();
  snap->scrape_configs = scrape_configs_json(scrape_configs);
  if (impl_->https) snap->scrape_configs_unmasked = scrape_configs_json(scrape_configs, false);
  snap->jobs = jobs_json(a);
  for (Name job : a.jobs()) {
    snap->job_targets.emplace(std::string(job.text()), impl_->cache.job_targets(a, job));
    for (const auto& c : a.collectors()) {
      if (!a.bucket(c.name, job)) continue;  // served as "[]"
      std::string key = c.name;
      key += '\0';
      key += job.text();
      snap->collector_targets.emplace(std::move(key), impl_->cache.collector_targets(a, c.name, job.text()));
    }
  }
  impl_->cache.prune(a);
  impl_->snapshot.store(std::move(snap));
  impl_->metrics.observe_allocation(a);
}

void AllocationServer::set_leading(bool leading) {
  impl_->leading.store(leading);
}

AllocatorMetrics& AllocationServer::metrics() {
  return impl_->metrics;
}

int AllocationServer::start() {
  auto& http = impl_->http;
  port_ = options_.port == 0 ? http.bind_to_any_port(options_.host)
                             : (http.bind_to_port(options_.host, options_.port) ? options_.port : -1);
  if (port_ <= 0) throw std::runtime_error("cannot listen on " + options_.host + ":" + std::to_string(options_.port));
  BacklogAccess::raise(http, kListenBacklog);
  if (auto& https = impl_->https) start_https(*https, *options_.https);
  impl_->thread = run_listener(http);
  return port_;
}

void AllocationServer::start_https(httplib::SSLServer& https, const HttpsOptions& tls) {
  // httplib reports only "invalid"; name the files so the operator can check them.
  if (!https.is_valid())
    throw std::runtime_error("cannot load TLS files: certificate " + tls.cert_file + ", key " + tls.key_file +
                             ", client CA " + tls.client_ca_file);
  https_port_ =
      tls.port == 0 ? https.bind_to_any_port(tls.host) : (https.bind_to_port(tls.host, tls.port) ? tls.port : -1);
  if (https_port_ <= 0) throw std::runtime_error("cannot listen on " + tls.host + ":" + std::to_string(tls.port));
  BacklogAccess::raise(https, kListenBacklog);
  impl_->https_thread = run_listener(https);
}

void AllocationServer::stop() {
  if (!impl_) return;
  impl_->http.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  if (impl_->https) impl_->https->stop();
  if (impl_->https_thread.joinable()) impl_->https_thread.join();
}

}  // namespace allocation
