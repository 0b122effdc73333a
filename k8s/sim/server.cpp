#include "k8s/sim/server.hpp"

#include <sys/socket.h>

#include <httplib.h>
#include <openssl/pem.h>
#include <condition_variable>
#include <deque>
#include <stdexcept>
#include <thread>

#include "k8s/sim/access.hpp"
#include "k8s/sim/api_error.hpp"
#include "k8s/sim/audit.hpp"
#include "k8s/sim/loader.hpp"
#include "model/yaml_emit.hpp"

namespace k8s::sim {

namespace {

// A task queue that starts a thread whenever no worker is idle, so a
// long-lived watch never blocks other requests.
class ElasticPool : public httplib::TaskQueue {
 public:
  explicit ElasticPool(std::size_t max_threads) : max_(max_threads) {}
  ~ElasticPool() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(fn));
    // Idle workers that have not woken yet each take one queued job; start
    // a thread for every job beyond them (a burst of watches would
    // otherwise queue behind one long-lived stream).
    if (jobs_.size() > idle_ && threads_.size() < max_) threads_.emplace_back([this] { work(); });
    cv_.notify_one();
  }

  void shutdown() override {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      stopping_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ++idle_;
      cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      --idle_;
      if (jobs_.empty()) return;  // stopping
      auto fn = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      fn();
      lock.lock();
    }
  }

  std::size_t max_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;
  bool stopping_ = false;
};

// Reaches the listening socket of any httplib::Server (plain or SSL) so
// the backlog can be raised after bind.
struct SocketAccess : httplib::Server {
  static void raise_backlog(httplib::Server& server, int backlog) {
    ::listen(server.*(&SocketAccess::svr_sock_), backlog);
  }
};

