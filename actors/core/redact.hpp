// Secret redaction for the journal: Secret values, and the values of
// ConfigMaps that roots reference as secrets (e.g. a TLS CA or an OAuth2
// client id taken from a ConfigMap), become "sha256:<hex>" of their bytes.
// Contract: pure. Redacted Secret values move to `stringData` and redacted
// ConfigMap binaryData moves to `data`, so a replayed journal still decodes
// (and renders the placeholders deterministically); the hash is taken over
// the decoded bytes, so equal contents hash equally in either field. The
// last-applied-configuration annotation (which embeds the whole object) is
// hashed too. Other kinds, and everything when secrets are included, are
// returned unchanged.
#pragma once

#include <set>
#include <string>

#include "actors/core/event.hpp"

namespace actors::core {

inline constexpr const char* kRedactedPrefix = "sha256:";
inline constexpr const char* kLastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration";

struct RedactionPolicy {
  bool include_secrets = false;  // --journal-secrets=include
  // ConfigMaps (namespace, name) referenced as secrets by some root.
  std::set<model::Key> secret_config_maps;

  bool redacts(const std::string& kind, const model::Key& key) const;
};

// "sha256:<hex>" of `bytes`.
std::string redacted_value(std::string_view bytes);

model::Value redact(const std::string& kind, const model::Value& object, const RedactionPolicy& policy);
// The event with its object redacted (shared unchanged when nothing applies).
Event redact(const Event& e, const RedactionPolicy& policy);

}  // namespace actors::core
