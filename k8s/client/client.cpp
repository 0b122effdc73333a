#include "k8s/client/client.hpp"

#include <deque>
#include <mutex>

#include "k8s/client/curl_transport.hpp"
#include "k8s/client/list_body.hpp"

namespace k8s {

namespace {

void add_param(std::string& q, std::string_view key, std::string_view value) {
  if (value.empty()) return;
  if (!q.empty()) q += '&';
  q += key;
  q += '=';
  q += query_escape(value);
}

std::string list_query(const ListOptions& o) {
  std::string q;
  add_param(q, "labelSelector", o.label_selector);
  add_param(q, "fieldSelector", o.field_selector);
  add_param(q, "resourceVersion", o.resource_version);
  add_param(q, "continue", o.continue_token);
  if (o.limit > 0) add_param(q, "limit", std::to_string(o.limit));
  return q;
}

const char* patch_content_type(PatchType t) {
  switch (t) {
    case PatchType::merge:
      return "application/merge-patch+json";
    case PatchType::json:
      return "application/json-patch+json";
    case PatchType::strategic:
      return "application/strategic-merge-patch+json";
    case PatchType::apply:
      return "application/apply-patch+yaml";
  }
  return "application/merge-patch+json";
}

const char* propagation_name(Propagation p) {
  switch (p) {
    case Propagation::foreground:
      return "Foreground";
    case Propagation::orphan:
      return "Orphan";
    case Propagation::background:
      break;
  }
  return "Background";
}

// Fills resource_version and continue_token of a successful list.
void read_list_metadata(Result& r) {
  if (!r.ok()) return;
  ListPage page;
  if (!scan_list(r.body, page)) return;
  r.resource_version = std::move(page.resource_version);
  r.continue_token = std::move(page.continue_token);
}

// Accumulates the pages of list_all into one List body.
struct Pages {
  std::string kind, api_version, items;
  bool first = true;

  bool add(std::string& body) {
    ListPage page;
    if (!scan_list(body, page)) return false;
    if (first) {
      kind = page.kind;
      api_version = page.api_version;
    }
    if (!page.items.empty()) {
      if (!items.empty()) items += ',';
      items.append(page.items);
    }
    first = false;
    return true;
  }
  std::string body(const std::string& rv) const {
    return R"({"kind":")" + kind + R"(","apiVersion":")" + api_version + R"(","metadata":{"resourceVersion":")" + rv +
           R"("},"items":[)" + items + "]}";
  }
};

}  // namespace

// Shared with in-flight callbacks, so a Client may be destroyed while its
// requests finish. The transport pointer stays valid: Client owns the
// transport and destroys it after releasing the Impl, and the transport
// completes every callback before it dies.
struct Client::Impl : std::enable_shared_from_this<Client::Impl> {
  Impl(Transport* t, const ClientOptions& o)
      : transport(t), options(o), bucket(o.qps, o.burst), random(reinterpret_cast<std::uintptr_t>(this) ^ seed()) {}

  static std::uint64_t seed() {
    return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }

  // Runs `fn` when the rate limit allows: at once, or from a timer on the
  // transport thread; waiters keep their order.
  void acquire(std::function<void()> fn) {
    {
      std::lock_guard lock(mutex);
      if (waiting.empty() && bucket.try_take(std::chrono::steady_clock::now())) {
        // fall through to run outside the lock
      } else {
        waiting.push_back(std::move(fn));
        schedule_drain_locked();
        return;
      }
    }
    fn();
  }

  void schedule_drain_locked() {
    if (drain_scheduled || waiting.empty()) return;
    drain_scheduled = true;
    auto wait = bucket.wait(std::chrono::steady_clock::now());
    transport->post_after(std::max(wait, std::chrono::milliseconds(1)), [self = shared_from_this()] { self->drain(); });
  }

  void drain() {
    std::vector<std::function<void()>> ready;
    {
      std::lock_guard lock(mutex);
      drain_scheduled = false;
      auto now = std::chrono::steady_clock::now();
      while (!waiting.empty() && bucket.try_take(now)) {
        ready.push_back(std::move(waiting.front()));
        waiting.pop_front();
      }
      schedule_drain_locked();
    }
    for (auto& fn : ready) fn();
  }

  std::chrono::milliseconds retry_delay(unsigned attempt, const Result& r) {
    std::lock_guard lock(mutex);
    return std::max(options.backoff.delay(attempt, random), r.retry_after);
  }

  // Sends `req`, retrying retry_call outcomes; `cb` sees the final Result.
  void call(Request req, Callback cb, unsigned attempt = 0) {
    if (req.timeout.count() == 0) req.timeout = options.timeout;
    if (req.user_agent.empty()) req.user_agent = options.user_agent;
    acquire([self = shared_from_this(), req, cb = std::move(cb), attempt]() mutable {
      Request copy = req;
      auto sent = std::chrono::steady_clock::now();
      self->transport->send(
          std::move(copy), [self, req = std::move(req), cb = std::move(cb), attempt, sent](Result r) mutable {
            if (self->options.on_request) {
              std::chrono::duration<double> took = std::chrono::steady_clock::now() - sent;
              self->options.on_request(req.method, r.status, took.count());
            }
            bool retry = r.error_class() == ErrorClass::retry_call && attempt < self->options.max_retries &&
                         r.error != kTransportStopped;
            if (!retry) {
              r.attempts = attempt + 1;
              if (cb) cb(std::move(r));
              return;
            }
            auto delay = self->retry_delay(attempt, r);
            self->transport->post_after(delay, [self, req = std::move(req), cb = std::move(cb), attempt]() mutable {
              self->call(std::move(req), std::move(cb), attempt + 1);
            });
          });
    });
  }

