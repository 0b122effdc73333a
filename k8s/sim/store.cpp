#include "k8s/sim/store.hpp"

#include <cstdio>

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/store_meta.hpp"
#include "model/object_fields.hpp"

namespace k8s::sim {

using model::Value;

namespace {

const char* kModified = "the object has been modified; please apply your changes to the latest version and try again";

std::uint64_t seed_of(std::uint64_t seed) {
  return seed ? seed : std::random_device{}();
}

}  // namespace

std::string object_key(const std::string& ns, const std::string& name) {
  return ns + "/" + name;
}

Store::Store(const Clock& clock, StoreOptions options)
    : clock_(clock), options_(options), rng_(seed_of(options.seed)) {}

std::string Store::new_uid() {
  std::uint64_t a = rng_(), b = rng_();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::string Store::random_suffix() {
  static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  for (int i = 0; i < 5; ++i) out += alphabet[rng_() % (sizeof alphabet - 1)];
  return out;
}

void Store::emit(EventType type, const ResourceType& t, SnapshotPtr object, SnapshotPtr old) {
  Event e{type, t.storage_key(), meta_string(object->value, "namespace"), std::move(object), std::move(old), rv_};
  for (const auto& w : watchers_) w->offer(e);
  history_.push_back(std::move(e));
  while (history_.size() > options_.history_limit) {
    compacted_rv_ = history_.front().rv;
    history_.pop_front();
  }
}

SnapshotPtr Store::create(const ResourceType& t, Value object, bool dry_run) {
  std::lock_guard lock(mutex_);
  Value& m = meta(object);
  if (!meta_string(object, "resourceVersion").empty())
    throw ApiError::bad_request("resourceVersion should not be set on objects to be created");
  std::string ns = t.namespaced ? meta_string(object, "namespace") : "";
  std::string name = meta_string(object, "name");
  Collection& c = collections_[t.storage_key()];
  if (name.empty()) {
    std::string prefix = meta_string(object, "generateName");
    for (int attempt = 0; attempt < 8 && (name.empty() || c.count(object_key(ns, name))); ++attempt)
      name = prefix + random_suffix();
    m.set("name", name);
  }
  if (c.count(object_key(ns, name))) throw ApiError::already_exists(t.group, t.plural, name);
  if (!t.namespaced) m.erase("namespace");
  model::strip_server_metadata(m);
  m.set("uid", new_uid());
  m.set("creationTimestamp", rfc3339(clock_.now()));
  if (t.tracks_generation) m.set("generation", 1);
  if (dry_run) return make_snapshot(std::move(object), rv_);
  m.set("resourceVersion", std::to_string(++rv_));
  SnapshotPtr snap = make_snapshot(std::move(object), rv_);
  c[object_key(ns, name)] = snap;
  index_owners(t.storage_key(), nullptr, snap);
  emit(EventType::added, t, snap, nullptr);
  return snap;
}

SnapshotPtr Store::get(const ResourceType& t, const std::string& ns, const std::string& name) const {
  std::lock_guard lock(mutex_);
  auto c = collections_.find(t.storage_key());
  if (c != collections_.end()) {
    auto it = c->second.find(object_key(t.namespaced ? ns : "", name));
    if (it != c->second.end()) return it->second;
  }
  throw ApiError::not_found(t.group, t.plural, name);
}

SnapshotPtr Store::update(const ResourceType& t, const std::string& ns, const std::string& name, Value object,
                          Subresource sub, bool dry_run) {
  return mutate(
      t, ns, name, [&](const Value&) { return std::move(object); }, sub, dry_run);
}

SnapshotPtr Store::mutate(const ResourceType& t, const std::string& ns, const std::string& name, const Mutator& f,
                          Subresource sub, bool dry_run) {
  std::lock_guard lock(mutex_);
  Collection& c = collections_[t.storage_key()];
  auto it = c.find(object_key(t.namespaced ? ns : "", name));
  if (it == c.end()) throw ApiError::not_found(t.group, t.plural, name);
  SnapshotPtr old = it->second;
  return commit_update(t, old, f(old->value), sub, dry_run);
}

namespace {

// Carries over what a client may not change through this endpoint.
Value merge_for_update(const ResourceType& t, const Value& old, Value next, Subresource sub) {
  if (sub == Subresource::status) {
    Value merged = old;
    const Value* status = next.find("status");
    if (status)
      merged.set("status", *status);
    else
      merged.erase("status");
    meta(merged).set("resourceVersion", meta_string(next, "resourceVersion"));
    meta(merged).set("uid", meta_string(next, "uid"));
    return merged;
  }
  if (t.status_subresource) {
    const Value* status = old.find("status");
    if (status)
      next.set("status", *status);
    else
      next.erase("status");
  }
  return next;
}

}  // namespace

SnapshotPtr Store::commit_update(const ResourceType& t, const SnapshotPtr& old, Value next, Subresource sub,
                                 bool dry_run) {
  const Value& prev = old->value;
  std::string name = meta_string(prev, "name");
  next = merge_for_update(t, prev, std::move(next), sub);
  std::string rv = meta_string(next, "resourceVersion");
  if (!rv.empty() && rv != meta_string(prev, "resourceVersion"))
    throw ApiError::conflict(t.group, t.plural, name, kModified);
  std::string uid = meta_string(next, "uid");
  if (!uid.empty() && uid != meta_string(prev, "uid"))
    throw ApiError::conflict(
        t.group, t.plural, name,
        "Precondition failed: UID in precondition: " + uid + ", UID in object meta: " + meta_string(prev, "uid"));
  Value& m = meta(next);
  const Value& pm = *prev.find("metadata");
  auto keep = [&](std::string_view f) {
    if (const Value* v = pm.find(f))
      m.set(std::string(f), *v);
    else
      m.erase(f);
  };
  keep("name");
  keep("namespace");
  for (std::string_view f : model::kServerSetMetadata) keep(f);
  if (t.tracks_generation && generation_view(prev) != generation_view(next)) {
    const Value* g = pm.find("generation");
    m.set("generation", (g && g->is_int() ? g->as_int() : 0) + 1);
  }
  if (next == prev) return old;  // a no-op write keeps its resourceVersion
  const Value* fin = m.find("finalizers");
  bool finalized = m.find("deletionTimestamp") && (!fin || fin->size() == 0);
  if (dry_run) return make_snapshot(std::move(next), rv_);
  Collection& c = collections_[t.storage_key()];
  if (finalized) return erase_locked(t, make_snapshot(std::move(next), rv_), c);
  m.set("resourceVersion", std::to_string(++rv_));
  SnapshotPtr snap = make_snapshot(std::move(next), rv_);
  c[object_key(meta_string(snap->value, "namespace"), name)] = snap;
  index_owners(t.storage_key(), old, snap);
  emit(EventType::modified, t, snap, old);
  return snap;
}

SnapshotPtr Store::erase_locked(const ResourceType& t, const SnapshotPtr& old, Collection& c) {
  Value last = old->value;
  meta(last).set("resourceVersion", std::to_string(++rv_));
  SnapshotPtr snap = make_snapshot(std::move(last), rv_);
  c.erase(object_key(meta_string(snap->value, "namespace"), meta_string(snap->value, "name")));
  index_owners(t.storage_key(), old, nullptr);
  emit(EventType::deleted, t, snap, nullptr);
  return snap;
}

SnapshotPtr Store::remove(const ResourceType& t, const std::string& ns, const std::string& name,
                          const DeleteOptions& options) {
  std::lock_guard lock(mutex_);
  Collection& c = collections_[t.storage_key()];
  auto it = c.find(object_key(t.namespaced ? ns : "", name));
  if (it == c.end()) throw ApiError::not_found(t.group, t.plural, name);
  SnapshotPtr old = it->second;
  if (options.uid && *options.uid != meta_string(old->value, "uid"))
    throw ApiError::conflict(t.group, t.plural, name,
                             "Precondition failed: UID in precondition: " + *options.uid +
                                 ", UID in object meta: " + meta_string(old->value, "uid"));
  if (options.resource_version && *options.resource_version != meta_string(old->value, "resourceVersion"))
    throw ApiError::conflict(t.group, t.plural, name,
                             "Precondition failed: ResourceVersion in precondition: " + *options.resource_version +
                                 ", ResourceVersion in meta: " + meta_string(old->value, "resourceVersion"));
  const Value* fin = old->value.find("metadata")->find("finalizers");
  bool has_finalizers = fin && fin->size() > 0;
  if (options.dry_run) return old;
  if (!has_finalizers) return erase_locked(t, old, c);
  if (old->value.find("metadata")->find("deletionTimestamp")) return old;
  Value next = old->value;
  meta(next).set("deletionTimestamp", rfc3339(clock_.now()));
  meta(next).set("deletionGracePeriodSeconds", 0);
  meta(next).set("resourceVersion", std::to_string(++rv_));
  SnapshotPtr snap = make_snapshot(std::move(next), rv_);
  it->second = snap;
  emit(EventType::modified, t, snap, old);
  return snap;
}

namespace {

std::vector<std::string> owner_uids(const SnapshotPtr& s) {
  std::vector<std::string> out;
  const Value* m = s ? s->value.find("metadata") : nullptr;
  const Value* refs = m ? m->find("ownerReferences") : nullptr;
  if (refs && refs->is_array())
    for (const Value& r : refs->as_array())
      if (const Value* uid = r.find("uid"); uid && uid->is_string()) out.push_back(uid->as_string());
  return out;
}

}  // namespace

void Store::index_owners(const std::string& collection, const SnapshotPtr& before, const SnapshotPtr& after) {
  const SnapshotPtr& any = after ? after : before;
  std::pair<std::string, std::string> entry{
      collection, object_key(meta_string(any->value, "namespace"), meta_string(any->value, "name"))};
  for (const std::string& uid : owner_uids(before)) {
    auto it = dependents_.find(uid);
    if (it == dependents_.end()) continue;
    it->second.erase(entry);
    if (it->second.empty()) dependents_.erase(it);
  }
  for (const std::string& uid : owner_uids(after)) dependents_[uid].insert(entry);
}

std::vector<std::pair<std::string, SnapshotPtr>> Store::dependents(const std::string& uid) const {
  std::lock_guard lock(mutex_);
  std::vector<std::pair<std::string, SnapshotPtr>> out;
  auto it = dependents_.find(uid);
  if (it == dependents_.end()) return out;
  for (const auto& [collection, key] : it->second) {
    auto c = collections_.find(collection);
    if (c == collections_.end()) continue;
    auto obj = c->second.find(key);
    if (obj != c->second.end()) out.emplace_back(collection, obj->second);
  }
  return out;
}

std::uint64_t Store::current_rv() const {
  std::lock_guard lock(mutex_);
  return rv_;
}

void Store::compact() {
  std::lock_guard lock(mutex_);
  compacted_rv_ = rv_;
  history_.clear();
}

}  // namespace k8s::sim
