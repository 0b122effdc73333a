// The PATCH formats the API server accepts: JSON merge patch (RFC 7386),
// JSON patch (RFC 6902) and Kubernetes strategic merge patch, whose list
// merge keys and strategies come from the OpenAPI schema
// (x-kubernetes-patch-merge-key / x-kubernetes-patch-strategy), including
// the $patch, $retainKeys, $setElementOrder and $deleteFromPrimitiveList
// directives kubectl's client-side apply sends.
// Contract: the target is taken by value and returned patched; malformed
// patches throw ApiError (400 BadRequest or 422 Invalid).
#pragma once

#include "k8s/sim/schema_set.hpp"
#include "model/value.hpp"

namespace k8s::sim {

model::Value json_merge_patch(model::Value target, const model::Value& patch);
model::Value json_patch(model::Value target, const model::Value& operations);
// `schema` describes the target's kind (may be null: every list is atomic).
model::Value strategic_merge_patch(model::Value target, const model::Value& patch, const SchemaSet& schemas,
                                   const model::Value* schema);

}  // namespace k8s::sim
