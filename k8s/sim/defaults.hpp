// Defaulting of built-in kinds, as the real API server's SetDefaults_*
// functions (and, for new Pods, the ServiceAccount, Priority and
// DefaultTolerationSeconds admission plugins) fill in fields. Clients
// such as `kubectl describe` rely on these being present.
// Contract: idempotent; never removes a field the client set, except
// Secret stringData, which is folded into data as the server does.
#pragma once

#include "k8s/sim/resource_types.hpp"
#include "model/value.hpp"

namespace k8s::sim {

// Applied on every write (create, update, patch).
void apply_defaults(const ResourceType& t, model::Value& object);
// Applied to new Pods only (admission).
void admit_pod(model::Value& pod);

}  // namespace k8s::sim
