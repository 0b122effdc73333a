// Checks an object against its OpenAPI v3 schema the way the API server
// decodes it: type mismatches, missing required fields and enum
// violations, and fields the schema does not declare (which are pruned
// unless the schema preserves unknown fields).
// Contract: check() never throws; it edits the object only when `prune`
// is set (removing undeclared fields and non-nullable nulls) and reports
// every problem with a dotted path such as "spec.containers[0].name".
#pragma once

#include <string>
#include <vector>

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/schema_set.hpp"
#include "model/value.hpp"

namespace k8s::sim {

struct ValidationReport {
  std::vector<std::string> unknown_fields;  // paths of undeclared fields
  std::vector<Cause> causes;                // type, required and enum violations
};

struct ValidateOptions {
  bool prune = false;          // remove undeclared fields (custom resources)
  bool skip_root_meta = false; // apiVersion/kind/metadata are checked apart (custom resources)
};

ValidationReport check(const SchemaSet& schemas, const model::Value* schema, model::Value& object,
                       const ValidateOptions& options);

}  // namespace k8s::sim
