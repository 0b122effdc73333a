// Helpers shared by the store's source files for reading and writing the
// metadata block of an object. Private to k8s/sim.
// Contract: getters return "" for absent or non-string fields; meta() makes
// sure metadata is an object and returns it.
#pragma once

#include <string>
#include <string_view>

#include "model/object_fields.hpp"
#include "model/value.hpp"

namespace k8s::sim {

model::Value& meta(model::Value& object);
using model::meta_string;
// The object without metadata.resourceVersion, metadata and status: what
// decides whether metadata.generation moves.
model::Value generation_view(const model::Value& object);

}  // namespace k8s::sim
