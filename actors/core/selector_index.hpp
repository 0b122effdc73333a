// The state of one selector actor: every object of one member kind (e.g.
// ServiceMonitor) and every root's label-selector subscriptions for that
// kind, indexed so that routing an event examines only candidate
// subscriptions: each selector is filed under one of its matchLabels pairs
// or, lacking matchLabels, under every key=value of its narrowest `In`
// expression (one key, so an object hits at most one of them); the rest
// (only NotIn/Exists/DoesNotExist, or empty) sit in an always-check list.
// It also counts, per namespace, how many of its objects each root holds
// (selects), which is how the router knows which roots need a Namespace.
// Contract: deterministic; route() applies the event to the store and
// returns every root whose subscriptions select the old or the new object;
// examined() counts the candidate subscriptions looked at (the routing cost).
// Every object a root is told to hold or forget (route, set_subscriptions,
// namespace_changed) is counted, so the counts equal what the root stores.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "actors/core/event.hpp"
#include "actors/core/label_buckets.hpp"
#include "actors/core/subscriptions.hpp"

namespace actors::core {

using RootKey = model::Key;  // the GrafanaAgent's namespace/name
// A Namespace as the indexes see it: its last event (the shared tree) and
// its metadata.labels inside that tree (null when absent). Reading labels
// in the tree keeps no copy of them per selector actor.
struct NamespaceEntry {
  Event event;
  const model::Value* labels = nullptr;
};
NamespaceEntry namespace_entry(Event e);
// Namespaces that exist, by name.
using Namespaces = std::map<std::string, NamespaceEntry>;

// What a root gains and loses when its subscriptions are replaced.
struct KindDelta {
  std::vector<ObjectPtr> gained;  // now selected, not before (current versions)
  std::vector<model::Key> lost;   // selected before, not now
  // Namespaces where the root held nothing of this kind before `gained`.
  std::set<std::string> first_in;
};

// Where an event of the index's kind goes.
struct KindRouting {
  std::set<RootKey> roots;    // select the old or the new version: deliver, mark dirty
  std::set<RootKey> dropped;  // of `roots`: selected the old version only, so they forget the object
  std::set<RootKey> first;    // of `roots`: held nothing of this kind in the object's namespace before
};

class SelectorIndex {
 public:
  explicit SelectorIndex(std::string kind) : kind_(std::move(kind)) {}

  const std::string& kind() const { return kind_; }
  // Applies `e` (of this kind) to the store; says which roots it concerns.
  void route(const Event& e, const Namespaces& ns, KindRouting& out);
  // Replaces the root's subscriptions of this kind (others are ignored).
  KindDelta set_subscriptions(const RootKey& root, const std::vector<SelectorSubscription>& subs, const Namespaces& ns);
  void remove_root(const RootKey& root);
  // A Namespace's labels changed from `before` to `after`: for each root
  // whose namespace selectors now admit or reject members of this kind in
  // `ns_name`, the members no subscription of the root selected before and
  // one does now (current versions), and the reverse; an empty entry when
  // only which of its subscriptions select a member changed (the root must
  // still render again: a parent's members changed).
  void namespace_changed(const std::string& ns_name, const model::Value* before, const model::Value* after,
                         std::map<RootKey, KindDelta>& out);
  // Adds the roots that hold an object of this kind in namespace `ns_name`.
  void holders(const std::string& ns_name, std::set<RootKey>& out) const;
  // Roots selecting `object` (by its labels) in namespace key.first.
  void interested(const model::Key& key, const StoredObject& object, const Namespaces& ns,
                  std::set<RootKey>& out) const;

  const StoredMap& objects() const { return objects_; }
  std::size_t subscription_count() const { return subs_.size() - free_.size(); }
  std::size_t always_check_count() const { return always_.size(); }
  std::uint64_t examined() const { return examined_; }
  void reset_examined() { examined_ = 0; }

 private:
  struct Slot {
    RootKey root;
    SelectorSubscription sub;
    // The label it is filed under: one matchLabels pair, or the values of
    // its narrowest In expression; no values = always-check. by_pair_ files
    // it under "key\0value" for each value.
    std::string index_key;
    std::vector<std::string> index_values;
  };

  // `labels`: the object's metadata.labels (null: none).
  bool selects(const Slot& s, const model::Key& key, const model::Value* labels, const Namespaces& ns) const;
  // Whether any of `ids` selects an object labelled `labels` in a namespace labelled `ns_labels`.
  bool any_selects(const std::vector<std::size_t>& ids, const model::Value* labels, const std::string& ns_name,
                   const model::Value* ns_labels) const;
  // The namespaces whose objects the subscriptions `ids` can select, or
  // nullopt for every namespace. A root's subscription change visits only
  // these namespaces' objects: scanning every object for every root made a
  // cold start quadratic (roots x objects).
  std::optional<std::set<std::string>> scope(const std::vector<std::size_t>& ids, const Namespaces& ns) const;
  // The objects the slots `ids` can select, in key order, when each slot is
  // filed under a label and they number at most `limit`; else nullopt.
  std::optional<std::vector<const StoredEntry*>> candidates(const std::vector<std::size_t>& ids,
                                                            std::size_t limit) const;
  // How many stored objects a scan of `names` (nullopt: all) visits.
  std::size_t scan_size(const std::optional<std::set<std::string>>& names) const;
  bool root_selects(const std::vector<std::size_t>& ids, const model::Key& key, const model::Value* labels,
                    const Namespaces& ns) const;
  std::size_t add_slot(const RootKey& root, const SelectorSubscription& sub);
  void free_slot(std::size_t id);
  // Counts an object `root` now holds in `ns_name`; true for its first there.
  bool hold(const RootKey& root, const std::string& ns_name);
  void release(const RootKey& root, const std::string& ns_name);

  std::string kind_;
  StoredMap objects_;
  LabelBuckets buckets_;
  std::unordered_map<std::string, std::size_t> per_ns_;  // stored objects per namespace
  std::vector<Slot> subs_;
  std::vector<std::size_t> free_;
  std::map<RootKey, std::vector<std::size_t>> by_root_;
  std::unordered_map<std::string, std::vector<std::size_t>> by_pair_;  // "key\0value" -> slots
  std::vector<std::size_t> always_;
  std::vector<std::size_t> ns_label_subs_;  // slots whose namespace selector reads labels
  // namespace -> root -> objects of this kind the root holds there
  std::map<std::string, std::map<RootKey, std::size_t>> held_;
  mutable std::uint64_t examined_ = 0;
  mutable std::string scratch_;
};

}  // namespace actors::core
