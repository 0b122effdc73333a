#include "actors/core/redact.hpp"

#include "actors/core/sha256.hpp"
#include "model/codec.hpp"

namespace actors::core {
namespace {

using model::Value;

// Hashes the members of `from` into `into`; base64 members are decoded
// first (invalid base64 is hashed as written).
void hash_members(const Value& from, bool base64, Value& into) {
  if (!from.is_object()) return;
  for (const auto& [k, v] : from.as_object()) {
    if (!v.is_string()) continue;
    std::optional<std::string> bytes = base64 ? model::base64_decode(v.as_string()) : std::nullopt;
    into.set(k, redacted_value(bytes ? *bytes : v.as_string()));
  }
}

void redact_last_applied(Value& obj) {
  Value* meta = obj.find("metadata");
  Value* annotations = meta ? meta->find("annotations") : nullptr;
  Value* last = annotations ? annotations->find(kLastAppliedAnnotation) : nullptr;
  if (last && last->is_string()) *last = redacted_value(last->as_string());
}

// Moves `from` (hashed) into `into`, both members of obj; `into` wins.
void move_hashed(Value& obj, const char* from, bool from_base64, const char* into, bool into_base64) {
  Value merged = Value::object();
  if (const Value* f = obj.find(from)) hash_members(*f, from_base64, merged);
  if (const Value* i = obj.find(into)) hash_members(*i, into_base64, merged);
  obj.erase(from);
  obj.erase(into);
  if (merged.size() > 0) obj.set(into, std::move(merged));
}

}  // namespace

bool RedactionPolicy::redacts(const std::string& kind, const model::Key& key) const {
  if (include_secrets) return false;
  if (kind == "Secret") return true;
  return kind == "ConfigMap" && secret_config_maps.count(key) > 0;
}

std::string redacted_value(std::string_view bytes) {
  return kRedactedPrefix + sha256_hex(bytes);
}

Value redact(const std::string& kind, const Value& object, const RedactionPolicy& policy) {
  if (!object.is_object() || !policy.redacts(kind, object_key(object))) return object;
  Value out = object;
  if (kind == "Secret")
    move_hashed(out, "data", true, "stringData", false);
  else
    move_hashed(out, "binaryData", true, "data", false);
  redact_last_applied(out);
  return out;
}

Event redact(const Event& e, const RedactionPolicy& policy) {
  if (!e.object || !policy.redacts(e.kind, object_key(*e.object))) return e;
  Event out = e;
  out.object = make_object(redact(e.kind, *e.object, policy));
  return out;
}

}  // namespace actors::core