  void list_page(Request req, Callback cb) {
    call(std::move(req), [cb = std::move(cb)](Result res) {
      read_list_metadata(res);
      cb(std::move(res));
    });
  }

  void next_page(Resource r, std::string ns, ListOptions o, std::shared_ptr<Pages> pages, Callback cb);

  Transport* transport;
  ClientOptions options;
  std::mutex mutex;  // guards the members below
  TokenBucket bucket;
  SplitMix64 random;
  std::deque<std::function<void()>> waiting;
  bool drain_scheduled = false;
};

void Client::Impl::next_page(Resource r, std::string ns, ListOptions o, std::shared_ptr<Pages> pages, Callback cb) {
  Request req;
  req.path = resource_path(r, ns);
  req.query = list_query(o);
  list_page(std::move(req), [self = shared_from_this(), r, ns, o, pages, cb = std::move(cb)](Result res) mutable {
    if (!res.ok()) return cb(std::move(res));
    if (pages->first && res.continue_token.empty()) return cb(std::move(res));  // one page: as is
    if (!pages->add(res.body)) {
      res.status = 0;
      res.error = "undecodable list page";
      return cb(std::move(res));
    }
    if (!res.continue_token.empty()) {
      o.continue_token = res.continue_token;
      return self->next_page(std::move(r), std::move(ns), std::move(o), std::move(pages), std::move(cb));
    }
    res.body = pages->body(res.resource_version);
    cb(std::move(res));
  });
}

Client::Client(std::shared_ptr<Transport> transport, ClientOptions options)
    : transport_(std::move(transport)),
      options_(std::move(options)),
      impl_(std::make_shared<Impl>(transport_.get(), options_)) {}

Client::~Client() = default;

void Client::get(const Resource& r, std::string_view ns, std::string_view name, Callback cb) {
  Request req;
  req.path = resource_path(r, ns, name);
  impl_->call(std::move(req), std::move(cb));
}

void Client::list(const Resource& r, std::string_view ns, const ListOptions& o, Callback cb) {
  Request req;
  req.path = resource_path(r, ns);
  req.query = list_query(o);
  impl_->list_page(std::move(req), std::move(cb));
}

void Client::list_all(const Resource& r, std::string_view ns, ListOptions o, Callback cb) {
  impl_->next_page(r, std::string(ns), std::move(o), std::make_shared<Pages>(), std::move(cb));
}

void Client::create(const Resource& r, std::string_view ns, std::string body, Callback cb) {
  Request req;
  req.method = "POST";
  req.path = resource_path(r, ns);
  add_param(req.query, "fieldManager", options_.field_manager);
  req.body = std::move(body);
  impl_->call(std::move(req), std::move(cb));
}

void Client::update(const Resource& r, std::string_view ns, std::string_view name, std::string body, Callback cb,
                    std::string_view subresource) {
  Request req;
  req.method = "PUT";
  req.path = resource_path(r, ns, name, subresource);
  add_param(req.query, "fieldManager", options_.field_manager);
  req.body = std::move(body);
  impl_->call(std::move(req), std::move(cb));
}

void Client::patch(const Resource& r, std::string_view ns, std::string_view name, PatchType type, std::string body,
                   Callback cb, std::string_view subresource) {
  Request req;
  req.method = "PATCH";
  req.path = resource_path(r, ns, name, subresource);
  req.content_type = patch_content_type(type);
  add_param(req.query, "fieldManager", options_.field_manager);
  if (type == PatchType::apply) add_param(req.query, "force", "true");
  req.body = std::move(body);
  impl_->call(std::move(req), std::move(cb));
}

void Client::remove(const Resource& r, std::string_view ns, std::string_view name, Propagation p, Callback cb) {
  Request req;
  req.method = "DELETE";
  req.path = resource_path(r, ns, name);
  req.body =
      std::string(R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":")") + propagation_name(p) + "\"}";
  impl_->call(std::move(req), std::move(cb));
}

StreamId Client::watch(const Resource& r, std::string_view ns, const ListOptions& o, int timeout_seconds,
                       LineHandler on_line, Callback on_done) {
  Request req;
  req.path = resource_path(r, ns);
  ListOptions w = o;
  w.limit = 0;
  w.continue_token.clear();
  req.user_agent = options_.user_agent;
  req.query = "watch=true&allowWatchBookmarks=true";
  if (std::string q = list_query(w); !q.empty()) req.query += "&" + q;
  if (timeout_seconds > 0) {
    req.query += "&timeoutSeconds=" + std::to_string(timeout_seconds);
    // A silent stream past the server's own deadline is a dead connection.
    req.timeout = std::chrono::seconds(timeout_seconds + 30);
  }
  return transport_->stream(std::move(req), std::move(on_line), std::move(on_done));
}

void Client::cancel(StreamId id) {
  transport_->cancel(id);
}

}  // namespace k8s
