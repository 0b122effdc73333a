#include "model/strategic_merge.hpp"

#include <map>
#include <string>

namespace model {
namespace {

// The Container fields whose lists merge item by item, with their keys.
const char* merge_key_of(const std::string& field) {
  static const std::map<std::string, const char*> kKeys{
      {"env", "name"}, {"ports", "containerPort"}, {"volumeMounts", "mountPath"}, {"volumeDevices", "devicePath"}};
  auto it = kKeys.find(field);
  return it == kKeys.end() ? nullptr : it->second;
}

Value merge_value(const Value& base, const Value& patch, const char* list_key);

// Keyed lists exist only among the Container's own fields.
Value merge_objects(const Value& base, const Value& patch, bool container_level) {
  Value out = base;
  for (const auto& [k, v] : patch.as_object()) {
    if (v.is_null()) continue;
    const Value* existing = base.find(k);
    out.set(k, existing ? merge_value(*existing, v, container_level ? merge_key_of(k) : nullptr) : v);
  }
  return out;
}

// Items of `patch` whose key matches an item of `base` merge into it in
// place; the others (including items without the key) are appended.
Value merge_keyed_lists(const Value& base, const Value& patch, const char* key) {
  Value out = base;
  for (const Value& item : patch.as_array()) {
    const Value* id = item.is_object() ? item.find(key) : nullptr;
    Value* match = nullptr;
    for (Value& existing : out.as_array()) {
      if (!id || match) break;
      const Value* existing_id = existing.is_object() ? existing.find(key) : nullptr;
      if (existing_id && *existing_id == *id) match = &existing;
    }
    if (match) {
      *match = merge_objects(*match, item, false);
    } else {
      out.push(item);
    }
  }
  return out;
}

Value merge_value(const Value& base, const Value& patch, const char* list_key) {
  if (base.is_object() && patch.is_object()) return merge_objects(base, patch, false);
  if (list_key && base.is_array() && patch.is_array()) return merge_keyed_lists(base, patch, list_key);
  return patch;
}

std::string name_of(const Value& container) {
  const Value* n = container.find("name");
  return n && n->is_string() ? n->as_string() : std::string();
}

}  // namespace

Value strategic_merge_container(const Value& base, const Value& patch) {
  if (!base.is_object() || !patch.is_object()) return base;
  return merge_objects(base, patch, true);
}

Value merge_patch_containers(const Value& base, const Value* patches) {
  if (!patches || !patches->is_array()) return base;
  std::map<std::string, const Value*> by_name;
  for (const Value& p : patches->as_array()) by_name[name_of(p)] = &p;
  Value out = Value::array();
  for (const Value& c : base.as_array()) {
    auto it = by_name.find(name_of(c));
    if (it == by_name.end()) {
      out.push(c);
      continue;
    }
    out.push(strategic_merge_container(c, *it->second));
    by_name.erase(it);
  }
  for (const Value& p : patches->as_array())
    if (by_name.count(name_of(p))) out.push(p);
  return out;
}

}  // namespace model
