// A scripted k8s::Transport for deterministic tests of the actors that call
// the API: every request is recorded, answered at once (on the caller's
// thread, so a test coordinator sees the completion as one more message)
// from a script of canned answers, or else by a default that behaves like
// an empty API server that accepts every write. `hold` parks requests until
// the test answers them, for in-flight states.
// Contract: no threads, no clock; post() runs inline, post_after() is
// recorded and runs only when the test calls run_posted().
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "k8s/client/transport.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace testutil {

class ScriptedTransport : public k8s::Transport {
 public:
  struct Rule {
    std::string method, path_part;  // the request matches when its path contains path_part
    k8s::Result answer;
    int times = 1;
  };
  struct Held {
    k8s::Request req;
    k8s::Callback cb;
  };

  std::vector<k8s::Request> sent;
  std::deque<Held> held;
  bool hold = false;

  // The next `times` requests matching method and path get `answer`.
  void script(std::string method, std::string path_part, k8s::Result answer, int times = 1) {
    rules_.push_back({std::move(method), std::move(path_part), std::move(answer), times});
  }
  static k8s::Result status(int code, std::string reason = "") {
    k8s::Result r;
    r.status = code;
    r.reason = std::move(reason);
    r.error = "scripted " + std::to_string(code);
    r.body = R"({"kind":"Status","apiVersion":"v1","status":"Failure","code":)" + std::to_string(code) + "}";
    return r;
  }
  static k8s::Result ok(std::string body) {
    k8s::Result r;
    r.status = 200;
    r.body = std::move(body);
    return r;
  }
  // "POST /api/v1/namespaces/mon/secrets", one line per request sent.
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    for (const auto& r : sent) out.push_back(r.method + " " + r.path);
    return out;
  }
  std::string last_line() const { return sent.empty() ? "" : sent.back().method + " " + sent.back().path; }
  std::size_t count(const std::string& method) const {
    std::size_t n = 0;
    for (const auto& r : sent) n += r.method == method ? 1 : 0;
    return n;
  }
  void answer_held(k8s::Result r) {
    Held h = std::move(held.front());
    held.pop_front();
    h.cb(std::move(r));
  }
  void run_posted() {
    auto fns = std::move(posted_);
    posted_.clear();
    for (auto& fn : fns) fn();
  }

  void send(k8s::Request req, k8s::Callback cb) override {
    sent.push_back(req);
    if (std::optional<k8s::Result> r = scripted(req)) return cb(std::move(*r));
    if (hold) return held.push_back({std::move(req), std::move(cb)});
    cb(default_answer(req));
  }
  k8s::StreamId stream(k8s::Request req, k8s::LineHandler, k8s::Callback on_done) override {
    sent.push_back(std::move(req));
    on_done(status(0));
    return ++streams_;
  }
  void cancel(k8s::StreamId) override {}
  void post(std::function<void()> fn) override { fn(); }
  void post_after(std::chrono::milliseconds, std::function<void()> fn) override { posted_.push_back(std::move(fn)); }

 private:
  std::optional<k8s::Result> scripted(const k8s::Request& req) {
    for (auto it = rules_.begin(); it != rules_.end(); ++it) {
      if (it->method != req.method || req.path.find(it->path_part) == std::string::npos) continue;
      k8s::Result r = it->answer;
      if (--it->times <= 0) rules_.erase(it);
      return r;
    }
    return std::nullopt;
  }
  // Writes succeed and echo the object with a fresh resourceVersion; reads
  // find nothing.
  k8s::Result default_answer(const k8s::Request& req) {
    if (req.method == "GET") return status(404, "NotFound");
    k8s::Result r = ok("{}");
    if (req.method == "POST") r.status = 201;
    if ((req.method == "POST" || req.method == "PUT") && !req.body.empty()) {
      model::Value obj = model::parse_json(req.body, "request");
      if (model::Value* md = obj.find("metadata")) md->set("resourceVersion", std::to_string(++rv_));
      r.body = model::to_json(obj);
    }
    return r;
  }

  std::vector<Rule> rules_;
  std::vector<std::function<void()>> posted_;
  k8s::StreamId streams_ = 0;
  std::uint64_t rv_ = 100;
};

}  // namespace testutil
