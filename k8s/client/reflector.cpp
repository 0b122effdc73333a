#include "k8s/client/reflector.hpp"

#include <atomic>
#include <functional>
#include <future>
#include <iterator>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "k8s/client/curl_transport.hpp"
#include "model/object_fields.hpp"
#include "model/parse.hpp"

namespace k8s {
namespace {

using ValuePtr = std::shared_ptr<const model::Value>;

// A watch that ends cleanly this soon without any event counts as a
// failure, so a server that keeps closing streams is not hammered.
constexpr std::chrono::seconds kShortWatch{1};

// An object's metadata.namespace and metadata.name ("" when absent or not
// strings), viewing its tree: a key of `known` views the tree stored
// beside it, so the cache copies neither string.
struct NameRef {
  std::string_view ns, name;
  friend bool operator==(const NameRef&, const NameRef&) = default;
};

struct NameRefHash {
  std::size_t operator()(const NameRef& r) const noexcept {
    std::hash<std::string_view> h;
    return h(r.ns) * 0x9e3779b97f4a7c15ULL ^ h(r.name);
  }
};

NameRef name_ref(const model::Value& object) {
  const model::Value* meta = object.find("metadata");
  auto text = [meta](std::string_view field) {
    const model::Value* v = meta ? meta->find(field) : nullptr;
    return v && v->is_string() ? std::string_view(v->as_string()) : std::string_view();
  };
  return {text("namespace"), text("name")};
}

bool same_version(const model::Value& a, const model::Value& b) {
  return model::meta_string(a, "resourceVersion") == model::meta_string(b, "resourceVersion");
}

}  // namespace

// Everything but `stopped` and the stats is touched only on the I/O
// thread. Callbacks hold a shared_ptr, and each checks `stopped` first.
struct Reflector::Impl : std::enable_shared_from_this<Reflector::Impl> {
  Impl(Client& c, const Resource& r, ReflectorOptions o, Sink s, Synced sy, ErrorSink e)
      : client(c),
        resource(&r),
        options(std::move(o)),
        sink(std::move(s)),
        synced(std::move(sy)),
        on_error(std::move(e)),
        random(reinterpret_cast<std::uintptr_t>(this) ^
               static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count())) {
    // The cache is keyed by name and versioned by resourceVersion: those
    // are never dropped, whatever the caller asked.
    std::erase_if(options.drop_metadata, [](const std::string& field) {
      return field == "resourceVersion" || field == "name" || field == "namespace";
    });
  }

  void relist();
  void list_page(std::string continue_token);
  void listed(Result r, std::uint64_t round);
  void list_item(model::Value item);
  void relisted(const std::string& rv);
  void watch();
  void on_line(std::string_view line);
  void watch_ended(Result r);
  void failed(const Result& r, void (Impl::*next)());
  void emit(model::Change type, ValuePtr object);
  void apply(model::Change type, model::Value object);
  void prepare(model::Value& object) const;
  using Known = std::unordered_map<NameRef, ValuePtr, NameRefHash>;
  void remember(Known::iterator at, ValuePtr object);
  void keep(Known::node_type node, ValuePtr object);
  void transport_after(std::chrono::milliseconds delay, void (Impl::*next)()) {
    client.transport().post_after(delay, [self = shared_from_this(), next] { (self.get()->*next)(); });
  }
  void count(std::uint64_t ReflectorStats::*field) {
    std::lock_guard lock(stats_mutex);
    ++(stats.*field);
  }

  Client& client;
  const Resource* resource;
  ReflectorOptions options;
  Sink sink;
  Synced synced;
  ErrorSink on_error;
  std::atomic<bool> stopped{false};

  // What the sink has been told is `known` and, while a relist is under
  // way, `unlisted`: the entries it has not listed yet (moved to `known` as
  // it lists them; what is left when it ends was deleted meanwhile).
  Known known, unlisted;
  std::uint64_t round = 0;  // numbers relists, so pages of an abandoned one are dropped
  bool listing = false;     // a relist is under way
  std::string last_rv;
  std::optional<StreamId> watch_id;
  bool gone = false;  // the current watch reported 410
  bool synced_fired = false;
  unsigned failures = 0;
  std::size_t watch_events = 0;
  std::chrono::steady_clock::time_point watch_started;
  SplitMix64 random;

  mutable std::mutex stats_mutex;
  ReflectorStats stats;
};

void Reflector::Impl::relist() {
  if (stopped) return;
  count(&ReflectorStats::lists);
  // A relist that failed half-way left entries aside; where it listed a
  // name again, its newer entry in `known` wins.
  known.merge(unlisted);
  unlisted.clear();
  unlisted.swap(known);
  known.reserve(unlisted.size());
  ++round;
  listing = true;
  list_page({});
}

