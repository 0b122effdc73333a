// Nested lookup in a model::Value by a path of object keys, for code that
// reads Kubernetes objects ({"metadata", "annotations"}).
// Contract: nullptr when any step is absent or not an object.
#pragma once

#include <initializer_list>

#include "model/value.hpp"

namespace model {

inline const Value* find_path(const Value& v, std::initializer_list<const char*> path) {
  const Value* cur = &v;
  for (const char* p : path)
    if (!(cur = cur->find(p))) return nullptr;
  return cur;
}

}  // namespace model
