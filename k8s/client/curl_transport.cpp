#include "k8s/client/curl_transport.hpp"

#include <curl/curl.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <queue>
#include <stdexcept>
#include <thread>

#include "k8s/client/curl_transfer.hpp"

namespace k8s {
namespace {

using curl_detail::TokenSource;
using curl_detail::Transfer;
using SteadyClock = std::chrono::steady_clock;

struct Timer {
  SteadyClock::time_point at;
  std::uint64_t seq;
  std::function<void()> fn;
  bool operator>(const Timer& o) const { return at != o.at ? at > o.at : seq > o.seq; }
};

std::once_flag g_curl_init;

// Lets the exec credential worker post back to a transport that may be
// gone by the time the plugin answers.
struct LoopHandle {
  std::mutex mutex;
  Transport* self = nullptr;
  void post(std::function<void()> fn) {
    std::lock_guard lock(mutex);
    if (self) self->post(std::move(fn));
  }
};

class CurlTransport final : public Transport {
 public:
  CurlTransport(ClusterConfig config, CurlOptions options)
      : config_(std::move(config)), options_(std::move(options)), token_(config_.token, config_.token_file) {
    std::call_once(g_curl_init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    while (!config_.server.empty() && config_.server.back() == '/') config_.server.pop_back();
    multi_ = curl_multi_init();
    if (options_.max_connections > 0)
      curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, options_.max_connections);
    if (options_.max_idle_connections > 0)
      curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, options_.max_idle_connections);
    // Event-driven: curl says which sockets to watch and when it next needs
    // time, so each wakeup costs the sockets that are ready, not every
    // socket of every transfer (curl_multi_perform and poll() are linear in
    // the transfers, which made a fan-out over 1,000 pods quadratic).
    epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
    wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (epoll_fd_ < 0 || wake_fd_ < 0) {
      std::string why = std::strerror(errno);
      if (epoll_fd_ >= 0) ::close(epoll_fd_);
      if (wake_fd_ >= 0) ::close(wake_fd_);
      curl_multi_cleanup(multi_);
      throw std::runtime_error("curl transport: cannot create its epoll set: " + why);
    }
    watch(wake_fd_, EPOLLIN);
    curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &CurlTransport::on_socket);
    curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &CurlTransport::on_timer);
    curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    thread_ = std::thread([this] {
      ::pthread_setname_np(::pthread_self(), "curl-loop");  // tells it apart in perf and top
      run();
    });
    loop_id_ = thread_.get_id();
    handle_->self = this;
  }

  ~CurlTransport() override {
    {
      std::lock_guard lock(handle_->mutex);
      handle_->self = nullptr;
    }
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake();
    thread_.join();
    curl_multi_cleanup(multi_);
    ::close(epoll_fd_);
    ::close(wake_fd_);
  }

  void send(Request req, Callback cb) override { submit(std::move(req), std::move(cb), {}, false); }

  StreamId stream(Request req, LineHandler on_line, Callback on_done) override {
    return submit(std::move(req), std::move(on_done), std::move(on_line), true);
  }

  bool in_io_thread() const override { return std::this_thread::get_id() == loop_id_; }

  void cancel(StreamId id) override {
    if (in_io_thread())
      if (auto it = active_.find(id); it != active_.end()) it->second->cancelled = true;
    post([this, id] { finish_cancelled(id); });
  }

  void post(std::function<void()> fn) override {
    {
      std::lock_guard lock(mutex_);
      commands_.push_back(std::move(fn));
    }
    wake();
  }

  void post_after(std::chrono::milliseconds delay, std::function<void()> fn) override {
    {
      std::lock_guard lock(mutex_);
      timers_.push(Timer{SteadyClock::now() + delay, next_seq_++, std::move(fn)});
    }
    wake();
  }

 private:
  StreamId submit(Request req, Callback cb, LineHandler on_line, bool streaming) {
    auto t = std::make_shared<Transfer>();
    t->id = next_id_.fetch_add(1);
    t->req = std::move(req);
    t->done = std::move(cb);
    t->on_line = std::move(on_line);
    t->streaming = streaming;
    StreamId id = t->id;
    post([this, t]() mutable { start(std::move(t)); });
    return id;
  }

  void run();
  void run_commands();
  bool run_timers(bool all);
  int poll_timeout_ms();
  void wait_and_drive();
  void wake() {
    std::uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);
  }
  void watch(int fd, std::uint32_t events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.fd = fd;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) != 0) ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  }
  static int on_socket(CURL*, curl_socket_t fd, int what, void* self, void*);
  static int on_timer(CURLM*, long timeout_ms, void* self);
  void start(std::shared_ptr<Transfer> t);
  void await_credential(std::shared_ptr<Transfer> t);
  void credential_ready(StreamId id, ExecCredentialSource::Credential c, const std::string& error);
  void retry_unauthorized(StreamId id);
  void reap();
  void complete(StreamId id, Result r);
  void finish_cancelled(StreamId id);
  void shutdown();

  ClusterConfig config_;
  CurlOptions options_;
  TokenSource token_;
  curl_detail::DnsCache dns_{options_.dns_cache_epoch};  // loop thread only
  CURLM* multi_ = nullptr;
  int epoll_fd_ = -1, wake_fd_ = -1;
  std::optional<SteadyClock::time_point> curl_deadline_;  // loop thread only: when curl wants time
  std::thread thread_;
  std::thread::id loop_id_;
  std::atomic<StreamId> next_id_{1};

  std::mutex mutex_;  // guards the members up to active_
  bool stop_ = false;
  bool stopping_ = false;  // loop thread only: shutdown has begun
  std::vector<std::function<void()>> commands_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  std::uint64_t next_seq_ = 0;

  std::map<StreamId, std::shared_ptr<Transfer>> active_;   // loop thread only
  std::map<StreamId, std::shared_ptr<Transfer>> waiting_;  // loop thread only: for an exec credential
  std::shared_ptr<LoopHandle> handle_ = std::make_shared<LoopHandle>();
};

