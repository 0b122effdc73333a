#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "k8s/client/curl_loop.hpp"

namespace k8s::curl_detail {
namespace {

std::once_flag g_curl_init;

}  // namespace

CurlTransport::CurlTransport(ClusterConfig config, CurlOptions options)
    : config_(std::move(config)), options_(std::move(options)), token_(config_.token, config_.token_file) {
  std::call_once(g_curl_init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  while (!config_.server.empty() && config_.server.back() == '/') config_.server.pop_back();
  multi_ = curl_multi_init();
  if (options_.max_connections > 0) curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, options_.max_connections);
  if (options_.max_idle_connections > 0) curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, options_.max_idle_connections);
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
    // Raising a thread's nice needs no privilege; a failure leaves it as it was.
    if (options_.nice > 0) (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), options_.nice);
    run();
  });
  loop_id_ = thread_.get_id();
  handle_->self = this;
}

CurlTransport::~CurlTransport() {
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

void CurlTransport::wake() {
  std::uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);
}

void CurlTransport::watch(int fd, std::uint32_t events) {
  epoll_event ev{};
  ev.events = events;
  ev.data.fd = fd;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) != 0) ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
}

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

}  // namespace k8s::curl_detail
