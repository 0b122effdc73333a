// A set of named OpenAPI v3 schemas ("components/schemas"), as served in
// /openapi/v3 documents and used for validation and strategic merge patch.
// Contract: a SchemaSet is a plain value; share it as
// shared_ptr<const SchemaSet> and copy-on-write to change it. resolve()
// follows "$ref" and a single-entry "allOf", returning null for unknown refs.
#pragma once

#include <map>
#include <string>

#include "model/value.hpp"

namespace k8s::sim {

class SchemaSet {
 public:
  void add(const std::string& name, model::Value schema) { schemas_[name] = std::move(schema); }
  void erase(const std::string& name) { schemas_.erase(name); }
  const model::Value* get(const std::string& name) const;
  const model::Value* resolve(const model::Value* schema) const;
  const std::map<std::string, model::Value>& all() const { return schemas_; }

  // The property `key` of an object schema (unresolved, so its extensions
  // are visible), or null.
  static const model::Value* property(const model::Value* schema, const std::string& key);
  // A string extension such as "x-kubernetes-patch-merge-key", or "".
  static std::string extension(const model::Value* schema, const std::string& name);
  // True if the schema keeps fields it does not declare.
  static bool preserves_unknown(const model::Value* schema);

 private:
  std::map<std::string, model::Value> schemas_;
};

}  // namespace k8s::sim