void CurlTransport::run() {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stop_) break;
    }
    run_commands();
    run_timers(false);
    wait_and_drive();
    reap();
  }
  shutdown();
}

int CurlTransport::on_socket(CURL*, curl_socket_t fd, int what, void* self, void*) {
  auto* t = static_cast<CurlTransport*>(self);
  if (what == CURL_POLL_REMOVE) {
    ::epoll_ctl(t->epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
    return 0;
  }
  t->watch(fd, ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u));
  return 0;
}

int CurlTransport::on_timer(CURLM*, long timeout_ms, void* self) {
  auto* t = static_cast<CurlTransport*>(self);
  if (timeout_ms < 0)
    t->curl_deadline_.reset();
  else
    t->curl_deadline_ = SteadyClock::now() + std::chrono::milliseconds(timeout_ms);
  return 0;
}

// Waits for a ready socket, a wakeup, or the next deadline (ours or
// curl's), then lets curl act on exactly what happened.
void CurlTransport::wait_and_drive() {
  int wait = poll_timeout_ms();
  if (curl_deadline_) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*curl_deadline_ - SteadyClock::now()).count();
    wait = static_cast<int>(std::clamp<long>(left, 0, wait));
  }
  epoll_event events[256];
  int n = ::epoll_wait(epoll_fd_, events, 256, wait);
  int running = 0;
  for (int i = 0; i < n; ++i) {
    int fd = events[i].data.fd;
    if (fd == wake_fd_) {
      std::uint64_t drained;
      [[maybe_unused]] ssize_t r = ::read(wake_fd_, &drained, sizeof drained);
      continue;
    }
    int flags = ((events[i].events & EPOLLIN) ? CURL_CSELECT_IN : 0) |
                ((events[i].events & EPOLLOUT) ? CURL_CSELECT_OUT : 0) |
                ((events[i].events & (EPOLLERR | EPOLLHUP)) ? CURL_CSELECT_ERR : 0);
    curl_multi_socket_action(multi_, fd, flags, &running);
  }
  if (curl_deadline_ && *curl_deadline_ <= SteadyClock::now()) {
    curl_deadline_.reset();
    curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
  }
}

void CurlTransport::run_commands() {
  std::vector<std::function<void()>> batch;
  {
    std::lock_guard lock(mutex_);
    batch.swap(commands_);
  }
  for (auto& fn : batch) fn();
}

bool CurlTransport::run_timers(bool all) {
  bool ran = false;
  for (;;) {
    std::function<void()> fn;
    {
      std::lock_guard lock(mutex_);
      if (timers_.empty() || (!all && timers_.top().at > SteadyClock::now())) break;
      fn = std::move(const_cast<Timer&>(timers_.top()).fn);
      timers_.pop();
    }
    fn();
    ran = true;
  }
  return ran;
}

int CurlTransport::poll_timeout_ms() {
  std::lock_guard lock(mutex_);
  if (!commands_.empty() || stop_) return 0;
  long ms = 1000;
  if (!timers_.empty()) {
    auto wait =
        std::chrono::duration_cast<std::chrono::milliseconds>(timers_.top().at - SteadyClock::now()).count() + 1;
    ms = std::clamp<long>(wait, 0, ms);
  }
  return static_cast<int>(ms);
}

