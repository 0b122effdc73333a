#include <algorithm>

#include "k8s/sim/api.hpp"
#include "model/yaml_emit.hpp"

namespace k8s::sim {

using model::Value;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

WatchStream::WatchStream(Store& store, std::shared_ptr<Watcher> watcher, ResourceType type, WatchStreamOptions options)
    : store_(store), watcher_(std::move(watcher)), type_(std::move(type)), options_(options) {
  auto now = steady_clock::now();
  deadline_ = now + options_.timeout;
  next_bookmark_ = now + options_.bookmark_interval;
}

WatchStream::WatchStream(Store& store, const Value& error_status) : store_(store) {
  pending_ = watch_event_line("ERROR", model::to_json(error_status));
  deadline_ = steady_clock::now();
}

WatchStream::~WatchStream() {
  if (watcher_) store_.unwatch(watcher_);
}

std::string WatchStream::bookmark(std::uint64_t rv, bool initial_end) const {
  Value meta = Value::obj({{"resourceVersion", std::to_string(rv)}});
  if (initial_end) meta.set("annotations", Value::obj({{"k8s.io/initial-events-end", "true"}}));
  Value object = Value::obj({{"kind", type_.kind}, {"apiVersion", type_.api_version()}, {"metadata", meta}});
  return watch_event_line("BOOKMARK", model::to_json(object));
}

std::string WatchStream::encode(const SnapshotPtr& snap) {
  bool first = !std::exchange(sent_object_, true);
  if (options_.encode) return options_.encode(snap, first);
  const Value* v = snap->value.find("apiVersion");
  if (v && v->is_string() && v->as_string() == type_.api_version()) return snap->json;
  return model::to_json(Cluster::as_version(type_, snap->value));
}

std::optional<std::string> WatchStream::next(milliseconds wait) {
  if (!pending_.empty()) return std::exchange(pending_, "");
  if (!watcher_) return std::nullopt;
  auto now = steady_clock::now();
  if (now >= deadline_) return std::nullopt;
  auto until = std::min(deadline_, now + wait);
  if (options_.bookmarks) until = std::min(until, next_bookmark_);
  auto events = watcher_->take(std::chrono::duration_cast<milliseconds>(until - now));
  if (events.empty() && watcher_->closed()) return std::nullopt;
  std::string out;
  for (const auto& [type, snap] : events) {
    if (type == EventType::bookmark) {
      out += bookmark(snap->rv, true);
      continue;
    }
    out += watch_event_line(event_type_name(type), encode(snap));
  }
  now = steady_clock::now();
  if (options_.bookmarks && now >= next_bookmark_) {
    if (auto rv = store_.bookmark_rv(*watcher_)) out += bookmark(*rv, false);
    next_bookmark_ = now + options_.bookmark_interval;
  }
  return out;
}

}  // namespace k8s::sim
