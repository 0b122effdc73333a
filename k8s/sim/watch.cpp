#include "k8s/sim/watch.hpp"

#include "model/yaml_emit.hpp"

namespace k8s::sim {

SnapshotPtr make_snapshot(model::Value v, std::uint64_t rv) {
  auto s = std::make_shared<Snapshot>();
  s->json = model::to_json(v);
  s->value = std::move(v);
  s->rv = rv;
  return s;
}

const char* event_type_name(EventType t) {
  switch (t) {
    case EventType::added:
      return "ADDED";
    case EventType::modified:
      return "MODIFIED";
    case EventType::deleted:
      return "DELETED";
    case EventType::bookmark:
      return "BOOKMARK";
    case EventType::error:
      return "ERROR";
  }
  return "ERROR";
}

bool WatchFilter::matches(const model::Value& object) const {
  if (!ns.empty()) {
    const model::Value* meta = object.find("metadata");
    const model::Value* n = meta ? meta->find("namespace") : nullptr;
    if (!n || !n->is_string() || n->as_string() != ns) return false;
  }
  const model::Value* meta = object.find("metadata");
  if (!labels.empty() && !labels.matches(meta ? meta->find("labels") : nullptr)) return false;
  return fields.empty() || fields.matches(object);
}

void Watcher::offer(const Event& e) {
  if (e.collection != filter_.collection) return;
  bool now = filter_.matches(e.object->value);
  if (e.type != EventType::modified) {
    if (now) push(e.type, e.object);
    return;
  }
  bool before = e.old && filter_.matches(e.old->value);
  if (before && now)
    push(EventType::modified, e.object);
  else if (now)
    push(EventType::added, e.object);
  else if (before)
    push(EventType::deleted, e.object);
}

void Watcher::push(EventType type, SnapshotPtr object) {
  bool wake = true;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    if (queue_.size() >= max_queue_) {
      closed_ = true;  // too slow: the client must re-watch
      queue_.clear();
    } else {
      // The consumer was woken when the queue became non-empty and takes
      // everything at once, so later pushes need not wake it again (this
      // spares the writer a futex wake per watcher per event).
      wake = queue_.empty();
      queue_.emplace_back(type, std::move(object));
    }
  }
  if (wake) cv_.notify_all();
}

std::vector<std::pair<EventType, SnapshotPtr>> Watcher::take(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  cv_.wait_for(lock, timeout, [&] { return closed_ || !queue_.empty(); });
  std::vector<std::pair<EventType, SnapshotPtr>> out(std::make_move_iterator(queue_.begin()),
                                                     std::make_move_iterator(queue_.end()));
  queue_.clear();
  return out;
}

bool Watcher::closed() const {
  std::lock_guard lock(mutex_);
  return closed_;
}

bool Watcher::queue_empty() const {
  std::lock_guard lock(mutex_);
  return queue_.empty();
}

void Watcher::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  cv_.notify_all();
}

}  // namespace k8s::sim
