// Checks an object against its OpenAPI v3 schema the way the API server
// decodes it: type mismatches, missing required fields, enum and value
// constraints (pattern, bounds, lengths), and fields the schema does not
// declare (which are pruned unless the schema preserves unknown fields).
// x-kubernetes-validations (CEL) rules are not evaluated.
// Contract: check() never throws; it edits the object only when `prune`
// is set (applying schema defaults, removing undeclared fields and
// non-nullable nulls) and reports every problem with a dotted path such
// as "spec.containers[0].name".
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
  bool prune = false;           // remove undeclared fields, apply defaults (custom resources)
  bool skip_root_meta = false;  // apiVersion/kind/metadata are checked apart (custom resources)
};

// The value constraints of one schema node: pattern, minimum/maximum
// (and their exclusive forms), min/maxLength, min/maxItems and
// min/maxProperties. Appends a cause per violation.
void check_constraints(const model::Value& schema, const model::Value& v, const std::string& path,
                       std::vector<Cause>& out);

ValidationReport check(const SchemaSet& schemas, const model::Value* schema, model::Value& object,
                       const ValidateOptions& options);

}  // namespace k8s::sim
