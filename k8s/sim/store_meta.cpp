#include "k8s/sim/store_meta.hpp"

namespace k8s::sim {

using model::Value;

Value& meta(Value& object) {
  Value* m = object.find("metadata");
  if (!m || !m->is_object()) return object.set("metadata", Value::object());
  return *m;
}

Value generation_view(const Value& object) {
  Value v = object;
  v.erase("metadata");
  v.erase("status");
  return v;
}

}  // namespace k8s::sim
