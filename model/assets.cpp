#include "model/assets.hpp"

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

const std::map<std::string, std::string>* asset_data(const Inventory& inv, bool secret, const std::string& ns,
                                                     const std::string& name) {
  if (secret) {
    auto it = inv.secrets.find({ns, name});
    return it != inv.secrets.end() ? &it->second.data : nullptr;
  }
  auto it = inv.config_maps.find({ns, name});
  return it != inv.config_maps.end() ? &it->second.data : nullptr;
}

const std::string* AssetRefs::lookup(bool secret, const std::string& ns, const std::string& name,
                                     const std::string& key, bool optional, const std::string& path) {
  const char* what = secret ? "Secret" : "ConfigMap";
  const std::map<std::string, std::string>* data = asset_data(*inv_, secret, ns, name);
  auto kv = data ? data->find(key) : std::map<std::string, std::string>::const_iterator{};
  lookups.push_back(
      {secret, ns, name, key, data && kv != data->end() ? std::optional<std::string>(kv->second) : std::nullopt});
  if (!data) {
    if (!optional) error(path, std::string(what) + " " + ns + "/" + name + " not found");
    return nullptr;
  }
  if (kv == data->end()) {
    if (!optional) error(path, std::string("key \"") + key + "\" not found in " + what + " " + ns + "/" + name);
    return nullptr;
  }
  use(lookups.back());
  return &kv->second;
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

void AssetRefs::use(const AssetLookup& l) {
  if (l.value)
    used[l.secret ? secret_store_key(l.ns, l.name, l.key) : configmap_store_key(l.ns, l.name, l.key)] = *l.value;
}

void AssetRefs::use_found(const std::vector<AssetLookup>& found) {
  for (const AssetLookup& l : found) use(l);
}

void AssetRefs::absorb(AssetRefs&& other) {
  for (auto& [k, v] : other.used) used[k] = std::move(v);
  for (auto& e : other.errors) errors.push_back(std::move(e));
}

}  // namespace model
