// OpenAPI v3 schemas of the built-in kinds simcluster serves. They are a
// subset of the real ones: every kind and its main structures list all
// of their fields (so strict field validation can reject unknown fields),
// and the list fields carry the real patch merge keys and strategies;
// deeper structures are marked x-kubernetes-preserve-unknown-fields.
// Contract: builtin_schemas() is deterministic; names follow upstream
// ("io.k8s.api.core.v1.Pod"), and references use "#/components/schemas/".
#pragma once

#include <string_view>

#include "k8s/sim/schema_set.hpp"

namespace k8s::sim {

SchemaSet builtin_schemas();

// Parses the compact schema notation the built-in definitions are written
// in (see builtin_schemas.cpp) and adds each type to `out`.
void add_schema_text(std::string_view text, SchemaSet& out);

// The definition texts, one per API area.
std::string_view meta_schema_text();
std::string_view core_schema_text();
std::string_view pod_schema_text();
std::string_view apps_schema_text();

}  // namespace k8s::sim
