#include "model/assets.hpp"

#include "model/codec.hpp"
#include "model/packed_lookups.hpp"

namespace model {

std::string secret_store_key(const std::string& ns, const std::string& name, const std::string& key) {
  return "/secrets/" + ns + "/" + name + "/" + key;
}

std::string configmap_store_key(const std::string& ns, const std::string& name, const std::string& key) {
  return "/configMaps/" + ns + "/" + name + "/" + key;
}

std::string sanitize_label_name(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) c = '_';
  }
  return out;
}

namespace {

// The last string value of `key` in `obj`: decode_secret reads a map's
// entries in order and a later duplicate replaces an earlier one.
const std::string* last_string(const Value* obj, const std::string& key) {
  if (!obj || !obj->is_object()) return nullptr;
  const std::string* out = nullptr;
  for (const auto& [k, v] : obj->as_object())
    if (k == key && v.is_string()) out = &v.as_string();
  return out;
}

}  // namespace

std::optional<std::string> secret_tree_value(const Value& secret, const std::string& key) {
  if (const std::string* plain = last_string(secret.find("stringData"), key)) return *plain;
  if (const std::string* encoded = last_string(secret.find("data"), key)) return base64_decode(*encoded);
  return std::nullopt;
}

AssetFind find_asset(const Inventory& inv, bool secret, const std::string& ns, const std::string& name,
                     const std::string& key) {
  const std::map<std::string, std::string>* data = nullptr;
  if (secret) {
    auto it = inv.secrets.find({ns, name});
    if (it == inv.secrets.end()) return {};
    if (!it->second.decoded) return {true, secret_tree_value(*it->second.tree, key)};
    data = &it->second.decoded->data;
  } else {
    auto it = inv.config_maps.find({ns, name});
    if (it == inv.config_maps.end()) return {};
    data = &it->second.data;
  }
  auto kv = data->find(key);
  return {true, kv == data->end() ? std::nullopt : std::optional<std::string>(kv->second)};
}

const std::string* AssetRefs::lookup(bool secret, const std::string& ns, const std::string& name,
                                     const std::string& key, bool optional, const std::string& path) {
  const char* what = secret ? "Secret" : "ConfigMap";
  AssetFind found = find_asset(*inv_, secret, ns, name, key);
  lookups.push_back({secret, ns, name, key, found.value});
  if (!found.object) {
    if (!optional) error(path, std::string(what) + " " + ns + "/" + name + " not found");
    return nullptr;
  }
  if (!found.value) {
    if (!optional) error(path, std::string("key \"") + key + "\" not found in " + what + " " + ns + "/" + name);
    return nullptr;
  }
  return use(secret, ns, name, key, *found.value);
}

std::string AssetRefs::secret_value(const std::string& ns, const SecretKeySelector& ref, const std::string& path) {
  const std::string* v = lookup(true, ns, ref.name, ref.key, ref.optional, path);
  return v ? *v : std::string();
}

std::string AssetRefs::value(const std::string& ns, const SecretOrConfigMap& ref, const std::string& path) {
  if (ref.secret) return secret_value(ns, *ref.secret, path + ".secret");
  if (ref.config_map) {
    const auto& c = *ref.config_map;
    const std::string* v = lookup(false, ns, c.name, c.key, c.optional, path + ".configMap");
    return v ? *v : std::string();
  }
  return {};
}

std::string AssetRefs::secret_file(const std::string& ns, const SecretKeySelector& ref, const std::string& path) {
  // A missing (optional) reference has no file in the secrets volume: ""
  // tells the caller to leave the field out.
  if (!lookup(true, ns, ref.name, ref.key, ref.optional, path)) return {};
  return std::string(kSecretsMountPath) + "/" + sanitize_label_name(secret_store_key(ns, ref.name, ref.key));
}

std::string AssetRefs::file(const std::string& ns, const SecretOrConfigMap& ref, const std::string& path) {
  if (ref.secret) return secret_file(ns, *ref.secret, path + ".secret");
  if (ref.config_map) {
    const auto& c = *ref.config_map;
    if (!lookup(false, ns, c.name, c.key, c.optional, path + ".configMap")) return {};
    return std::string(kSecretsMountPath) + "/" + sanitize_label_name(configmap_store_key(ns, c.name, c.key));
  }
  return {};
}

bool AssetRefs::record_secret(const std::string& ns, const SecretKeySelector& ref, const std::string& path) {
  return lookup(true, ns, ref.name, ref.key, ref.optional, path) != nullptr;
}

bool AssetRefs::record_config_map(const std::string& ns, const ConfigMapKeySelector& ref, const std::string& path) {
  return lookup(false, ns, ref.name, ref.key, ref.optional, path) != nullptr;
}

void AssetRefs::warn(std::string path, std::string message) {
  for (const auto& w : warnings)
    if (w.path == path && w.message == message) return;
  warnings.push_back({std::move(path), std::move(message)});
}

const std::string* AssetRefs::use(bool secret, const std::string& ns, const std::string& name, const std::string& key,
                                  std::string_view value) {
  std::string& slot = used[secret ? secret_store_key(ns, name, key) : configmap_store_key(ns, name, key)];
  slot = value;
  return &slot;
}

void AssetRefs::use_found(const PackedLookups& found) {
  found.all_of([&](const LookupView& l) {
    if (l.value) use(l.secret, std::string(l.ns), std::string(l.name), std::string(l.key), *l.value);
    return true;
  });
}

void AssetRefs::absorb(AssetRefs&& other) {
  for (auto& [k, v] : other.used) used[k] = std::move(v);
  for (auto& e : other.errors) errors.push_back(std::move(e));
}

}  // namespace model
