#include "sd/standin_pods.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <queue>
#include <stdexcept>
#include <thread>
#include <tuple>

namespace sd {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint64_t kListenerTag = 1ull << 63;
constexpr std::uint64_t kWakeTag = 1ull << 62;
constexpr std::chrono::milliseconds kAcceptPause{100};

int listen_loopback(int& port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("stand-in pod: socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd, 1024) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd);
    throw std::runtime_error("stand-in pod: cannot listen on 127.0.0.1: " + why);
  }
  port = ntohs(a.sin_port);
  return fd;
}

std::string response_text(const StandinBehaviour& b) {
  std::string head = "HTTP/1.1 " + std::to_string(b.status) + (b.status == 200 ? " OK" : " Stand-in") +
                     "\r\nContent-Type: " + b.content_type + "\r\nContent-Length: " + std::to_string(b.body.size()) +
                     "\r\n\r\n";
  if (b.mode == StandinBehaviour::Mode::close_mid_body) return head + b.body.substr(0, b.body.size() / 2);
  return head + b.body;
}

}  // namespace

struct StandinPods::Loop {
  struct Conn {
    std::size_t pod = 0;
    std::uint64_t serial = 0;
    std::string in, out;
    std::size_t sent = 0;
    bool close_after = false, busy = false;
  };
  using Due = std::tuple<Clock::time_point, int, std::uint64_t>;  // when, fd, serial

  int epoll_fd = -1, wake_fd = -1;
  std::vector<int> listeners;
  std::map<int, Conn> conns;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> timers;
  std::uint64_t next_serial = 1;
  std::mutex mu;  // guards behaviours
  std::vector<StandinBehaviour> behaviours;
  std::atomic<bool> stopping{false};
  std::atomic<std::uint64_t>* requests = nullptr;
  std::atomic<std::uint64_t>* connections = nullptr;
  std::atomic<std::uint64_t>* accept_failures = nullptr;
  // Listeners taken out of the epoll set while the process is out of file
  // descriptors: a level-triggered listener would wake the loop forever.
  std::vector<std::pair<Clock::time_point, std::size_t>> paused;
  std::thread thread;

  void watch(int fd, std::uint64_t tag, std::uint32_t events, int op = EPOLL_CTL_ADD) {
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = tag;
    ::epoll_ctl(epoll_fd, op, fd, &ev);
  }
  void run();
  int wait_ms();
  void fire_timers();
  void accept_from(std::size_t pod);
  void pause_listener(std::size_t pod);
  void resume_listeners();
  void on_readable(int fd);
  void start_request(int fd, Conn& c);
  void respond(int fd, std::uint64_t serial);
  void flush(int fd, Conn& c);
  void drop(int fd);
};

void StandinPods::Loop::run() {
  epoll_event events[256];
  while (!stopping.load()) {
    int n = ::epoll_wait(epoll_fd, events, 256, wait_ms());
    for (int i = 0; i < n; ++i) {
      std::uint64_t tag = events[i].data.u64;
      if (tag == kWakeTag) continue;
      if (tag & kListenerTag) {
        accept_from(tag & ~kListenerTag);
        continue;
      }
      int fd = static_cast<int>(tag);
      if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) on_readable(fd);
      auto it = conns.find(fd);
      if (it != conns.end() && (events[i].events & EPOLLOUT)) flush(fd, it->second);
    }
    fire_timers();
  }
}

int StandinPods::Loop::wait_ms() {
  std::optional<Clock::time_point> next;
  if (!timers.empty()) next = std::get<0>(timers.top());
  for (const auto& [when, pod] : paused)
    if (!next || when < *next) next = when;
  if (!next) return 1000;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*next - Clock::now());
  return static_cast<int>(std::clamp<std::int64_t>(left.count() + 1, 0, 1000));
}

void StandinPods::Loop::fire_timers() {
  resume_listeners();
  while (!timers.empty() && std::get<0>(timers.top()) <= Clock::now()) {
    auto [when, fd, serial] = timers.top();
    timers.pop();
    respond(fd, serial);
  }
}

void StandinPods::Loop::accept_from(std::size_t pod) {
  while (true) {
    int fd = ::accept4(listeners[pod], nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      accept_failures->fetch_add(1);  // EMFILE, ENFILE, ENOBUFS, ENOMEM: try again later
      pause_listener(pod);
      return;
    }
    connections->fetch_add(1);
    Conn& c = conns[fd];
    c = Conn{};
    c.pod = pod;
    c.serial = next_serial++;
    watch(fd, static_cast<std::uint64_t>(fd), EPOLLIN);
  }
}

