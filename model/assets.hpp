// Resolution of Secret and ConfigMap key references while rendering, and
// the record of every asset a root's config uses (its "asset store").
// Values are either inlined into the config or referenced as files under
// /var/lib/grafana-agent/secrets/, mirroring upstream's choices.
// Contract: a missing object or key (unless the reference is optional) is
// recorded as a FieldError at the caller's path; nothing throws. Every
// accessor returns "" for a missing reference (optional or not), and callers
// leave the field out then (set_nonempty) rather than render "" or a path
// to a file that will not exist. Render one
// member into its own AssetRefs and absorb() it only if it has no errors, so
// a rejected member leaves no trace. Warnings (fields a render leaves out
// on purpose) are the member's alone: absorb() does not take them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/decode.hpp"
#include "model/inventory.hpp"

namespace model {

class PackedLookups;

inline constexpr const char* kSecretsMountPath = "/var/lib/grafana-agent/secrets";

// "/secrets/<ns>/<name>/<key>" or "/configMaps/<ns>/<name>/<key>".
std::string secret_store_key(const std::string& ns, const std::string& name, const std::string& key);
std::string configmap_store_key(const std::string& ns, const std::string& name, const std::string& key);
// Replaces every byte outside [a-zA-Z0-9_] with '_'.
std::string sanitize_label_name(const std::string& s);

// What the inventory holds for one key of Secret or ConfigMap ns/name:
// whether the object exists, and the key's value. A lazy inventory's
// Secret is read in its tree as decode_secret reads it (valid base64
// `data`, `stringData` winning, other values skipped).
struct AssetFind {
  bool object = false;
  std::optional<std::string> value;
};
AssetFind find_asset(const Inventory& inv, bool secret, const std::string& ns, const std::string& name,
                     const std::string& key);
// The value of `key` in a served Secret, exactly as decode_secret would
// decode it; nullopt when it has none.
std::optional<std::string> secret_tree_value(const Value& secret, const std::string& key);

// One key lookup a render made, and what it found (for JobCache).
struct AssetLookup {
  bool secret = true;
  std::string ns, name, key;
  std::optional<std::string> value;  // nullopt: the object or key was missing
  friend bool operator==(const AssetLookup&, const AssetLookup&) = default;
};

class AssetRefs {
 public:
  explicit AssetRefs(const Inventory& inv) : inv_(&inv) {}

  // The value, inlined into the config.
  std::string secret_value(const std::string& ns, const SecretKeySelector& ref, const std::string& path);
  std::string value(const std::string& ns, const SecretOrConfigMap& ref, const std::string& path);
  // The file path under kSecretsMountPath where the pod sees the value.
  std::string secret_file(const std::string& ns, const SecretKeySelector& ref, const std::string& path);
  std::string file(const std::string& ns, const SecretOrConfigMap& ref, const std::string& path);
  // Records a reference without using its value (e.g. projected volumes).
  bool record_secret(const std::string& ns, const SecretKeySelector& ref, const std::string& path);
  bool record_config_map(const std::string& ns, const ConfigMapKeySelector& ref, const std::string& path);

  // Marks used every value `lookups` found, as the render that made them
  // did: a JobCache hit replays its entry's lookups (checked against the
  // current inventory) instead of keeping a copy of what they found.
  void use_found(const PackedLookups& lookups);
  void absorb(AssetRefs&& other);
  void error(std::string path, std::string message) { errors.push_back({std::move(path), std::move(message)}); }
  // A field the render leaves out while the rest still renders; a path
  // already warned about is not recorded twice (each endpoint's job of a
  // monitor sees the same spec fields).
  void warn(std::string path, std::string message);
  const Inventory& inventory() const { return *inv_; }

  FieldErrors errors;
  FieldErrors warnings;
  std::map<std::string, std::string> used;  // store key -> value; every found lookup, as use_found gives
  std::vector<AssetLookup> lookups;         // every lookup made, in order (for JobCache)

 private:
  // Records `value` as used; returns its copy in `used`.
  const std::string* use(bool secret, const std::string& ns, const std::string& name, const std::string& key,
                         std::string_view value);
  const std::string* lookup(bool secret, const std::string& ns, const std::string& name, const std::string& key,
                            bool optional, const std::string& path);
  const Inventory* inv_;
};

}  // namespace model
