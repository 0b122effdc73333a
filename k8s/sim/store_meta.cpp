#include "k8s/sim/store_meta.hpp"

namespace k8s::sim {

using model::Value;

Value& meta(Value& object) {
  Value* m = object.find("metadata");
  if (!m || !m->is_object()) return object.set("metadata", Value::object());
  return *m;
}

std::string meta_string(const Value& object, std::string_view field) {
  const Value* m = object.find("metadata");
  const Value* v = m ? m->find(field) : nullptr;
  return v && v->is_string() ? v->as_string() : "";
}

Value generation_view(const Value& object) {
  Value v = object;
  v.erase("metadata");
  v.erase("status");
  return v;
}

}  // namespace k8s::sim
