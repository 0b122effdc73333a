#include "actors/core/router.hpp"

#include <algorithm>

#include "model/object_fields.hpp"

namespace actors::core {
namespace {

std::size_t string_members(const model::Value* labels) {
  std::size_t n = 0;
  if (labels && labels->is_object())
    for (const auto& member : labels->as_object()) n += member.second.is_string() ? 1 : 0;
  return n;
}

// Whether two metadata.labels objects hold the same labels as selectors
// read them (string values; any other value reads as absent).
bool same_labels(const model::Value* a, const model::Value* b) {
  if (string_members(a) != string_members(b)) return false;
  if (!a || !a->is_object()) return true;
  for (const auto& [key, value] : a->as_object()) {
    if (!value.is_string()) continue;
    const std::string* other = model::label_string(b, key);
    if (!other || *other != value.as_string()) return false;
  }
  return true;
}

}  // namespace

const std::vector<std::string>& selected_kinds() {
  static const std::vector<std::string> kinds = {"MetricsInstance", "LogsInstance",       "Integration",
                                                 "ServiceMonitor",  "PodMonitor",         "Probe",
                                                 "PodLogs",         "MetricsIntegration", "IntegrationMonitor"};
  return kinds;
}

RootLifecycle root_lifecycle(const Event& e) {
  if (e.kind != "GrafanaAgent" || !e.object) return {};
  using Action = RootLifecycle::Action;
  return {e.type == EventType::deleted ? Action::stop : Action::ensure, object_key(*e.object)};
}

std::optional<RootKey> owner_root(const model::Value& obj) {
  const model::Value* meta = obj.find("metadata");
  const model::Value* refs = meta ? meta->find("ownerReferences") : nullptr;
  if (!refs || !refs->is_array()) return std::nullopt;
  for (const auto& r : refs->as_array()) {
    const model::Value* kind = r.find("kind");
    const model::Value* api = r.find("apiVersion");
    const model::Value* name = r.find("name");
    if (kind && kind->is_string() && kind->as_string() == "GrafanaAgent" && api && api->is_string() &&
        api->as_string().starts_with("monitoring.grafana.com/") && name && name->is_string())
      return RootKey{object_key(obj).first, name->as_string()};
  }
  return std::nullopt;
}

void NameIndex::route(const Event& e, std::set<RootKey>& out) {
  if (!e.object) return;
  model::Key key = object_key(*e.object);
  auto it = entries_.find(key);
  if (e.type == EventType::deleted) {
    if (it == entries_.end()) return;
    if (it->second.object) --objects_;
    it->second.object.reset();
  } else {
    if (it == entries_.end()) it = entries_.emplace(std::move(key), Entry{}).first;
    if (!it->second.object) ++objects_;
    it->second.object = e.object;
  }
  const std::vector<const RootKey*>& roots = it->second.roots;
  examined_ += roots.size();
  for (const RootKey* root : roots) out.insert(*root);
  if (roots.empty() && !it->second.object) entries_.erase(it);
}

KindDelta NameIndex::set_references(const RootKey& root, SharedKeys shared) {
  static const std::set<model::Key> kNone;
  const std::set<model::Key>& refs = shared ? *shared : kNone;
  auto held = by_root_.find(root);
  if (held == by_root_.end()) {
    if (refs.empty()) return {};
    held = by_root_.emplace(root, nullptr).first;  // entries point at its key
  }
  const RootKey* me = &held->first;
  const SharedKeys previous = std::move(held->second);
  const std::set<model::Key>& mine = previous ? *previous : kNone;
  KindDelta delta;
  for (const auto& key : refs) {
    if (mine.count(key)) continue;
    Entry& entry = entries_[key];
    entry.roots.push_back(me);
    if (entry.object) delta.gained.push_back(entry.object);
  }
  for (const auto& key : mine) {
    if (refs.count(key)) continue;
    auto it = entries_.find(key);
    std::vector<const RootKey*>& roots = it->second.roots;
    roots.erase(std::find(roots.begin(), roots.end(), me));
    if (roots.empty() && !it->second.object) entries_.erase(it);
    // Even when the object is gone: the root may hold it as a tombstone in
    // its grace period, and the expiry will not be routed to it any more.
    delta.lost.push_back(key);
  }
  if (refs.empty())
    by_root_.erase(held);
  else
    held->second = std::move(shared);
  return delta;
}

std::set<model::Key> NameIndex::referenced() const {
  std::set<model::Key> out;
  for (const auto& [key, entry] : entries_)
    if (!entry.roots.empty()) out.insert(out.end(), key);
  return out;
}

Router::Router() {
  for (const auto& kind : selected_kinds()) selectors_.emplace(kind, SelectorIndex(kind));
}

Router::Router(const std::set<std::string>& kinds)
    : index_secrets_(kinds.count("Secret") > 0), index_config_maps_(kinds.count("ConfigMap") > 0) {
  for (const auto& kind : selected_kinds())
    if (kinds.count(kind)) selectors_.emplace(kind, SelectorIndex(kind));
}

Routing Router::route(const Event& e) {
  Routing out;
  if (!e.object) return out;
  if (auto owner = owner_root(*e.object)) out.owners.insert(*owner);
  if (e.kind == "GrafanaAgent") {
    out.roots.insert(object_key(*e.object));
  } else if (auto it = selectors_.find(e.kind); it != selectors_.end()) {
    route_member(it->second, e, out);
  } else if (e.kind == "Secret") {
    secrets_.route(e, out.roots);
  } else if (e.kind == "ConfigMap") {
    config_maps_.route(e, out.roots);
  } else if (e.kind == "Namespace") {
    route_namespace(e, out);
  }
  return out;
}

void Router::route_member(SelectorIndex& index, const Event& e, Routing& out) {
  KindRouting kr;
  index.route(e, namespaces_, kr);
  out.roots = std::move(kr.roots);
  out.dropped = std::move(kr.dropped);
  if (!out.dropped.empty()) out.as_deleted = Event{e.seq, e.time_ms, e.kind, EventType::deleted, e.object};
  if (kr.first.empty()) return;
  auto ns = namespaces_.find(object_key(*e.object).first);
  if (ns == namespaces_.end()) return;  // no Namespace object: its labels read as none, here as in the root
  out.attach = std::move(kr.first);
  out.ns_event = ns->second.event;
}

void Router::route_namespace(const Event& e, Routing& out) {
  const std::string name = object_key(*e.object).second;
  // The previous entry holds the tree `before` points into until the
  // indexes have compared.
  NamespaceEntry previous;
  const model::Value* after = nullptr;
  auto it = namespaces_.find(name);
  if (it != namespaces_.end()) previous = std::move(it->second);
  if (e.type == EventType::deleted) {
    if (it != namespaces_.end()) namespaces_.erase(it);
  } else {
    NamespaceEntry& entry = it != namespaces_.end() ? it->second : namespaces_[name];
    entry = namespace_entry(e);
    after = entry.labels;
  }
  const model::Value* before = previous.labels;
  if (!same_labels(before, after)) {
    for (auto& [kind, index] : selectors_) {
      std::map<RootKey, KindDelta> per_root;
      index.namespace_changed(name, before, after, per_root);
      for (auto& [root, d] : per_root) {
        out.roots.insert(root);
        SubscriptionDelta& sd = out.deltas[root];
        for (auto& o : d.gained) sd.gained.emplace_back(kind, std::move(o));
        for (auto& k : d.lost) sd.lost.emplace_back(kind, std::move(k));
      }
    }
  }
  // Roots that hold members here keep the Namespace current; the others
  // never read it.
  std::set<RootKey> holders;
  for (const auto& [kind, index] : selectors_) index.holders(name, holders);
  for (const RootKey& root : holders)
    if (!out.roots.count(root)) out.quiet.insert(root);
}

SubscriptionDelta Router::set_subscriptions(const RootKey& root, const Subscriptions& subs) {
  return set_subscriptions(root, std::make_shared<const Subscriptions>(subs));
}

SubscriptionDelta Router::set_subscriptions(const RootKey& root, const std::shared_ptr<const Subscriptions>& shared) {
  const Subscriptions& subs = *shared;
  SubscriptionDelta out;
  std::set<std::string> first_in;
  auto absorb = [&](const std::string& kind, KindDelta&& d) {
    for (auto& o : d.gained) out.gained.emplace_back(kind, std::move(o));
    for (auto& k : d.lost) out.lost.emplace_back(kind, std::move(k));
    first_in.merge(d.first_in);
  };
  for (auto& [kind, index] : selectors_) absorb(kind, index.set_subscriptions(root, subs.selectors, namespaces_));
  if (index_secrets_) absorb("Secret", secrets_.set_references(root, SharedKeys(shared, &subs.secrets)));
  if (index_config_maps_) absorb("ConfigMap", config_maps_.set_references(root, SharedKeys(shared, &subs.config_maps)));
  for (const std::string& name : first_in)
    if (auto it = namespaces_.find(name); it != namespaces_.end()) out.namespaces.push_back(it->second.event);
  return out;
}

void Router::remove_root(const RootKey& root) {
  for (auto& [kind, index] : selectors_) index.remove_root(root);
  secrets_.remove_root(root);
  config_maps_.remove_root(root);
}

std::uint64_t Router::examined() const {
  std::uint64_t n = secrets_.examined() + config_maps_.examined();
  for (const auto& [kind, index] : selectors_) n += index.examined();
  return n;
}

void Router::reset_examined() {
  secrets_.reset_examined();
  config_maps_.reset_examined();
  for (auto& [kind, index] : selectors_) index.reset_examined();
}

}  // namespace actors::core
