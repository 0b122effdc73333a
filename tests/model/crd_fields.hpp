// Test support for crd_fields_test.cpp: every field of the CRD schemas
// shipped in deploy/prometheus-operator-crds, read from their
// openAPIV3Schema, with valid sample values, and manifests that set
// exactly one field. Nothing here knows which fields the model supports:
// the fields come from the CRD files, so a newer CRD brings its new fields
// into the tests by itself.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/value.hpp"

namespace crdfields {

// One step from the object root to a field: a property, the item of an
// array ([0] when built), or the value of a map (key kMapKey when built).
struct Step {
  enum class Kind { property, item, map_value } kind;
  std::string name;  // properties only
  const model::Value* schema;
};

inline constexpr const char* kMapKey = "X-Test";

// A leaf: a field whose value is a scalar, a list of scalars or a map of
// scalars (or lists of them), as opposed to objects the walk goes into.
struct Field {
  std::string kind;  // ServiceMonitor, PodMonitor, Probe or ScrapeConfig
  std::vector<Step> steps;
  const model::Value& schema() const { return *steps.back().schema; }
  const std::string& name() const { return steps.back().name; }
  // "spec.endpoints[].proxyConnectHeader.*[].key"
  std::string generic() const;
  // "spec.endpoints[0].proxyConnectHeader.X-Test[0].key", the path the
  // model names in its problems.
  std::string concrete() const;
  // The concrete paths of every property on the way, the leaf included.
  std::vector<std::string> property_paths() const;
  // Whether `path` is this field's concrete path or that of a property or
  // item it lies in ("spec.endpoints[0].oauth2" for the field above it).
  bool within(const std::string& path) const;
};

// The four kinds' `spec` schemas, read once from deploy/prometheus-operator-crds.
const std::map<std::string, model::Value>& spec_schemas();
// Every leaf under spec of `kind`, in schema order.
std::vector<Field> leaf_fields(const std::string& kind);

// Values to try for a leaf: all of an enum, both booleans, otherwise
// samples chosen by the field's name (and checked against the schema's
// pattern, bounds and type). REQUIREs that it knows one.
std::vector<model::Value> candidates(const Field& f);

// `object` with the containers of `f` created, each new object filled
// with its required properties and the usual shape of its kind (a Secret
// or ConfigMap reference names creds/k, a relabeling has a targetLabel, a
// selector requirement is `x In [x]`). The leaf holds whatever that put
// there, which is its baseline.
model::Value with_containers(const model::Value& object, const Field& f);
// The leaf of `f` in `object` (its containers made by with_containers);
// null when absent.
const model::Value* leaf(const model::Value& object, const Field& f);
void set_leaf(model::Value& object, const Field& f, model::Value v);
// The reference that holds `f` (an `optional` leaf) pointed at a Secret
// or ConfigMap that does not exist.
void point_at_missing(model::Value& object, const Field& f);

}  // namespace crdfields
