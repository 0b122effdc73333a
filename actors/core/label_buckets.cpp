#include "actors/core/label_buckets.hpp"

#include <algorithm>

namespace actors::core {
namespace {

bool before_key(const StoredEntry* a, const model::Key& key) {
  return a->first < key;
}

}  // namespace

StoredObject stored_object(ObjectPtr object) {
  const model::Value* labels = object ? model::find_path(*object, {"metadata", "labels"}) : nullptr;
  return StoredObject{std::move(object), labels};
}

void LabelBuckets::put(KeyBuckets& k, const std::string& value, const StoredEntry& e) {
  auto& bucket = k.by_value[value];
  // Objects mostly arrive in key order (lists are sorted): append then.
  if (bucket.empty() || bucket.back()->first < e.first) {
    bucket.push_back(&e);
    return;
  }
  bucket.insert(std::lower_bound(bucket.begin(), bucket.end(), e.first, before_key), &e);
}

void LabelBuckets::take(KeyBuckets& k, const std::string& value, const StoredEntry& e) {
  auto it = k.by_value.find(value);
  if (it == k.by_value.end()) return;
  auto& bucket = it->second;
  auto pos = std::lower_bound(bucket.begin(), bucket.end(), e.first, before_key);
  if (pos != bucket.end() && *pos == &e) bucket.erase(pos);
  if (bucket.empty()) k.by_value.erase(it);
}

void LabelBuckets::add_key(const std::string& key, const StoredMap& objects) {
  KeyBuckets& k = keys_[key];
  if (k.slots++ > 0) return;
  for (const auto& e : objects)
    if (const std::string* v = model::label_string(e.second.labels, key)) k.by_value[*v].push_back(&e);
}

void LabelBuckets::remove_key(const std::string& key) {
  auto it = keys_.find(key);
  if (it != keys_.end() && --it->second.slots == 0) keys_.erase(it);
}

// label_string reads labels as LabelSelector::matches_labels_value does: a
// non-string value counts as absent, so no selector filed under the key
// selects it.
void LabelBuckets::insert(const StoredEntry& e) {
  for (auto& [key, k] : keys_)
    if (const std::string* v = model::label_string(e.second.labels, key)) put(k, *v, e);
}

void LabelBuckets::erase(const StoredEntry& e) {
  for (auto& [key, k] : keys_)
    if (const std::string* v = model::label_string(e.second.labels, key)) take(k, *v, e);
}

void LabelBuckets::update(const StoredEntry& e, const model::Value* before) {
  for (auto& [key, k] : keys_) {
    const std::string* was = model::label_string(before, key);
    const std::string* is = model::label_string(e.second.labels, key);
    if (was && is && *was == *is) continue;
    if (was) take(k, *was, e);
    if (is) put(k, *is, e);
  }
}

const std::vector<const StoredEntry*>* LabelBuckets::find(const std::string& key, const std::string& value) const {
  auto k = keys_.find(key);
  if (k == keys_.end()) return nullptr;
  auto it = k->second.by_value.find(value);
  return it == k->second.by_value.end() ? nullptr : &it->second;
}

}  // namespace actors::core
