#include "actors/core/selector_index.hpp"

#include <algorithm>

namespace actors::core {
namespace {

const model::Labels& labels_of(const NamespaceLabels& ns, const std::string& name) {
  static const model::Labels kEmpty;
  auto it = ns.find(name);
  return it == ns.end() ? kEmpty : it->second;
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

// The index entries of a selector: one matchLabels pair, else the values of
// its narrowest In expression (an object has one value per key, so it hits
// at most one entry), else none (always checked).
std::vector<std::string> index_pairs(const model::LabelSelector& sel) {
  std::vector<std::string> out(1);
  if (!sel.match_labels.empty()) {
    pair_key(out[0], sel.match_labels.begin()->first, sel.match_labels.begin()->second);
    return out;
  }
  const model::Requirement* best = nullptr;
  for (const auto& r : sel.match_expressions)
    if (r.op == "In" && (!best || r.values.size() < best->values.size())) best = &r;
  out.clear();
  if (!best) return out;
  std::set<std::string> values(best->values.begin(), best->values.end());
  for (const auto& v : values) pair_key(out.emplace_back(), best->key, v);
  return out;
}

std::vector<std::string> canonical_list(const std::vector<const SelectorSubscription*>& subs) {
  std::vector<std::string> out;
  for (const auto* s : subs) out.push_back(s->canonical());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

bool SelectorIndex::selects(const Slot& s, const model::Key& key, const model::Labels& labels,
                            const NamespaceLabels& ns) const {
  return s.sub.selector.matches(labels) && s.sub.selects_namespace(key.first, labels_of(ns, key.first));
}

void SelectorIndex::interested(const model::Key& key, const model::Labels& labels, const NamespaceLabels& ns,
                               std::set<RootKey>& out) const {
  auto examine = [&](std::size_t id) {
    ++examined_;
    const Slot& s = subs_[id];
    if (selects(s, key, labels, ns)) out.insert(s.root);
  };
  for (const auto& [k, v] : labels) {
    pair_key(scratch_, k, v);
    auto it = by_pair_.find(scratch_);
    if (it == by_pair_.end()) continue;
    for (std::size_t id : it->second) examine(id);
  }
  for (std::size_t id : always_) examine(id);
}

void SelectorIndex::route(const Event& e, const NamespaceLabels& ns, std::set<RootKey>& out) {
  if (!e.object) return;
  model::Key key = object_key(*e.object);
  auto it = objects_.find(key);
  if (it != objects_.end()) interested(key, it->second.labels, ns, out);
  if (e.type == EventType::deleted) {
    if (it != objects_.end()) objects_.erase(it);
    return;
  }
  StoredObject stored{e.object, object_labels(*e.object)};
  interested(key, stored.labels, ns, out);
  if (it != objects_.end())
    it->second = std::move(stored);
  else
    objects_.emplace(std::move(key), std::move(stored));
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
  s = Slot{root, sub, index_pairs(sub.selector)};
  for (const auto& p : s.pairs) by_pair_[p].push_back(id);
  if (s.pairs.empty()) always_.push_back(id);
  if (sub.uses_namespace_labels()) ns_label_subs_.push_back(id);
  return id;
}

void SelectorIndex::free_slot(std::size_t id) {
  Slot& s = subs_[id];
  if (s.pairs.empty()) erase_id(always_, id);
  for (const auto& p : s.pairs) {
    auto it = by_pair_.find(p);
    erase_id(it->second, id);
    if (it->second.empty()) by_pair_.erase(it);
  }
  if (s.sub.uses_namespace_labels()) erase_id(ns_label_subs_, id);
  s = Slot{};
  free_.push_back(id);
}

bool SelectorIndex::root_selects(const std::vector<std::size_t>& ids, const model::Key& key, const StoredObject& o,
                                 const NamespaceLabels& ns) const {
  return std::any_of(ids.begin(), ids.end(), [&](std::size_t id) { return selects(subs_[id], key, o.labels, ns); });
}

std::optional<std::set<std::string>> SelectorIndex::scope(const std::vector<std::size_t>& ids,
                                                          const NamespaceLabels& ns) const {
  static const model::Labels kNoLabels;
  std::set<std::string> out;
  for (std::size_t id : ids) {
    const SelectorSubscription& sub = subs_[id].sub;
    if (!sub.namespace_selector) {
      out.insert(sub.parent_ns);
      continue;
    }
    // A selector matching no labels also selects namespaces that have no
    // Namespace object (and so are not in `ns`): only a full scan finds them.
    if (sub.namespace_selector->empty() || sub.namespace_selector->matches(kNoLabels)) return std::nullopt;
    for (const auto& [name, labels] : ns)
      if (sub.namespace_selector->matches(labels)) out.insert(name);
  }
  return out;
}

KindDelta SelectorIndex::set_subscriptions(const RootKey& root, const std::vector<SelectorSubscription>& subs,
                                           const NamespaceLabels& ns) {
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
    bool was = root_selects(old_ids, key, o, ns), is = root_selects(new_ids, key, o, ns);
    if (is && !was) delta.gained.push_back(o.object);
    if (was && !is) delta.lost.push_back(key);
  };
  std::vector<std::size_t> all_ids = old_ids;
  all_ids.insert(all_ids.end(), new_ids.begin(), new_ids.end());
  // Namespaces in name order, each one's objects in key order: the same
  // order as a scan of every object.
  if (auto names = scope(all_ids, ns)) {
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
  auto it = by_root_.find(root);
  if (it == by_root_.end()) return;
  for (std::size_t id : it->second) free_slot(id);
  by_root_.erase(it);
}

void SelectorIndex::namespace_changed(const std::string& ns_name, const model::Labels& before,
                                      const model::Labels& after, const NamespaceLabels& ns,
                                      std::map<RootKey, KindDelta>& out) const {
  auto first = objects_.lower_bound({ns_name, ""});
  std::map<RootKey, std::set<model::Key>> gained, lost;
  for (std::size_t id : ns_label_subs_) {
    const Slot& s = subs_[id];
    bool was = s.sub.namespace_selector->matches(before), is = s.sub.namespace_selector->matches(after);
    if (was == is) continue;
    const std::vector<std::size_t>& mine = by_root_.at(s.root);
    for (auto it = first; it != objects_.end() && it->first.first == ns_name; ++it) {
      if (!s.sub.selector.matches(it->second.labels)) continue;
      if (is)
        gained[s.root].insert(it->first);
      else if (!root_selects(mine, it->first, it->second, ns))
        lost[s.root].insert(it->first);
    }
  }
  for (const auto& [root, keys] : gained)
    for (const auto& key : keys) out[root].gained.push_back(objects_.at(key).object);
  for (const auto& [root, keys] : lost)
    for (const auto& key : keys) out[root].lost.push_back(key);
}

}  // namespace actors::core
