// A selector's stored objects, bucketed by the value of each label key that
// some subscription is filed under (e.g. `instance` for selectors with
// matchLabels {instance: mi-7}), so that a subscription change visits only
// the objects its selectors can select instead of every object in the
// namespaces they reach. Only keys in use are bucketed: the first
// subscription filed under a new key pays one pass over the objects.
// Contract: each bucket holds exactly the stored objects whose label `key`
// is the string `value`, sorted by object key; entries point at nodes of the
// owner's std::map, so the owner calls insert/update/erase around every
// change to that map.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "actors/core/event.hpp"

namespace actors::core {

// The current version of an object. Selectors read its labels in the tree
// (a copied labels map per object cost about 4% of the controller's heap),
// found once: walking to metadata.labels for every selector test was a
// sixth of a 10x cold start.
struct StoredObject {
  ObjectPtr object;
  const model::Value* labels = nullptr;  // metadata.labels inside `object`; null when absent
};
StoredObject stored_object(ObjectPtr object);

using StoredMap = std::map<model::Key, StoredObject>;
using StoredEntry = StoredMap::value_type;

class LabelBuckets {
 public:
  // One more subscription is filed under `key`; the first buckets `objects`.
  void add_key(const std::string& key, const StoredMap& objects);
  // One fewer; the last drops the key's buckets.
  void remove_key(const std::string& key);

  void insert(const StoredEntry& e);
  void erase(const StoredEntry& e);
  // `e`'s labels changed from `before` (its previous metadata.labels).
  void update(const StoredEntry& e, const model::Value* before);

  // Objects whose label `key` is `value` (null when none), in key order.
  const std::vector<const StoredEntry*>* find(const std::string& key, const std::string& value) const;

 private:
  struct KeyBuckets {
    std::size_t slots = 0;
    std::unordered_map<std::string, std::vector<const StoredEntry*>> by_value;
  };
  static void put(KeyBuckets& k, const std::string& value, const StoredEntry& e);
  static void take(KeyBuckets& k, const std::string& value, const StoredEntry& e);

  std::unordered_map<std::string, KeyBuckets> keys_;
};

}  // namespace actors::core
