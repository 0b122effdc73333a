// What a root (one GrafanaAgent) listens to: label selectors over member
// kinds, each with its namespace selector and its parent's namespace, and
// the Secrets and ConfigMaps its members name. Computed from the root's
// latest hierarchy and handed to the routing index, which replaces the
// root's previous subscriptions wholesale.
// Contract: pure and deterministic; selectors are deduplicated and sorted;
// nil selectors (which select nothing) produce no subscription; references
// resolve in the namespace of the object that holds them, as rendering does.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/hierarchy.hpp"

namespace actors::core {

struct SelectorSubscription {
  std::string kind;  // the selected kind, e.g. "ServiceMonitor"
  model::LabelSelector selector;
  // nil: only parent_ns; {}: every namespace; otherwise Namespace labels.
  std::optional<model::LabelSelector> namespace_selector;
  std::string parent_ns;

  // `ns_labels`: the Namespace's metadata.labels (null when it has none or
  // there is no Namespace object).
  bool selects_namespace(const std::string& ns, const model::Value* ns_labels) const;
  // Whether the namespace selector looks at Namespace labels at all.
  bool uses_namespace_labels() const { return namespace_selector && !namespace_selector->empty(); }
  // Canonical text form, used for ordering, deduplication and equality.
  std::string canonical() const;
};

struct Subscriptions {
  std::vector<SelectorSubscription> selectors;  // sorted by canonical(), unique
  std::set<model::Key> secrets;
  std::set<model::Key> config_maps;

  bool same_as(const Subscriptions& other) const;
};

// Everything the hierarchy's agent and members select or reference.
Subscriptions subscriptions_for(const model::Hierarchy& h);
// Sorts and deduplicates `selectors`.
void normalize(Subscriptions& s);

// Canonical text of a selector: "k=v,k2=v2;key In (a,b);..." in sorted order.
std::string canonical(const model::LabelSelector& sel);

}  // namespace actors::core
