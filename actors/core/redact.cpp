#include "actors/core/redact.hpp"

#include <cstring>
#include <random>
#include <stdexcept>

#include "model/codec.hpp"
#include "model/sha256.hpp"

namespace actors::core {
namespace {

using model::Value;

// Hashes the members of `from` into `into`; base64 members are decoded
// first (invalid base64 is hashed as written).
void hash_members(std::string_view key, const Value& from, bool base64, Value& into) {
  if (!from.is_object()) return;
  for (const auto& [k, v] : from.as_object()) {
    if (!v.is_string()) continue;
    std::optional<std::string> bytes = base64 ? model::base64_decode(v.as_string()) : std::nullopt;
    into.set(k, redacted_value(key, bytes ? *bytes : v.as_string()));
  }
}

void redact_last_applied(std::string_view key, Value& obj) {
  Value* meta = obj.find("metadata");
  Value* annotations = meta ? meta->find("annotations") : nullptr;
  Value* last = annotations ? annotations->find(kLastAppliedAnnotation) : nullptr;
  if (last && last->is_string()) *last = redacted_value(key, last->as_string());
}

// Moves `from` (hashed) into `into`, both members of obj; `into` wins.
void move_hashed(std::string_view key, Value& obj, const char* from, bool from_base64, const char* into,
                 bool into_base64) {
  Value merged = Value::object();
  if (const Value* f = obj.find(from)) hash_members(key, *f, from_base64, merged);
  if (const Value* i = obj.find(into)) hash_members(key, *i, into_base64, merged);
  obj.erase(from);
  obj.erase(into);
  if (merged.size() > 0) obj.set(into, std::move(merged));
}

}  // namespace

bool RedactionPolicy::redacts(const std::string& kind, const model::Key& key) const {
  if (include_secrets) return false;
  if (kind == "Secret") return true;
  return kind == "ConfigMap" && (all_config_maps || secret_config_maps.count(key) > 0);
}

std::string random_redaction_key() {
  std::random_device rd;  // /dev/urandom (or the CPU's generator) on Linux
  std::string key(32, '\0');
  for (std::size_t i = 0; i < key.size(); i += 4) {
    std::uint32_t word = rd();
    std::memcpy(&key[i], &word, 4);
  }
  return key;
}

std::string redaction_key_id(std::string_view key) {
  return model::to_hex(model::hmac_sha256(key, "agent-operator journal redaction key id")).substr(0, 16);
}

std::string redacted_value(std::string_view key, std::string_view bytes) {
  if (key.empty()) throw std::logic_error("journal redaction without a key");
  return kRedactedPrefix + model::to_hex(model::hmac_sha256(key, bytes));
}

Value redact(const std::string& kind, const Value& object, const RedactionPolicy& policy) {
  if (!object.is_object() || !policy.redacts(kind, object_key(object))) return object;
  Value out = object;
  if (kind == "Secret")
    move_hashed(policy.key, out, "data", true, "stringData", false);
  else
    move_hashed(policy.key, out, "binaryData", true, "data", false);
  redact_last_applied(policy.key, out);
  return out;
}

Event redact(const Event& e, const RedactionPolicy& policy) {
  if (!e.object || !policy.redacts(e.kind, object_key(*e.object))) return e;
  Event out = e;
  out.object = make_object(redact(e.kind, *e.object, policy));
  return out;
}

}  // namespace actors::core
