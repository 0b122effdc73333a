// Applying spec.containers to the operator's containers, as upstream does
// with a strategic merge patch per container name (MergePatchContainers):
// a patch named like an operator container is merged into it, any other
// patch is appended as a container of its own.
// Merge rules (the core/v1 Container schema): objects merge recursively;
// the lists env (by name), ports (by containerPort), volumeMounts (by
// mountPath) and volumeDevices (by devicePath) merge item by item, keeping
// the base order and appending new items; every other list, and any value
// whose type differs from the base, is replaced. A null in a patch changes
// nothing: upstream round-trips patches through typed Go structs, which drop
// nulls (and the CRD schema prunes $patch directives before they arrive).
// Contract: pure; never fails.
#pragma once

#include "model/value.hpp"

namespace model {

// Merges `patch` into `base`, both core/v1 Container objects.
Value strategic_merge_container(const Value& base, const Value& patch);

// `base` (an array of containers) with `patches` applied by name; patches
// for unknown names are appended in their order. When several patches share
// a base container's name, the last one applies.
Value merge_patch_containers(const Value& base, const Value* patches);

}  // namespace model
