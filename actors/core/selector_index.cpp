#include "actors/core/selector_index.hpp"

#include <algorithm>
#include <utility>

namespace actors::core {
namespace {

const model::Value* labels_of(const Namespaces& ns, const std::string& name) {
  auto it = ns.find(name);
  return it == ns.end() ? nullptr : it->second.labels;
}

void pair_key(std::string& out, const std::string& k, const std::string& v) {
  out.assign(k);
  out.push_back('\0');
  out.append(v);
}

void erase_id(std::vector<std::size_t>& ids, std::size_t id) {
  auto it = std::find(ids.begin(), ids.end(), id);
  if (it != ids.end()) {
    *it = ids.back();
    ids.pop_back();
  }
}

// The label a selector is filed under: one matchLabels pair, else the
// values of its narrowest In expression (an object has one value per key,
// so it hits at most one entry), else none (always checked).
void index_label(const model::LabelSelector& sel, std::string& key, std::vector<std::string>& values) {
  if (!sel.match_labels.empty()) {
    key = sel.match_labels.begin()->first;
    values = {sel.match_labels.begin()->second};
    return;
  }
  const model::Requirement* best = nullptr;
  for (const auto& r : sel.match_expressions)
    if (r.op == "In" && (!best || r.values.size() < best->values.size())) best = &r;
  if (!best) return;
  key = best->key;
  std::set<std::string> unique(best->values.begin(), best->values.end());
  values.assign(unique.begin(), unique.end());
}

std::vector<std::string> canonical_list(const std::vector<const SelectorSubscription*>& subs) {
  std::vector<std::string> out;
  for (const auto* s : subs) out.push_back(s->canonical());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

NamespaceEntry namespace_entry(Event e) {
  const model::Value* labels = e.object ? model::find_path(*e.object, {"metadata", "labels"}) : nullptr;
  return NamespaceEntry{std::move(e), labels};
}

bool SelectorIndex::selects(const Slot& s, const model::Key& key, const model::Value* labels,
                            const Namespaces& ns) const {
  return s.sub.selector.matches_labels_value(labels) && s.sub.selects_namespace(key.first, labels_of(ns, key.first));
}

void SelectorIndex::interested(const model::Key& key, const StoredObject& object, const Namespaces& ns,
                               std::set<RootKey>& out) const {
  const model::Value* labels = object.labels;
  auto examine = [&](std::size_t id) {
    ++examined_;
    const Slot& s = subs_[id];
    if (selects(s, key, labels, ns)) out.insert(s.root);
  };
  static const model::Value::Object kNoLabels;
  const model::Value::Object& members = labels && labels->is_object() ? labels->as_object() : kNoLabels;
  for (const auto& [k, v] : members) {
    if (!v.is_string()) continue;
    pair_key(scratch_, k, v.as_string());
    auto it = by_pair_.find(scratch_);
    if (it == by_pair_.end()) continue;
    for (std::size_t id : it->second) examine(id);
  }
  for (std::size_t id : always_) examine(id);
}

void SelectorIndex::route(const Event& e, const Namespaces& ns, KindRouting& out) {
  if (!e.object) return;
  model::Key key = object_key(*e.object);
  auto it = objects_.find(key);
  std::set<RootKey> before, after;
  if (it != objects_.end()) interested(key, it->second, ns, before);
  if (e.type == EventType::deleted) {
    if (it != objects_.end()) {
      buckets_.erase(*it);
      if (--per_ns_[key.first] == 0) per_ns_.erase(key.first);
      objects_.erase(it);
    }
    for (const RootKey& root : before) release(root, key.first);
    out.roots.insert(before.begin(), before.end());
    return;
  }
  StoredObject stored = stored_object(e.object);
  interested(key, stored, ns, after);
  // A root that selected only the old version forgets the object: a copy it
  // kept would linger unrouted (its deletion would not reach the root) and
  // would keep the object's namespace counted.
  for (const RootKey& root : before)
    if (!after.count(root)) {
      out.dropped.insert(root);
      release(root, key.first);
    }
  for (const RootKey& root : after)
    if (!before.count(root) && hold(root, key.first)) out.first.insert(root);
  out.roots.insert(before.begin(), before.end());
  out.roots.insert(after.begin(), after.end());
  if (it != objects_.end()) {
    StoredObject old = std::exchange(it->second, std::move(stored));  // keeps the old labels alive for update()
    buckets_.update(*it, old.labels);
    return;
  }
  ++per_ns_[key.first];
  buckets_.insert(*objects_.emplace(std::move(key), std::move(stored)).first);
}

bool SelectorIndex::hold(const RootKey& root, const std::string& ns_name) {
  return ++held_[ns_name][root] == 1;
}

void SelectorIndex::release(const RootKey& root, const std::string& ns_name) {
  auto ns = held_.find(ns_name);
  if (ns == held_.end()) return;
  auto it = ns->second.find(root);
  if (it == ns->second.end() || --it->second > 0) return;
  ns->second.erase(it);
  if (ns->second.empty()) held_.erase(ns);
}

void SelectorIndex::holders(const std::string& ns_name, std::set<RootKey>& out) const {
  auto ns = held_.find(ns_name);
  if (ns == held_.end()) return;
  for (const auto& [root, n] : ns->second) out.insert(root);
}

std::size_t SelectorIndex::add_slot(const RootKey& root, const SelectorSubscription& sub) {
  std::size_t id;
  if (free_.empty()) {
    id = subs_.size();
    subs_.push_back({});
  } else {
    id = free_.back();
    free_.pop_back();
  }
  Slot& s = subs_[id];
  s = Slot{root, sub, {}, {}};
  index_label(sub.selector, s.index_key, s.index_values);
  for (const auto& v : s.index_values) {
    pair_key(scratch_, s.index_key, v);
    by_pair_[scratch_].push_back(id);
  }
  if (s.index_values.empty())
    always_.push_back(id);
  else
    buckets_.add_key(s.index_key, objects_);
  if (sub.uses_namespace_labels()) ns_label_subs_.push_back(id);
  return id;
}

void SelectorIndex::free_slot(std::size_t id) {
  Slot& s = subs_[id];
  if (s.index_values.empty())
    erase_id(always_, id);
  else
    buckets_.remove_key(s.index_key);
  for (const auto& v : s.index_values) {
    pair_key(scratch_, s.index_key, v);
    auto it = by_pair_.find(scratch_);
    erase_id(it->second, id);
    if (it->second.empty()) by_pair_.erase(it);
  }
  if (s.sub.uses_namespace_labels()) erase_id(ns_label_subs_, id);
  s = Slot{};
  free_.push_back(id);
}

bool SelectorIndex::root_selects(const std::vector<std::size_t>& ids, const model::Key& key, const model::Value* labels,
                                 const Namespaces& ns) const {
  return std::any_of(ids.begin(), ids.end(), [&](std::size_t id) { return selects(subs_[id], key, labels, ns); });
}

std::optional<std::vector<const StoredEntry*>> SelectorIndex::candidates(const std::vector<std::size_t>& ids,
                                                                         std::size_t limit) const {
  std::vector<const std::vector<const StoredEntry*>*> buckets;
  std::size_t total = 0;
  for (std::size_t id : ids) {
    const Slot& s = subs_[id];
    if (s.index_values.empty()) return std::nullopt;
    for (const auto& v : s.index_values)
      if (const auto* bucket = buckets_.find(s.index_key, v)) {
        buckets.push_back(bucket);
        total += bucket->size();
      }
  }
  if (total > limit) return std::nullopt;
  std::vector<const StoredEntry*> out;
  out.reserve(total);
  for (const auto* bucket : buckets) out.insert(out.end(), bucket->begin(), bucket->end());
  std::sort(out.begin(), out.end(), [](const StoredEntry* a, const StoredEntry* b) { return a->first < b->first; });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::size_t SelectorIndex::scan_size(const std::optional<std::set<std::string>>& names) const {
  if (!names) return objects_.size();
  std::size_t n = 0;
  for (const auto& name : *names) {
    auto it = per_ns_.find(name);
    if (it != per_ns_.end()) n += it->second;
  }
  return n;
}

std::optional<std::set<std::string>> SelectorIndex::scope(const std::vector<std::size_t>& ids,
                                                          const Namespaces& ns) const {
  std::set<std::string> out;
  for (std::size_t id : ids) {
    const SelectorSubscription& sub = subs_[id].sub;
    if (!sub.namespace_selector) {
      out.insert(sub.parent_ns);
      continue;
    }
    // A selector matching no labels also selects namespaces that have no
    // Namespace object (and so are not in `ns`): only a full scan finds them.
    if (sub.namespace_selector->empty() || sub.namespace_selector->matches_labels_value(nullptr)) return std::nullopt;
    for (const auto& [name, entry] : ns)
      if (sub.namespace_selector->matches_labels_value(entry.labels)) out.insert(name);
  }
  return out;
}

KindDelta SelectorIndex::set_subscriptions(const RootKey& root, const std::vector<SelectorSubscription>& subs,
                                           const Namespaces& ns) {
  std::vector<const SelectorSubscription*> mine, before;
  for (const auto& s : subs)
    if (s.kind == kind_) mine.push_back(&s);
  std::vector<std::size_t> old_ids = by_root_.count(root) ? by_root_[root] : std::vector<std::size_t>{};
  for (std::size_t id : old_ids) before.push_back(&subs_[id].sub);
  if (canonical_list(mine) == canonical_list(before)) return {};
  std::vector<std::size_t> new_ids;
  for (const auto* s : mine) new_ids.push_back(add_slot(root, *s));
  KindDelta delta;
  auto visit = [&](const model::Key& key, const StoredObject& o) {
    bool was = root_selects(old_ids, key, o.labels, ns), is = root_selects(new_ids, key, o.labels, ns);
    if (is && !was) {
      delta.gained.push_back(o.object);
      if (hold(root, key.first)) delta.first_in.insert(key.first);
    }
    if (was && !is) {
      delta.lost.push_back(key);
      release(root, key.first);
    }
  };
  std::vector<std::size_t> all_ids = old_ids;
  all_ids.insert(all_ids.end(), new_ids.begin(), new_ids.end());
  // Objects no slot can select are neither gained nor lost, so visiting
  // only candidates, in key order, gives what a scan gives. Namespaces in
  // name order, each one's objects in key order, is the scan's order too.
  auto names = scope(all_ids, ns);
  if (auto picked = candidates(all_ids, scan_size(names))) {
    for (const StoredEntry* e : *picked) visit(e->first, e->second);
  } else if (names) {
    for (const std::string& name : *names)
      for (auto it = objects_.lower_bound({name, ""}); it != objects_.end() && it->first.first == name; ++it)
        visit(it->first, it->second);
  } else {
    for (const auto& [key, o] : objects_) visit(key, o);
  }
  for (std::size_t id : old_ids) free_slot(id);
  if (new_ids.empty())
    by_root_.erase(root);
  else
    by_root_[root] = std::move(new_ids);
  return delta;
}

void SelectorIndex::remove_root(const RootKey& root) {
  for (auto ns = held_.begin(); ns != held_.end();) {
    ns->second.erase(root);
    ns = ns->second.empty() ? held_.erase(ns) : std::next(ns);
  }
  auto it = by_root_.find(root);
  if (it == by_root_.end()) return;
  for (std::size_t id : it->second) free_slot(id);
  by_root_.erase(it);
}

bool SelectorIndex::any_selects(const std::vector<std::size_t>& ids, const model::Value* labels,
                                const std::string& ns_name, const model::Value* ns_labels) const {
  return std::any_of(ids.begin(), ids.end(), [&](std::size_t id) {
    const SelectorSubscription& sub = subs_[id].sub;
    return sub.selector.matches_labels_value(labels) && sub.selects_namespace(ns_name, ns_labels);
  });
}

// Each affected root compares all its subscriptions under the old and the
// new labels, so an object another subscription still (or already) selects
// is neither lost nor gained: the hold counts stay exact. A root gets an
// entry, maybe empty, whenever a flipped subscription's selector matches an
// object here: the root still selects it, but that parent's members change,
// so the root must render again.
void SelectorIndex::namespace_changed(const std::string& ns_name, const model::Value* before, const model::Value* after,
                                      std::map<RootKey, KindDelta>& out) {
  std::map<RootKey, std::vector<std::size_t>> flipped;
  for (std::size_t id : ns_label_subs_) {
    const Slot& s = subs_[id];
    if (s.sub.namespace_selector->matches_labels_value(before) != s.sub.namespace_selector->matches_labels_value(after))
      flipped[s.root].push_back(id);
  }
  auto first = objects_.lower_bound({ns_name, ""});
  for (const auto& [root, ids] : flipped) {
    const std::vector<std::size_t>& mine = by_root_.at(root);
    for (auto it = first; it != objects_.end() && it->first.first == ns_name; ++it) {
      const model::Value* labels = it->second.labels;
      if (std::none_of(ids.begin(), ids.end(),
                       [&](std::size_t id) { return subs_[id].sub.selector.matches_labels_value(labels); }))
        continue;
      KindDelta& d = out[root];
      bool was = any_selects(mine, labels, ns_name, before), is = any_selects(mine, labels, ns_name, after);
      if (is && !was) {
        d.gained.push_back(it->second.object);
        if (hold(root, ns_name)) d.first_in.insert(ns_name);
      } else if (was && !is) {
        d.lost.push_back(it->first);
        release(root, ns_name);
      }
    }
  }
}

}  // namespace actors::core
