// Per-monitor status (issue 19): which GrafanaAgents use each monitor, and
// whether the render accepted it, in prometheus-operator's `status.bindings`
// shape (group, resource, name, namespace and one `Accepted` condition).
// Three pure steps: root_bindings() is one root's verdict on every monitor
// it selects, taken from its hierarchy and its render's Problems;
// merged_entries() joins the verdicts of every root on one monitor into our
// entries; plan_bindings() decides the status patch that puts them on the
// monitor next to other controllers' entries.
// Contract: deterministic; our entries are sorted by agent namespace/name;
// a condition keeps the lastTransitionTime it was read with while its
// status is unchanged, and `now` comes from the caller, so an unchanged
// verdict plans no write. Entries whose group or resource are not ours are
// carried over as read, in their order.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "actors/core/selector_index.hpp"
#include "model/hierarchy.hpp"
#include "model/value.hpp"

namespace actors::core {

inline constexpr const char* kBindingGroup = "monitoring.grafana.com";
inline constexpr const char* kBindingResource = "grafanaagents";
// The reason of Accepted=False: the render left the monitor out.
inline constexpr const char* kRejectedReason = "InvalidConfiguration";
// Condition messages are cut to this many bytes (Kubernetes' own limit on
// condition messages is 32 KiB; a status this size stays readable).
inline constexpr std::size_t kMaxBindingMessage = 1024;

// The monitor kinds that get bindings: those a MetricsInstance selects.
const std::vector<std::string>& binding_kinds();
bool is_binding_kind(const std::string& kind);

using MonitorId = std::pair<std::string, model::Key>;  // kind, namespace/name

// One root's verdict on one monitor it selects.
struct MonitorBinding {
  MonitorId monitor;
  bool accepted = true;
  std::string message;  // who selects it; on rejection, the problems first
  friend bool operator==(const MonitorBinding&, const MonitorBinding&) = default;
};
using RootBindings = std::vector<MonitorBinding>;  // sorted by monitor

// The monitors of `h` (every instance that selects one is named in its
// message), plus the monitors of `invalid` (routed to the root by their
// labels but not decodable, so never in a hierarchy). A monitor with an
// error Problem naming it is rejected; warnings leave it accepted.
RootBindings root_bindings(const model::Hierarchy& h, const std::vector<model::Problem>& problems,
                           const std::vector<MonitorId>& invalid);

// What is known of one monitor as last read from the API.
struct ObservedMonitor {
  std::string resource_version;
  std::int64_t generation = 0;
  model::Value bindings;  // status.bindings as read (null when absent)
};

// Whether a status.bindings entry is ours (group and resource).
bool our_entry(const model::Value& entry);

// Our entries for one monitor: one per agent in `verdicts`, plus the
// entries in `keep` (agents that exist but have not rendered yet: their
// entry stays as read). Sorted by agent namespace/name.
model::Value merged_entries(const std::map<RootKey, const MonitorBinding*>& verdicts, const ObservedMonitor& seen,
                            const std::vector<RootKey>& keep, const std::string& now_rfc3339);

// The merge patch (`metadata.resourceVersion` as read, so a concurrent
// change is a 409, and `status.bindings`: the other entries as read, then
// `ours`), or nullopt when our entries as read already equal `ours`.
std::optional<model::Value> plan_bindings(const ObservedMonitor& seen, const model::Value& ours);

// Whether a CustomResourceDefinition, at `version`, would keep our entries:
// it has the status subresource, and its status.bindings schema exists (or
// status keeps unknown fields) and admits our group and resource in any
// enum it sets. prometheus-operator's CRDs restrict the group to
// monitoring.coreos.com, so they do not; the reason says so.
struct CrdAdmission {
  bool admitted = false;
  std::string reason;  // why not, for the log
};
CrdAdmission crd_admits_bindings(const model::Value& crd, const std::string& version);

}  // namespace actors::core