std::unique_ptr<httplib::Server> make_https(const TlsMaterial& tls) {
  auto read = [](const std::string& pem, auto reader) {
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    auto* out = reader(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    if (!out) throw std::runtime_error("tls: cannot read PEM");
    return out;
  };
  X509* cert = read(tls.cert_pem, PEM_read_bio_X509);
  EVP_PKEY* key = read(tls.key_pem, PEM_read_bio_PrivateKey);
  auto server = std::make_unique<httplib::SSLServer>(cert, key);  // takes its own references
  X509_free(cert);
  EVP_PKEY_free(key);
  if (!server->is_valid()) throw std::runtime_error("tls: the certificate and key do not match");
  return server;
}

HttpRequest to_request(const httplib::Request& req) {
  HttpRequest r;
  r.method = req.method;
  r.path = req.path;
  for (const auto& [k, v] : req.params) r.query.emplace(k, v);
  r.accept = req.get_header_value("Accept");
  r.content_type = req.get_header_value("Content-Type");
  r.body = req.body;
  return r;
}

std::string warning_header(const std::string& text) {
  std::string out = "299 - \"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

void stream_watch(httplib::Response& res, std::shared_ptr<WatchStream> stream, std::chrono::seconds heartbeat,
                  Faults* faults) {
  auto idle = std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
  auto dropped = std::make_shared<bool>(false);
  res.set_chunked_content_provider("application/json;stream=watch", [stream, heartbeat, idle, faults, dropped](
                                                                        std::size_t, httplib::DataSink& sink) {
    auto chunk = *dropped ? std::nullopt : stream->next(std::chrono::milliseconds(500));
    if (!chunk) {
      sink.done();
      return true;
    }
    auto now = std::chrono::steady_clock::now();
    if (chunk->empty() && now - *idle < heartbeat) return true;
    if (chunk->empty()) *chunk = "\n";
    *idle = now;
    if (chunk->size() > 1 && faults->drop_watch_now()) *dropped = true;
    return sink.write(chunk->data(), chunk->size());
  });
}

HttpResponse respond(Api& api, Access& access, Faults& faults, Store& store, const HttpRequest& request) {
  if (is_fault_admin_path(request.path)) return fault_admin(faults, store, request);
  if (auto injected = faults.before(request)) return std::move(*injected);
  if (Access::is_token_request(request)) return access.token_request(request);
  if (Access::is_token_review(request)) return access.token_review(request);
  return api.handle(request);
}

void record_audit(AuditLog& audit, Access& access, const httplib::Request& req, const HttpRequest& request,
                  const HttpResponse& response, std::chrono::system_clock::time_point received) {
  std::optional<UserInfo> user = access.authenticate(request, req.get_header_value("Authorization"));
  audit.record({.request = &request,
                .response = &response,
                .user = user ? user->name : "",
                .user_agent = req.get_header_value("User-Agent"),
                .received = received,
                .completed = std::chrono::system_clock::now()});
}

}  // namespace

struct Server::Impl {
  std::unique_ptr<httplib::Server> http;
  std::unique_ptr<Api> api;
  std::unique_ptr<Faults> faults;
  std::unique_ptr<Access> access;
  std::unique_ptr<AuditLog> audit;
  std::thread thread;
  Cluster* cluster = nullptr;
};

Server::Server(Cluster& cluster, ServerOptions options) : impl_(std::make_unique<Impl>()), options_(options) {
  impl_->cluster = &cluster;
  impl_->api = std::make_unique<Api>(cluster, options_.api);
  impl_->faults = std::make_unique<Faults>(options_.faults, options_.fault_seed);
  impl_->access =
      std::make_unique<Access>(cluster, AccessOptions{options_.token, options_.authorization, options_.on_denied});
  if (options_.tls && !options_.tls_material)
    options_.tls_material = generate_tls({"127.0.0.1", "localhost", options_.host});
  if (options_.tls)
    impl_->http = make_https(*options_.tls_material);
  else
    impl_->http = std::make_unique<httplib::Server>();
  auto& http = *impl_->http;
  std::size_t max_threads = options_.max_threads;
  http.new_task_queue = [max_threads] { return new ElasticPool(max_threads); };
  http.set_tcp_nodelay(true);
  http.set_keep_alive_max_count(10000);
  http.set_keep_alive_timeout(30);
  auto heartbeat = options_.heartbeat_interval;
  Api* api = impl_->api.get();
  Faults* faults = impl_->faults.get();
  Store* store = &cluster.store();
  Access* access = impl_->access.get();
  if (!options_.audit_log_path.empty()) impl_->audit = std::make_unique<AuditLog>(options_.audit_log_path);
  AuditLog* audit = impl_->audit.get();
  auto handler = [api, access, heartbeat, faults, store, audit](const httplib::Request& req, httplib::Response& res) {
    auto received = std::chrono::system_clock::now();
    HttpRequest request = to_request(req);
    std::optional<HttpResponse> refused = access->check(request, req.get_header_value("Authorization"));
    HttpResponse out = refused ? std::move(*refused) : respond(*api, *access, *faults, *store, request);
    if (audit && is_audited(request)) record_audit(*audit, *access, req, request, out, received);
    res.status = out.status;
    for (const auto& w : out.warnings) res.set_header("Warning", warning_header(w));
    for (const auto& [k, v] : out.headers) res.set_header(k, v);
    if (out.stream)
      stream_watch(res, out.stream, heartbeat, faults);
    else
      res.set_content(out.body, out.content_type);
  };
  http.Get(".*", handler);
  http.Post(".*", handler);
  http.Put(".*", handler);
  http.Patch(".*", handler);
  http.Delete(".*", handler);
}

Server::~Server() {
  stop();
}

int Server::start() {
  auto& http = *impl_->http;
  if (options_.port == 0)
    port_ = http.bind_to_any_port(options_.host);
  else
    port_ = http.bind_to_port(options_.host, options_.port) ? options_.port : -1;
  if (port_ <= 0) throw std::runtime_error("cannot listen on " + options_.host + ":" + std::to_string(options_.port));
  SocketAccess::raise_backlog(http, options_.backlog);
  impl_->api->set_server_address(options_.host + ":" + std::to_string(port_));
  impl_->thread = std::thread([&http] { http.listen_after_bind(); });
  for (int i = 0; i < 5000 && !http.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return port_;
}

void Server::stop() {
  if (!impl_->thread.joinable()) return;
  impl_->cluster->store().close_watchers();
  impl_->http->stop();
  impl_->thread.join();
}

Faults& Server::faults() {
  return *impl_->faults;
}

std::string Server::mint_token(const std::string& ns, const std::string& name, std::chrono::seconds lifetime,
                               std::vector<std::string> audiences) {
  return impl_->access->mint(ns, name, lifetime, std::move(audiences));
}

std::string Server::service_account_kubeconfig(const std::string& ns, const std::string& name) {
  return kubeconfig_yaml(url(), options_.tls ? options_.tls_material->ca_cert_pem : "", mint_token(ns, name));
}

std::string Server::url() const {
  return (options_.tls ? "https://" : "http://") + options_.host + ":" + std::to_string(port_);
}

std::string Server::kubeconfig() const {
  return kubeconfig_yaml(url(), options_.tls ? options_.tls_material->ca_cert_pem : "", options_.token);
}

}  // namespace k8s::sim
