// Secret redaction for the journal: Secret values, and the values of
// ConfigMaps that roots reference as secrets (e.g. a TLS CA or an OAuth2
// client id taken from a ConfigMap), become "hmac-sha256:<hex>", keyed with
// a key that is never written to the journal, so a dictionary of common
// passwords recovers nothing from a journal attached to a bug report.
// Contract: pure for a given policy (its key). Equal values give equal
// placeholders under one key, so replay is deterministic; a policy made
// without a key gets a fresh random one. Redacted Secret values move to `stringData` and redacted
// ConfigMap binaryData moves to `data`, so a replayed journal still decodes
// (and renders the placeholders deterministically); the hash is taken over
// the decoded bytes, so equal contents hash equally in either field. The
// last-applied-configuration annotation (which embeds the whole object) is
// hashed too. Other kinds, and everything when secrets are included, are
// returned unchanged.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "actors/core/event.hpp"

namespace actors::core {

inline constexpr const char* kRedactedPrefix = "hmac-sha256:";
// Supplied keys shorter than this are refused (RFC 2104 suggests >= L bytes).
inline constexpr std::size_t kMinRedactionKeyBytes = 16;

// 32 bytes from the system's random source.
std::string random_redaction_key();
// A short public fingerprint of `key` (for the journal header), from which
// the key cannot be recovered: journals with one id used one key.
std::string redaction_key_id(std::string_view key);
inline constexpr const char* kLastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration";

struct RedactionPolicy {
  RedactionPolicy() : key(random_redaction_key()) {}
  explicit RedactionPolicy(std::string k) : key(std::move(k)) {}

  bool include_secrets = false;  // --journal-secrets=include
  std::string key;               // HMAC key; never journaled or logged
  // ConfigMaps (namespace, name) referenced as secrets by some root.
  std::set<model::Key> secret_config_maps;
  // Every ConfigMap, for a journal that cannot tell which ones hold
  // credentials (the target allocator's).
  bool all_config_maps = false;

  bool redacts(const std::string& kind, const model::Key& key) const;
};

// "hmac-sha256:<hex>" of `bytes` under `key` (which must not be empty).
std::string redacted_value(std::string_view key, std::string_view bytes);

model::Value redact(const std::string& kind, const model::Value& object, const RedactionPolicy& policy);
// The event with its object redacted (shared unchanged when nothing applies).
Event redact(const Event& e, const RedactionPolicy& policy);

}  // namespace actors::core
