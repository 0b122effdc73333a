// Deletion with garbage collection by ownerReferences, as the real
// garbage collector does it (synchronously here): Background deletes the
// owner, then its dependents; Foreground marks the owner (finalizer
// foregroundDeletion), deletes the dependents, then the owner; Orphan
// removes the owner's references from its dependents and keeps them.
#include <algorithm>

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/cluster.hpp"
#include "k8s/sim/store_meta.hpp"

namespace k8s::sim {

using model::Value;

namespace {

const char* kForeground = "foregroundDeletion";

std::vector<std::string> owner_uids(const Value& object) {
  std::vector<std::string> out;
  const Value* refs = object.find("metadata")->find("ownerReferences");
  if (refs && refs->is_array())
    for (const Value& r : refs->as_array())
      if (const Value* uid = r.find("uid"); uid && uid->is_string()) out.push_back(uid->as_string());
  return out;
}

Value with_finalizer(Value object, const char* name, bool present) {
  Value& m = meta(object);
  Value* list = m.find("finalizers");
  if (!list || !list->is_array()) list = &m.set("finalizers", Value::array());
  std::erase_if(list->as_array(), [&](const Value& f) { return f.is_string() && f.as_string() == name; });
  if (present) list->push(name);
  if (list->size() == 0) m.erase("finalizers");
  return object;
}

}  // namespace

std::vector<std::pair<ResourceType, SnapshotPtr>> Cluster::dependents_of(const Value& owner) const {
  std::vector<std::pair<ResourceType, SnapshotPtr>> out;
  auto types = types_.all();
  for (auto& [collection, object] : store_.dependents(meta_string(owner, "uid"))) {
    auto t = std::find_if(types.begin(), types.end(),
                          [&](const ResourceType& rt) { return rt.storage_key() == collection; });
    if (t != types.end()) out.emplace_back(*t, object);
  }
  return out;
}

void Cluster::drop_owner_reference(const ResourceType& t, const SnapshotPtr& dependent, const std::string& uid) {
  auto drop = [&](const Value& current) {
    Value next = current;
    Value* refs = meta(next).find("ownerReferences");
    if (refs && refs->is_array())
      std::erase_if(refs->as_array(), [&](const Value& r) { return r.find("uid") && *r.find("uid") == Value(uid); });
    if (refs && refs->size() == 0) meta(next).erase("ownerReferences");
    return next;
  };
  try {
    store_.mutate(t, meta_string(dependent->value, "namespace"), meta_string(dependent->value, "name"), drop,
                  Subresource::main);
  } catch (const ApiError& e) {
    if (e.code() != 404) throw;
  }
}

void Cluster::collect_dependents(const Value& owner) {
  std::string uid = meta_string(owner, "uid");
  for (const auto& [t, dep] : dependents_of(owner)) {
    auto uids = owner_uids(dep->value);
    bool only_owner = std::all_of(uids.begin(), uids.end(), [&](const std::string& u) { return u == uid; });
    if (!only_owner) {
      drop_owner_reference(t, dep, uid);  // other owners keep it alive
      continue;
    }
    try {
      remove(t, meta_string(dep->value, "namespace"), meta_string(dep->value, "name"), {});
    } catch (const ApiError& e) {
      if (e.code() != 404) throw;
    }
  }
}

bool Cluster::owners_gone(const std::string& ns, const Value& object) const {
  const Value* refs = object.find("metadata")->find("ownerReferences");
  if (!refs || !refs->is_array() || refs->size() == 0) return false;
  for (const Value& r : refs->as_array()) {
    auto str = [&](const char* key) {
      const Value* v = r.find(key);
      return v && v->is_string() ? v->as_string() : std::string();
    };
    auto t = types_.find_kind(str("apiVersion"), str("kind"));
    if (!t) return false;  // a kind this cluster does not serve: leave it alone
    try {
      if (meta_string(store_.get(*t, t->namespaced ? ns : "", str("name"))->value, "uid") == str("uid")) return false;
    } catch (const ApiError& e) {
      if (e.code() != 404) throw;
    }
  }
  return true;
}

void Cluster::collect_if_orphaned(const ResourceType& t, const SnapshotPtr& created) {
  const std::string ns = meta_string(created->value, "namespace");
  if (!owners_gone(ns, created->value)) return;
  try {
    remove(t, ns, meta_string(created->value, "name"), {});
  } catch (const ApiError& e) {
    if (e.code() != 404) throw;
  }
}

void Cluster::orphan_dependents(const Value& owner) {
  for (const auto& [t, dep] : dependents_of(owner)) drop_owner_reference(t, dep, meta_string(owner, "uid"));
}

SnapshotPtr Cluster::remove(const ResourceType& t, const std::string& ns, const std::string& name,
                            const DeleteOptions& o) {
  if (!o.propagation.empty() && o.propagation != "Background" && o.propagation != "Foreground" &&
      o.propagation != "Orphan")
    throw ApiError::bad_request("propagationPolicy: Unsupported value: \"" + o.propagation +
                                "\": supported values: \"Foreground\", \"Background\", \"Orphan\"");
  if (o.dry_run) return store_.remove(t, ns, name, o);
  if (o.propagation == "Orphan") orphan_dependents(store_.get(t, ns, name)->value);
  if (o.propagation != "Foreground") {
    SnapshotPtr snap = store_.remove(t, ns, name, o);
    if (!has_finalizers(snap->value)) after_delete(t, snap);
    return snap;
  }
  auto mark = [](const Value& current) { return with_finalizer(current, kForeground, true); };
  store_.mutate(t, ns, name, mark, Subresource::main);
  SnapshotPtr marked = store_.remove(t, ns, name, o);
  collect_dependents(marked->value);
  auto unmark = [](const Value& current) { return with_finalizer(current, kForeground, false); };
  SnapshotPtr last = store_.mutate(t, ns, name, unmark, Subresource::main);
  after_write(t, last);
  return marked;
}

}  // namespace k8s::sim