void Reflector::Impl::list_page(std::string continue_token) {
  ListOptions o;
  o.label_selector = options.label_selector;
  o.field_selector = options.field_selector;
  o.limit = options.page_size;
  o.continue_token = std::move(continue_token);
  client.list(*resource, options.ns, o,
              [self = shared_from_this(), n = round](Result r) { self->listed(std::move(r), n); });
}

// Pages are told to the sink as they arrive, as differences from what it
// already knows (a relist after 410 must not repeat anything); the tables
// follow at once, so a relist that fails half-way loses nothing.
void Reflector::Impl::listed(Result r, std::uint64_t page_round) {
  if (stopped || !listing || page_round != round) return;  // a page of an abandoned relist
  if (!r.ok()) return failed(r, &Impl::relist);
  if (!r.continue_token.empty()) list_page(r.continue_token);  // in flight while this page decodes
  model::Value list;
  try {
    list = model::parse_json(r.body, "list");
  } catch (const model::ParseError& e) {
    listing = false;
    r.status = 0;
    r.error = std::string("undecodable list: ") + e.what();
    return failed(r, &Impl::relist);
  }
  if (model::Value* items = list.find("items"); items && items->is_array()) {
    for (model::Value& item : items->as_array()) list_item(std::move(item));
  }
  if (r.continue_token.empty()) relisted(r.resource_version);
}

void Reflector::Impl::list_item(model::Value item) {
  prepare(item);
  auto object = std::make_shared<const model::Value>(std::move(item));
  if (auto told = unlisted.find(name_ref(*object)); told != unlisted.end()) {
    // An unchanged object keeps the tree the sink was told (holding this
    // equal one too would double it) and its table node.
    if (same_version(*told->second, *object)) {
      known.insert(unlisted.extract(told));
      return;
    }
    emit(model::Change::modified, object);
    keep(unlisted.extract(told), std::move(object));
    return;
  }
  auto told = known.find(name_ref(*object));  // new, or listed twice by this relist
  if (told != known.end() && same_version(*told->second, *object)) return;
  emit(told == known.end() ? model::Change::added : model::Change::modified, object);
  remember(told, std::move(object));
}

void Reflector::Impl::relisted(const std::string& rv) {
  for (auto& [key, object] : unlisted) emit(model::Change::deleted, object);
  unlisted.clear();
  listing = false;
  last_rv = rv;
  failures = 0;
  if (!synced_fired && !stopped) {
    synced_fired = true;
    if (synced) synced();
  }
  watch();
}

void Reflector::Impl::watch() {
  if (stopped) return;
  count(&ReflectorStats::watches);
  ListOptions o;
  o.label_selector = options.label_selector;
  o.field_selector = options.field_selector;
  o.resource_version = last_rv;
  gone = false;
  watch_events = 0;
  watch_started = std::chrono::steady_clock::now();
  auto self = shared_from_this();
  watch_id = client.watch(
      *resource, options.ns, o, options.watch_timeout_seconds, [self](std::string_view l) { self->on_line(l); },
      [self](Result r) { self->watch_ended(std::move(r)); });
}

void Reflector::Impl::on_line(std::string_view line) {
  if (stopped || gone) return;
  model::Value event;
  try {
    event = model::parse_json(line, "watch event");
  } catch (const model::ParseError& e) {
    Result r;
    r.error = std::string("undecodable watch event: ") + e.what();
    count(&ReflectorStats::errors);
    if (on_error) on_error(r);
    return;
  }
  const model::Value* type = event.find("type");
  model::Value* object = event.find("object");
  if (!type || !type->is_string() || !object || !object->is_object()) return;
  const std::string& t = type->as_string();
  if (t == "BOOKMARK") {
    count(&ReflectorStats::bookmarks);
    if (std::string rv = model::meta_string(*object, "resourceVersion"); !rv.empty()) last_rv = rv;
  } else if (t == "ERROR") {
    const model::Value* code = object->find("code");
    if (code && code->is_int() && code->as_int() == 410) {
      gone = true;  // watch_ended relists
      if (watch_id) client.cancel(*watch_id);
      return;
    }
    Result r;
    r.status = code && code->is_int() ? static_cast<int>(code->as_int()) : 0;
    if (const model::Value* m = object->find("message"); m && m->is_string()) r.error = m->as_string();
    count(&ReflectorStats::errors);
    if (on_error) on_error(r);
  } else {
    ++watch_events;
    const model::Change wt = model::parse_change(t).value_or(model::Change::modified);
    if (std::string rv = model::meta_string(*object, "resourceVersion"); !rv.empty()) last_rv = rv;
    apply(wt, std::move(*object));
  }
}

