// The API server's object size limits (internal to k8s/sim): at most
// 256 KiB of annotations (keys plus values) on any object and on the pod
// template of a workload, and at most
// 1 MiB of data in a Secret (data, after stringData is merged) or a
// ConfigMap (data plus binaryData), counted in decoded bytes.
// Contract: the checks report with the real field paths and messages
// ("metadata.annotations", "data" for Secrets, "[]" for ConfigMaps, whose
// limit applies to the whole object: "Too long: must have at most N bytes").
#pragma once

#include <vector>

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/resource_types.hpp"
#include "model/value.hpp"

namespace k8s::sim {

inline constexpr std::size_t kMaxAnnotationBytes = 256 * 1024;
inline constexpr std::size_t kMaxDataBytes = 1024 * 1024;

// Appends a cause when metadata.annotations is over the limit.
void check_annotation_size(const model::Value& metadata, std::vector<Cause>& out);
// The same for the pod template of a workload (apps/v1), as
// "spec.template.metadata.annotations".
void check_template_annotation_size(const ResourceType& t, const model::Value& object, std::vector<Cause>& out);
// Throws ApiError 422 when a Secret's or ConfigMap's data is over the limit.
void check_data_size(const ResourceType& t, const model::Value& object);

}  // namespace k8s::sim
