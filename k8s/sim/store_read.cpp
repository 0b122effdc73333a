// Reads of the store: paginated lists, watches and bookmarks.
#include <algorithm>

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/store.hpp"
#include "k8s/sim/store_meta.hpp"
#include "model/codec.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace k8s::sim {

using model::Value;

namespace {

const char* kContinueTooOld =
    "The provided continue parameter is too old to display a consistent list result. You can start a new list "
    "without the continue parameter, or use the continue token in this response to retrieve the remainder of the "
    "results. Continuing with the provided token results in an inconsistent list - objects that were created, "
    "modified, or deleted between the time the first chunk was returned and now may show up in the list.";

struct ContinueToken {
  std::uint64_t rv = 0;
  std::string start;
  std::int64_t remaining = -1;  // items from `start` on when the token was made; -1 unknown
};

std::string encode_continue(std::uint64_t rv, const std::string& start, std::int64_t remaining) {
  Value v = Value::obj({{"v", "meta.k8s.io/v1"}, {"rv", static_cast<std::int64_t>(rv)}, {"start", start}});
  if (remaining >= 0) v.set("remaining", remaining);
  return model::base64_encode(model::to_json(v));
}

ContinueToken decode_continue(const std::string& token) {
  auto text = model::base64_decode(token);
  try {
    if (!text) throw model::ParseError("continue", 0, "not base64");
    Value v = model::parse_json(*text);
    const Value* rv = v.find("rv");
    const Value* start = v.find("start");
    if (!rv || !rv->is_int() || !start || !start->is_string()) throw model::ParseError("continue", 0, "fields");
    const Value* remaining = v.find("remaining");
    return {static_cast<std::uint64_t>(rv->as_int()), start->as_string(),
            remaining && remaining->is_int() ? remaining->as_int() : -1};
  } catch (const model::ParseError&) {
    throw ApiError::bad_request(
        "continue key is not valid: incorrect encoded start resourceVersion (version "
        "meta.k8s.io/v1)");
  }
}

bool selected(const Value& object, const ListOptions& o) {
  const Value* m = object.find("metadata");
  if (!o.labels.empty() && !o.labels.matches(m ? m->find("labels") : nullptr)) return false;
  return o.fields.empty() || o.fields.matches(object);
}

}  // namespace

ListResult Store::list(const ResourceType& t, const std::string& ns, const ListOptions& options) const {
  std::lock_guard lock(mutex_);
  ListResult out;
  out.rv = rv_;
  std::string prefix = t.namespaced && !ns.empty() ? ns + "/" : "";
  std::string start = prefix;
  // Counting what is left walks the rest of the collection; carried in the
  // token instead while nothing was written since the first page.
  std::int64_t known_remaining = -1;
  if (!options.continue_token.empty()) {
    ContinueToken c = decode_continue(options.continue_token);
    if (c.rv < compacted_rv_) throw ApiError::expired(kContinueTooOld);
    out.rv = c.rv;
    start = std::max(start, c.start);
    if (c.rv == rv_ && c.start.compare(0, prefix.size(), prefix) == 0) known_remaining = c.remaining;
  }
  auto coll = collections_.find(t.storage_key());
  if (coll == collections_.end()) return out;
  const auto& objects = coll->second;
  auto it = objects.lower_bound(start);
  for (; it != objects.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    if (!selected(it->second->value, options)) continue;
    if (options.limit && out.items.size() == options.limit) break;
    out.items.push_back(it->second);
  }
  bool more = it != objects.end() && it->first.compare(0, prefix.size(), prefix) == 0;
  if (!more) return out;
  std::int64_t remaining = -1;
  if (options.labels.empty() && options.fields.empty()) {
    if (known_remaining >= 0) {
      remaining = known_remaining - static_cast<std::int64_t>(out.items.size());
    } else {
      remaining = 0;
      for (auto rest = it; rest != objects.end() && rest->first.compare(0, prefix.size(), prefix) == 0; ++rest)
        ++remaining;
    }
    out.remaining = remaining;
  }
  out.continue_token = encode_continue(out.rv, it->first, remaining);
  return out;
}

void Store::replay(Watcher& w, const ResourceType& t, const std::string& ns, const WatchOptions& o) {
  const std::string& rv = o.resource_version;
  if (rv.empty() || rv == "0" || o.send_initial_events) {
    ListOptions lo{o.labels, o.fields, 0, ""};
    auto coll = collections_.find(t.storage_key());
    std::string prefix = t.namespaced && !ns.empty() ? ns + "/" : "";
    if (coll != collections_.end())
      for (auto it = coll->second.lower_bound(prefix);
           it != coll->second.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it)
        if (selected(it->second->value, lo)) w.push(EventType::added, it->second);
    // Marks the end of the initial state for sendInitialEvents watches.
    if (o.send_initial_events) w.push(EventType::bookmark, make_snapshot(Value::object(), rv_));
    return;
  }
  char* end = nullptr;
  std::uint64_t from = std::strtoull(rv.c_str(), &end, 10);
  if (*end != '\0') throw ApiError::bad_request("invalid resource version: " + rv);
  if (from < compacted_rv_)
    throw ApiError::expired("too old resource version: " + rv + " (" + std::to_string(compacted_rv_ + 1) + ")");
  for (const Event& e : history_)
    if (e.rv > from) w.offer(e);
}

std::shared_ptr<Watcher> Store::watch(const ResourceType& t, const std::string& ns, const WatchOptions& options) {
  std::lock_guard lock(mutex_);
  WatchFilter filter{t.storage_key(), t.namespaced ? ns : "", options.labels, options.fields};
  auto w = std::make_shared<Watcher>(std::move(filter), options_.watcher_queue_limit);
  replay(*w, t, ns, options);
  watchers_.push_back(w);
  return w;
}

void Store::unwatch(const std::shared_ptr<Watcher>& w) {
  std::lock_guard lock(mutex_);
  std::erase(watchers_, w);
  w->close();
}

std::optional<std::uint64_t> Store::bookmark_rv(const Watcher& w) const {
  std::lock_guard lock(mutex_);
  if (!w.queue_empty()) return std::nullopt;
  return rv_;
}

void Store::close_watchers() {
  std::lock_guard lock(mutex_);
  for (const auto& w : watchers_) w->close();
  watchers_.clear();
}

}  // namespace k8s::sim
