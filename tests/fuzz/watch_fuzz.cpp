// Fuzzes the client's watch path (k8s/client): a response body cut into
// chunks and split into lines by LineSplitter (the curl transport's
// framer), each line decoded and applied by a real Reflector, after an
// initial list whose body is read by scan_list and parse_json.
// Input: line 1 is the List body of the first list; the rest is the watch
// response body, fed in chunks whose sizes derive from the input.
// Contract checked: framing does not depend on how the body is chunked
// (terminated, non-blank lines with a trailing '\r' cut, the unterminated
// tail kept back); no input crashes the reflector; its sink never sees a
// duplicate (ADDED only for unknown keys, MODIFIED/DELETED only for known).
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "k8s/client/client.hpp"
#include "k8s/client/curl_transport.hpp"
#include "k8s/client/reflector.hpp"
#include "k8s/client/resources.hpp"
#include "tests/fuzz/fuzz_util.hpp"

namespace {

// Runs everything on the caller's thread: post() at once, replies and
// timers from a queue the test drains a bounded number of steps (so a
// reflector that keeps re-watching cannot loop forever).
class QueueTransport : public k8s::Transport {
 public:
  std::string first_list;
  std::deque<std::function<void()>> queue;
  struct Stream {
    k8s::LineHandler on_line;
    k8s::Callback on_done;
  };
  std::map<k8s::StreamId, Stream> streams;  // open streams

  void send(k8s::Request, k8s::Callback cb) override {
    k8s::Result r;
    r.status = 200;
    r.body = lists_++ == 0 ? first_list : R"({"kind":"SecretList","metadata":{"resourceVersion":"7"},"items":[]})";
    queue.push_back([cb = std::move(cb), r = std::move(r)] { cb(r); });
  }
  k8s::StreamId stream(k8s::Request, k8s::LineHandler on_line, k8s::Callback on_done) override {
    streams[++next_] = {std::move(on_line), std::move(on_done)};
    return next_;
  }
  void cancel(k8s::StreamId id) override { finish(id, 0, k8s::kTransportCancelled); }
  void post(std::function<void()> fn) override { fn(); }
  void post_after(std::chrono::milliseconds, std::function<void()> fn) override { queue.push_back(std::move(fn)); }

  void finish(k8s::StreamId id, int status, std::string error = {}) {
    auto it = streams.find(id);
    if (it == streams.end()) return;
    k8s::Result r;
    r.status = status;
    r.error = std::move(error);
    queue.push_back([done = std::move(it->second.on_done), r = std::move(r)] { done(r); });
    streams.erase(it);
  }
  void drain(int steps) {
    while (!queue.empty() && steps-- > 0) {
      auto fn = std::move(queue.front());
      queue.pop_front();
      fn();
    }
  }

 private:
  int lists_ = 0;
  k8s::StreamId next_ = 0;
};

// The framing LineSplitter promises, written out plainly.
std::vector<std::string> expected_lines(std::string_view body) {
  std::vector<std::string> out;
  for (std::size_t nl = body.find('\n'); nl != std::string_view::npos; nl = body.find('\n')) {
    std::string_view line = body.substr(0, nl);
    body.remove_prefix(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") != std::string_view::npos) out.emplace_back(line);
  }
  return out;
}

// Feeds `body` in chunks of 1..64 bytes chosen by the body's own bytes.
std::vector<std::string> framed_lines(std::string_view body, const k8s::LineHandler& on_line) {
  std::vector<std::string> out;
  k8s::LineSplitter splitter;
  std::uint32_t state = 2166136261u ^ static_cast<std::uint32_t>(body.size());
  for (std::size_t pos = 0; pos < body.size();) {
    state = state * 16777619u ^ static_cast<unsigned char>(body[pos]);
    std::size_t n = std::min<std::size_t>(1 + state % 64, body.size() - pos);
    splitter.feed(body.substr(pos, n), [&](std::string_view line) {
      out.emplace_back(line);
      if (on_line) on_line(line);
    });
    pos += n;
  }
  return out;
}

// The reflector's sink contract, kept as the set of keys it was told.
struct SinkCheck {
  std::set<std::string> keys;
  void operator()(const k8s::ObjectEvent& e) {
    const model::Value* m = e.object->find("metadata");
    auto field = [&](const char* f) {
      const model::Value* v = m ? m->find(f) : nullptr;
      return v && v->is_string() ? v->as_string() : std::string();
    };
    std::string key = field("namespace") + "/" + field("name");
    bool known = keys.count(key) > 0;
    if (e.type == model::Change::added ? known : !known) fuzz::fuzz_fail("reflector told a duplicate: " + key);
    if (e.type == model::Change::deleted)
      keys.erase(key);
    else
      keys.insert(key);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body = fuzz::as_text(data, size);
  auto transport = std::make_shared<QueueTransport>();
  transport->first_list = std::string(fuzz::take_line(body));
  k8s::Client client(transport);
  SinkCheck check;
  {
    k8s::Reflector reflector(client, *k8s::resource_for_kind("Secret"), {}, [&check](k8s::ObjectEvent e) { check(e); });
    reflector.start();
    transport->drain(16);
    k8s::LineHandler on_line;
    k8s::StreamId id = 0;
    if (!transport->streams.empty()) {
      id = transport->streams.begin()->first;
      on_line = transport->streams.begin()->second.on_line;
    }
    if (framed_lines(body, on_line) != expected_lines(body)) fuzz::fuzz_fail("chunking changed the framing");
    transport->finish(id, 200);
    transport->drain(16);
    reflector.stop();
    transport->drain(64);
  }
  transport->queue.clear();
  return 0;
}
