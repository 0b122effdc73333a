#include "k8s/client/curl_transport.hpp"

#include <curl/curl.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <queue>
#include <sstream>
#include <thread>

#include "k8s/client/status.hpp"

namespace k8s {
namespace {

using SteadyClock = std::chrono::steady_clock;

// One request or stream, owned by the loop thread once submitted.
struct Transfer {
  StreamId id = 0;
  Request req;
  bool streaming = false;
  Callback done;
  LineHandler on_line;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  std::string body;
  std::chrono::milliseconds retry_after{0};
  LineSplitter lines;
  bool cancelled = false;
  char errbuf[CURL_ERROR_SIZE] = {};

  ~Transfer() {
    if (headers) curl_slist_free_all(headers);
    if (easy) curl_easy_cleanup(easy);
  }
};

// The bearer token, re-read from its file when the file changes. Loop
// thread only.
class TokenSource {
 public:
  TokenSource(std::string token, std::string file) : token_(std::move(token)), file_(std::move(file)) {}
  const std::string& get() {
    if (file_.empty()) return token_;
    std::error_code ec;
    auto mtime = std::filesystem::last_write_time(file_, ec);
    if (ec) return token_;  // keep the last good token while the file is being replaced
    auto size = std::filesystem::file_size(file_, ec);
    if (ec || (read_once_ && mtime == mtime_ && size == size_)) return token_;
    std::ifstream in(file_, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) return token_;
    std::string t = text.str();
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
    token_ = std::move(t);
    mtime_ = mtime;
    size_ = size;
    read_once_ = true;
    return token_;
  }

 private:
  std::string token_, file_;
  std::filesystem::file_time_type mtime_{};
  std::uintmax_t size_ = 0;
  bool read_once_ = false;
};

struct Timer {
  SteadyClock::time_point at;
  std::uint64_t seq;
  std::function<void()> fn;
  bool operator>(const Timer& o) const { return at != o.at ? at > o.at : seq > o.seq; }
};

void set_blob(CURL* easy, CURLoption option, const std::string& data) {
  curl_blob blob{const_cast<char*>(data.data()), data.size(), CURL_BLOB_COPY};
  curl_easy_setopt(easy, option, &blob);
}

// One allocation for the whole body when its length is announced, with
// room for the padding simdjson wants when the client scans a list.
void reserve_body(Transfer& t) {
  curl_off_t length = -1;
  if (curl_easy_getinfo(t.easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK && length > 0 &&
      length < (curl_off_t{1} << 32))
    t.body.reserve(static_cast<std::size_t>(length) + 64);
}

std::once_flag g_curl_init;

class CurlTransport final : public Transport {
 public:
  CurlTransport(ClusterConfig config, CurlOptions options)
      : config_(std::move(config)), options_(std::move(options)), token_(config_.token, config_.token_file) {
    std::call_once(g_curl_init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    while (!config_.server.empty() && config_.server.back() == '/') config_.server.pop_back();
    multi_ = curl_multi_init();
    if (options_.max_connections > 0)
      curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, options_.max_connections);
    thread_ = std::thread([this] { run(); });
    loop_id_ = thread_.get_id();
  }

  ~CurlTransport() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    curl_multi_wakeup(multi_);
    thread_.join();
    curl_multi_cleanup(multi_);
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
    curl_multi_wakeup(multi_);
  }

  void post_after(std::chrono::milliseconds delay, std::function<void()> fn) override {
    {
      std::lock_guard lock(mutex_);
      timers_.push(Timer{SteadyClock::now() + delay, next_seq_++, std::move(fn)});
    }
    curl_multi_wakeup(multi_);
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
  void start(std::shared_ptr<Transfer> t);
  void configure(Transfer& t);
  void reap();
  void complete(StreamId id, Result r);
  void finish_cancelled(StreamId id);
  void shutdown();
  static Result result_of(Transfer& t, CURLcode code);

  static std::size_t on_write(char* data, std::size_t size, std::size_t n, void* user);
  static std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user);

  ClusterConfig config_;
  CurlOptions options_;
  TokenSource token_;
  CURLM* multi_ = nullptr;
  std::thread thread_;
  std::thread::id loop_id_;
  std::atomic<StreamId> next_id_{1};

  std::mutex mutex_;  // guards the members up to active_
  bool stop_ = false;
  bool stopping_ = false;  // loop thread only: shutdown has begun
  std::vector<std::function<void()>> commands_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  std::uint64_t next_seq_ = 0;

  std::map<StreamId, std::shared_ptr<Transfer>> active_;  // loop thread only
};

void CurlTransport::run() {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stop_) break;
    }
    run_commands();
    run_timers(false);
    int running = 0;
    curl_multi_perform(multi_, &running);
    reap();
    curl_multi_poll(multi_, nullptr, 0, poll_timeout_ms(), nullptr);
  }
  shutdown();
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
  t->easy = curl_easy_init();
  configure(*t);
  active_.emplace(t->id, t);
  curl_multi_add_handle(multi_, t->easy);
}

