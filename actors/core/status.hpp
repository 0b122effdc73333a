// The GrafanaAgent `status` the operator reports, as a pure function of
// what a reconcile produced and how the writes went. Upstream reports no
// status at all; users asked for one ("the operator doesn't do anything").
// Contract: deterministic given `now`. Conditions `Reconciled` and `Ready`
// keep their lastTransitionTime from `previous` while their status is
// unchanged, so re-reporting the same state is byte-identical and the
// writer can skip it. Problems are capped (kMaxStatusProblems) with a final
// entry saying how many were left out; errors (reason Skipped: the
// resource was left out, Reconciled False) come before warnings (reason
// FieldIgnored: the resource renders without that field, Reconciled stays
// True and its message counts them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "actors/core/root_state.hpp"
#include "model/value.hpp"

namespace actors::core {

inline constexpr std::size_t kMaxStatusProblems = 50;
// Kubernetes refuses Event messages (notes) over 1 KiB.
inline constexpr std::size_t kMaxEventMessage = 1024;

struct StatusInput {
  std::int64_t generation = 0;
  bool root_valid = true;
  bool paused = false;
  HierarchyCounts counts;
  std::vector<model::Problem> problems;  // decode and render problems, sorted
  std::string write_error;               // the last failed write ("" = none)
  bool writes_pending = false;           // desired state not yet fully applied
  std::string not_ready;                 // why workloads are not ready ("" = ready)
};

// `previous` is the object's current .status (null when absent).
model::Value agent_status(const StatusInput& in, const model::Value& previous, const std::string& now_rfc3339);

// The Warning Event's message for Reconciled=False with `reason` and the
// condition's `message`: for InvalidSpec and InvalidMembers the failing
// resources each by kind, namespace/name, field and problem, as many as fit
// in kMaxEventMessage bytes, then how many more status.problems lists;
// otherwise (WriteFailed names its write) the message itself, cut to fit.
std::string failure_event_message(const StatusInput& in, const std::string& reason, const std::string& message);

// Why owned workloads are not ready ("" when all are), read from the status
// the API server (or kubelet) reports on observed StatefulSets, DaemonSets
// and Deployments. Pointers: the writer's observed objects include the
// config Secrets, too large to copy for a status report.
std::string workloads_not_ready(const std::vector<const model::Value*>& observed);

// The condition of `type` in a status object (null when absent).
const model::Value* find_condition(const model::Value& status, const std::string& type);

// Problems with the root itself (kind GrafanaAgent, same namespace/name).
bool root_problem(const model::Problem& p, const RootKey& root);

}  // namespace actors::core