void CurlTransport::start(std::shared_ptr<Transfer> t) {
  if (stopping_) {
    Result r;
    r.error = kTransportStopped;
    auto cb = std::move(t->done);
    t.reset();
    if (cb) cb(std::move(r));
    return;
  }
  if (config_.exec && !t->cred) {
    t->cred = config_.exec->current();
    if (!t->cred) return await_credential(std::move(t));
  }
  t->easy = curl_easy_init();
  curl_detail::configure(*t, config_.server, config_, options_, t->cred ? t->cred->token : token_.get());
  if (t->cred) curl_detail::configure_exec_credential(*t, *t->cred);
  dns_.attach(*t, SteadyClock::now());
  active_.emplace(t->id, t);
  curl_multi_add_handle(multi_, t->easy);
}

// The plugin runs on the credential source's worker; the transfer waits
// here, cancellable, until it answers.
void CurlTransport::await_credential(std::shared_ptr<Transfer> t) {
  StreamId id = t->id;
  waiting_.emplace(id, std::move(t));
  config_.exec->refresh_async([handle = handle_, id, this](ExecCredentialSource::Credential c, std::string error) {
    handle->post([this, id, c = std::move(c), error = std::move(error)] { credential_ready(id, c, error); });
  });
}

void CurlTransport::credential_ready(StreamId id, ExecCredentialSource::Credential c, const std::string& error) {
  auto it = waiting_.find(id);
  if (it == waiting_.end()) return;  // cancelled meanwhile
  std::shared_ptr<Transfer> t = std::move(it->second);
  waiting_.erase(it);
  if (c) {
    t->cred = std::move(c);
    return start(std::move(t));
  }
  Result r;
  r.error = error;  // status 0: the client retries with backoff, which re-runs the plugin
  Callback cb = std::move(t->done);
  t.reset();
  if (cb) cb(std::move(r));
}

// A 401 to an exec credential: drop it (unless a newer one replaced it)
// and send the request once more, which runs the plugin again.
void CurlTransport::retry_unauthorized(StreamId id) {
  auto it = active_.find(id);
  std::shared_ptr<Transfer> old = std::move(it->second);
  active_.erase(it);
  curl_multi_remove_handle(multi_, old->easy);
  config_.exec->invalidate(old->cred);
  auto t = std::make_shared<Transfer>();
  t->id = old->id;
  t->req = std::move(old->req);
  t->streaming = old->streaming;
  t->done = std::move(old->done);
  t->on_line = std::move(old->on_line);
  t->auth_retried = true;
  old.reset();
  start(std::move(t));
}

void CurlTransport::reap() {
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
    if (msg->msg != CURLMSG_DONE) continue;
    Transfer* t = nullptr;
    curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
    CURLcode code = msg->data.result;
    Result r = t->cancelled ? Result{} : curl_detail::result_of(*t, code);
    if (r.status == 401 && t->cred && !t->auth_retried && !stopping_) {
      retry_unauthorized(t->id);
      continue;
    }
    if (t->cancelled) r.error = kTransportCancelled;
    complete(t->id, std::move(r));
  }
}

void CurlTransport::complete(StreamId id, Result r) {
  auto it = active_.find(id);
  if (it == active_.end()) return;
  std::shared_ptr<Transfer> t = std::move(it->second);
  active_.erase(it);
  curl_multi_remove_handle(multi_, t->easy);
  Callback cb = std::move(t->done);
  t.reset();  // frees the handle before the callback may start new work
  if (cb) cb(std::move(r));
}

void CurlTransport::finish_cancelled(StreamId id) {
  Result r;
  r.error = stopping_ ? kTransportStopped : kTransportCancelled;
  if (auto it = waiting_.find(id); it != waiting_.end()) {
    Callback cb = std::move(it->second->done);
    waiting_.erase(it);
    if (cb) cb(std::move(r));
    return;
  }
  complete(id, std::move(r));
}

// Completes everything still pending. Timers run at once so that work they
// wrap (a retry, a re-watch) completes through "transport stopped" instead
// of vanishing; the round limit guards against callers that keep
// rescheduling themselves forever.
void CurlTransport::shutdown() {
  stopping_ = true;
  for (int round = 0; round < 1000; ++round) {
    while (!active_.empty()) finish_cancelled(active_.begin()->first);
    while (!waiting_.empty()) finish_cancelled(waiting_.begin()->first);
    bool busy;
    {
      std::lock_guard lock(mutex_);
      busy = !commands_.empty() || !timers_.empty();
    }
    if (!busy) break;
    run_commands();
    run_timers(true);
  }
}

}  // namespace

CurlOptions many_hosts_options(long hosts) {
  CurlOptions o;
  o.max_idle_connections = std::max(hosts, 16L);
  o.dns_cache_epoch = std::chrono::minutes(10);
  return o;
}

std::shared_ptr<Transport> make_curl_transport(const ClusterConfig& config, CurlOptions options) {
  return std::make_shared<CurlTransport>(config, std::move(options));
}

}  // namespace k8s