void StandinPods::Loop::pause_listener(std::size_t pod) {
  ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, listeners[pod], nullptr);
  paused.emplace_back(Clock::now() + kAcceptPause, pod);
}

void StandinPods::Loop::resume_listeners() {
  auto now = Clock::now();
  std::erase_if(paused, [&](const std::pair<Clock::time_point, std::size_t>& p) {
    if (p.first > now) return false;
    watch(listeners[p.second], kListenerTag | p.second, EPOLLIN);
    return true;
  });
}

void StandinPods::Loop::on_readable(int fd) {
  auto it = conns.find(fd);
  if (it == conns.end()) return;
  char buf[16384];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      it->second.in.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    drop(fd);  // closed by the client (or failed)
    return;
  }
  start_request(fd, it->second);
}

// One request at a time per connection: the next is read after the answer.
void StandinPods::Loop::start_request(int fd, Conn& c) {
  if (c.busy || c.in.find("\r\n\r\n") == std::string::npos) return;
  c.in.erase(0, c.in.find("\r\n\r\n") + 4);
  c.busy = true;
  requests->fetch_add(1);
  StandinBehaviour b;
  {
    std::lock_guard<std::mutex> lock(mu);
    b = behaviours[c.pod];
  }
  if (b.mode == StandinBehaviour::Mode::hang) return;  // until the client gives up
  timers.emplace(Clock::now() + b.delay, fd, c.serial);
}

void StandinPods::Loop::respond(int fd, std::uint64_t serial) {
  auto it = conns.find(fd);
  if (it == conns.end() || it->second.serial != serial) return;  // closed meanwhile
  StandinBehaviour b;
  {
    std::lock_guard<std::mutex> lock(mu);
    b = behaviours[it->second.pod];
  }
  it->second.out = response_text(b);
  it->second.sent = 0;
  it->second.close_after = b.mode == StandinBehaviour::Mode::close_mid_body;
  flush(fd, it->second);
}

void StandinPods::Loop::flush(int fd, Conn& c) {
  while (c.sent < c.out.size()) {
    ssize_t n = ::send(fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
    if (n > 0) {
      c.sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      watch(fd, static_cast<std::uint64_t>(fd), EPOLLIN | EPOLLOUT, EPOLL_CTL_MOD);
      return;
    }
    drop(fd);
    return;
  }
  if (c.out.empty()) return;
  if (c.close_after) {
    drop(fd);
    return;
  }
  c.out.clear();
  c.busy = false;
  watch(fd, static_cast<std::uint64_t>(fd), EPOLLIN, EPOLL_CTL_MOD);
  start_request(fd, c);  // a request that arrived meanwhile
}

void StandinPods::Loop::drop(int fd) {
  ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
  ::close(fd);
  conns.erase(fd);
}

StandinPods::StandinPods(std::vector<StandinBehaviour> pods) : loop_(std::make_unique<Loop>()) {
  Loop& l = *loop_;
  l.behaviours = std::move(pods);
  l.requests = &requests_;
  l.connections = &connections_;
  l.accept_failures = &accept_failures_;
  l.epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  l.wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (l.epoll_fd < 0 || l.wake_fd < 0) throw std::runtime_error("stand-in pods: epoll/eventfd failed");
  l.watch(l.wake_fd, kWakeTag, EPOLLIN);
  try {
    for (std::size_t i = 0; i < l.behaviours.size(); ++i) {
      int port = 0;
      l.listeners.push_back(listen_loopback(port));
      l.watch(l.listeners.back(), kListenerTag | i, EPOLLIN);
      addresses_.push_back("127.0.0.1:" + std::to_string(port));
    }
  } catch (...) {
    for (int fd : l.listeners) ::close(fd);
    ::close(l.epoll_fd);
    ::close(l.wake_fd);
    throw;
  }
  l.thread = std::thread([&l] {
    ::pthread_setname_np(::pthread_self(), "standin-pods");  // tells them apart in perf and top
    l.run();
  });
}

StandinPods::~StandinPods() {
  Loop& l = *loop_;
  l.stopping = true;
  std::uint64_t one = 1;
  [[maybe_unused]] ssize_t w = ::write(l.wake_fd, &one, sizeof one);
  l.thread.join();
  for (auto& [fd, c] : l.conns) ::close(fd);
  for (int fd : l.listeners) ::close(fd);
  ::close(l.epoll_fd);
  ::close(l.wake_fd);
}

void StandinPods::set_behaviour(std::size_t pod, StandinBehaviour b) {
  std::lock_guard<std::mutex> lock(loop_->mu);
  loop_->behaviours.at(pod) = std::move(b);
}

}  // namespace sd