// What the cache keeps. List items of built-in kinds come without kind and
// apiVersion; adding them with set() would double the capacity of the
// members vector the parser sized exactly, so the vector is rebuilt once.
void Reflector::Impl::prepare(model::Value& object) const {
  if (!object.is_object()) object = model::Value::object();
  if (model::Value* meta = options.drop_metadata.empty() ? nullptr : object.find("metadata")) {
    bool dropped = false;
    for (const std::string& field : options.drop_metadata) dropped = meta->erase(field) || dropped;
    // The parser sized the members exactly; give the dropped slots back.
    if (dropped) meta->as_object().shrink_to_fit();
  }
  const bool has_kind = object.find("kind"), has_api = object.find("apiVersion");
  if (has_kind && has_api) return;
  model::Value::Object& members = object.as_object();
  model::Value::Object out;
  out.reserve(members.size() + !has_kind + !has_api);
  std::move(members.begin(), members.end(), std::back_inserter(out));
  if (!has_kind) out.emplace_back("kind", resource->kind);
  if (!has_api) out.emplace_back("apiVersion", resource->api_version());
  members = std::move(out);
}

void Reflector::Impl::apply(model::Change type, model::Value object) {
  prepare(object);
  auto it = known.find(name_ref(object));
  if (type == model::Change::deleted) {
    if (it == known.end()) return;
    known.erase(it);
    emit(model::Change::deleted, std::make_shared<const model::Value>(std::move(object)));
    return;
  }
  if (it != known.end() && same_version(*it->second, object)) return;  // already told
  auto ptr = std::make_shared<const model::Value>(std::move(object));
  emit(it == known.end() ? model::Change::added : model::Change::modified, ptr);
  remember(it, std::move(ptr));
}

// Stores `object` as told, at `at` (its name's entry, or known.end() for a
// new name), its key viewing its own tree. A replaced entry is taken out of
// the table while its key still views the old tree, and goes back only once
// the key views the new one.
void Reflector::Impl::remember(Known::iterator at, ValuePtr object) {
  if (at == known.end()) {
    NameRef key = name_ref(*object);
    known.emplace(key, std::move(object));
    return;
  }
  keep(known.extract(at), std::move(object));
}

// Puts `node` (extracted from either table) in `known`, holding `object`.
void Reflector::Impl::keep(Known::node_type node, ValuePtr object) {
  node.mapped() = std::move(object);
  node.key() = name_ref(*node.mapped());
  known.insert(std::move(node));
}

void Reflector::Impl::watch_ended(Result r) {
  watch_id.reset();
  if (stopped) return;
  if (gone || r.status == 410) {
    count(&ReflectorStats::relists_410);
    return relist();
  }
  if (!r.ok()) return failed(r, &Impl::watch);
  bool idle = watch_events == 0 && std::chrono::steady_clock::now() - watch_started < kShortWatch;
  if (!idle) {
    failures = 0;
    return watch();  // timeoutSeconds passed or the server dropped us: resume
  }
  auto delay = options.backoff.delay(failures++, random);
  transport_after(delay, &Impl::watch);
}

void Reflector::Impl::failed(const Result& r, void (Impl::*next)()) {
  count(&ReflectorStats::errors);
  if (on_error) on_error(r);
  if (r.error == kTransportStopped) return;
  auto delay = std::max(options.backoff.delay(failures++, random), r.retry_after);
  transport_after(delay, next);
}

void Reflector::Impl::emit(model::Change type, ValuePtr object) {
  if (stopped) return;
  count(&ReflectorStats::events);
  sink(ObjectEvent{type, resource, std::move(object)});
}

Reflector::Reflector(Client& client, const Resource& r, ReflectorOptions o, Sink sink, Synced on_synced,
                     ErrorSink on_error)
    : impl_(std::make_shared<Impl>(client, r, std::move(o), std::move(sink), std::move(on_synced),
                                   std::move(on_error))) {}

Reflector::~Reflector() {
  stop();
}

void Reflector::start() {
  impl_->client.transport().post([self = impl_] { self->relist(); });
}

// Callbacks run only on the I/O thread and check `stopped` first, so once
// a function posted after setting it has run, none can follow.
void Reflector::stop() {
  impl_->stopped = true;
  Transport& t = impl_->client.transport();
  auto cancel = [self = impl_] {
    if (self->watch_id) self->client.cancel(*self->watch_id);
  };
  if (t.in_io_thread()) return cancel();
  std::promise<void> done;
  t.post([&done, cancel] {
    cancel();
    done.set_value();
  });
  done.get_future().wait();
}

ReflectorStats Reflector::stats() const {
  std::lock_guard lock(impl_->stats_mutex);
  return impl_->stats;
}

}  // namespace k8s