void CurlTransport::configure(Transfer& t) {
  CURL* e = t.easy;
  std::string url = config_.server + t.req.path;
  if (!t.req.query.empty()) url += "?" + t.req.query;
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_PRIVATE, &t);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t.errbuf);
  curl_easy_setopt(e, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
  curl_easy_setopt(e, CURLOPT_USERAGENT, options_.user_agent.c_str());
  curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, static_cast<long>(options_.keepalive_idle.count()));
  curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, static_cast<long>(options_.keepalive_interval.count()));
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout.count()));
  if (t.req.timeout.count() > 0) curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(t.req.timeout.count()));
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &CurlTransport::on_write);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &CurlTransport::on_header);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, &t);
  if (t.req.method != "GET") {
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, t.req.method.c_str());
    if (!t.req.body.empty() || t.req.method != "DELETE") {
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, t.req.body.data());
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(t.req.body.size()));
    }
  }
  t.headers = curl_slist_append(t.headers, "Accept: application/json");
  t.headers = curl_slist_append(t.headers, "Expect:");
  if (!t.req.body.empty()) t.headers = curl_slist_append(t.headers, ("Content-Type: " + t.req.content_type).c_str());
  if (const std::string& token = token_.get(); !token.empty())
    t.headers = curl_slist_append(t.headers, ("Authorization: Bearer " + token).c_str());
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, t.headers);
  if (!config_.ca_data.empty())
    set_blob(e, CURLOPT_CAINFO_BLOB, config_.ca_data);
  else if (!config_.ca_file.empty())
    curl_easy_setopt(e, CURLOPT_CAINFO, config_.ca_file.c_str());
  if (!config_.client_cert_data.empty())
    set_blob(e, CURLOPT_SSLCERT_BLOB, config_.client_cert_data);
  else if (!config_.client_cert_file.empty())
    curl_easy_setopt(e, CURLOPT_SSLCERT, config_.client_cert_file.c_str());
  if (!config_.client_key_data.empty())
    set_blob(e, CURLOPT_SSLKEY_BLOB, config_.client_key_data);
  else if (!config_.client_key_file.empty())
    curl_easy_setopt(e, CURLOPT_SSLKEY, config_.client_key_file.c_str());
  if (config_.insecure_skip_tls_verify) {
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
  }
}

std::size_t CurlTransport::on_write(char* data, std::size_t size, std::size_t n, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  std::size_t len = size * n;
  if (t.cancelled) return len;
  long code = 0;
  curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &code);
  if (!t.streaming || code < 200 || code >= 300) {
    if (t.body.empty()) reserve_body(t);
    t.body.append(data, len);
    return len;
  }
  t.lines.feed(std::string_view(data, len), [&t](std::string_view line) {
    if (!t.cancelled && t.on_line) t.on_line(line);
  });
  return len;
}

std::size_t CurlTransport::on_header(char* data, std::size_t size, std::size_t n, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  std::string_view h(data, size * n);
  if (h.rfind("HTTP/", 0) == 0) t.retry_after = std::chrono::milliseconds(0);  // a new response
  constexpr std::string_view kName = "retry-after:";
  if (h.size() > kName.size()) {
    bool match = true;
    for (std::size_t i = 0; i < kName.size() && match; ++i)
      match = std::tolower(static_cast<unsigned char>(h[i])) == kName[i];
    if (match) {
      long seconds = std::strtol(std::string(h.substr(kName.size())).c_str(), nullptr, 10);
      if (seconds > 0) t.retry_after = std::chrono::seconds(seconds);
    }
  }
  return size * n;
}

Result CurlTransport::result_of(Transfer& t, CURLcode code) {
  Result r;
  if (code != CURLE_OK) {
    r.error = t.errbuf[0] ? t.errbuf : curl_easy_strerror(code);
    return r;
  }
  long status = 0;
  curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &status);
  r.status = static_cast<int>(status);
  r.retry_after = t.retry_after;
  r.body = std::move(t.body);
  if (!r.ok()) fill_status(r);
  return r;
}

void CurlTransport::reap() {
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
    if (msg->msg != CURLMSG_DONE) continue;
    Transfer* t = nullptr;
    curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
    CURLcode code = msg->data.result;
    Result r = t->cancelled ? Result{} : result_of(*t, code);
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

std::shared_ptr<Transport> make_curl_transport(const ClusterConfig& config, CurlOptions options) {
  return std::make_shared<CurlTransport>(config, std::move(options));
}

}  // namespace k8s
