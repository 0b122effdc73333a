// Internal to k8s/client: the curl multi loop behind make_curl_transport.
// curl_loop.cpp runs the loop (epoll, wakeups, timers, shutdown);
// curl_transport.cpp moves transfers through it (start, exec credentials,
// completion, cancellation). Everything but the Transport members runs on
// the loop thread.
#pragma once

#include <curl/curl.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <queue>
#include <thread>
#include <vector>

#include "k8s/client/curl_transfer.hpp"
#include "k8s/client/curl_transport.hpp"

namespace k8s::curl_detail {

using SteadyClock = std::chrono::steady_clock;

struct Timer {
  SteadyClock::time_point at;
  std::uint64_t seq;
  std::function<void()> fn;
  bool operator>(const Timer& o) const { return at != o.at ? at > o.at : seq > o.seq; }
};

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
  CurlTransport(ClusterConfig config, CurlOptions options);
  ~CurlTransport() override;

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
  void wake();
  void watch(int fd, std::uint32_t events);
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

}  // namespace k8s::curl_detail
