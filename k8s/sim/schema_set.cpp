#include "k8s/sim/schema_set.hpp"

namespace k8s::sim {

using model::Value;

const Value* SchemaSet::get(const std::string& name) const {
  auto it = schemas_.find(name);
  return it == schemas_.end() ? nullptr : &it->second;
}

const Value* SchemaSet::resolve(const Value* schema) const {
  for (int depth = 0; schema && depth < 8; ++depth) {
    const Value* all_of = schema->find("allOf");
    if (all_of && all_of->is_array() && all_of->size() == 1) {
      schema = &all_of->as_array()[0];
      continue;
    }
    const Value* ref = schema->find("$ref");
    if (!ref || !ref->is_string()) return schema;
    const std::string prefix = "#/components/schemas/";
    const std::string& r = ref->as_string();
    schema = r.compare(0, prefix.size(), prefix) == 0 ? get(r.substr(prefix.size())) : nullptr;
  }
  return schema;
}

const Value* SchemaSet::property(const Value* schema, const std::string& key) {
  const Value* props = schema ? schema->find("properties") : nullptr;
  return props ? props->find(key) : nullptr;
}

std::string SchemaSet::extension(const Value* schema, const std::string& name) {
  const Value* v = schema ? schema->find(name) : nullptr;
  return v && v->is_string() ? v->as_string() : "";
}

bool SchemaSet::preserves_unknown(const Value* schema) {
  const Value* v = schema ? schema->find("x-kubernetes-preserve-unknown-fields") : nullptr;
  return v && v->is_bool() && v->as_bool();
}

}  // namespace k8s::sim
