// Strategic merge patch, following k8s.io/apimachinery's strategicpatch
// semantics as the API server applies them (MergeParallelList,
// IgnoreUnmatchedNulls).
#include <algorithm>
#include <map>

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/patch.hpp"

namespace k8s::sim {

using model::Value;

namespace {

const std::string kOrder = "$setElementOrder/";
const std::string kDeletePrimitive = "$deleteFromPrimitiveList/";

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::string directive(const Value& v) {
  const Value* d = v.is_object() ? v.find("$patch") : nullptr;
  return d && d->is_string() ? d->as_string() : "";
}

// A patch value placed where the original has nothing: without nulls and
// directives.
Value strip(const Value& v) {
  if (v.is_object()) {
    Value out = Value::object();
    for (const auto& [k, e] : v.as_object())
      if (!e.is_null() && k.str()[0] != '$') out.set(k, strip(e));
    return out;
  }
  if (v.is_array()) {
    Value out = Value::array();
    for (const Value& e : v.as_array())
      if (directive(e).empty()) out.push(strip(e));
    return out;
  }
  return v;
}

class Merger {
 public:
  explicit Merger(const SchemaSet& set) : set_(set) {}
  bool merge_map(Value& original, const Value& patch, const Value* schema);

 private:
  void merge_list(Value& original, const Value& patch, const Value* prop);
  void merge_entry(Value& original, const std::string& key, const Value& value, const Value* schema);
  const SchemaSet& set_;
};

std::ptrdiff_t index_of(const Value& list, const Value& id, const std::string& key) {
  const auto& a = list.as_array();
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Value* k = key.empty() ? &a[i] : a[i].find(key);
    if (k && *k == id) return static_cast<std::ptrdiff_t>(i);
  }
  return -1;
}

const Value& identity(const Value& e, const std::string& key) {
  const Value* k = key.empty() ? nullptr : e.find(key);
  return k ? *k : e;
}

// $setElementOrder: patch-ordered items interleaved with server-only items
// by their server positions (strategicpatch.normalizeElementOrder).
void reorder(Value& list, const Value& order, const std::string& key, const Value& server) {
  if (!list.is_array() || !order.is_array()) return;
  auto order_pos = [&](const Value& e) { return index_of(order, identity(e, key), key); };
  auto server_pos = [&](const Value& e) { return server.is_array() ? index_of(server, identity(e, key), key) : -1; };
  std::vector<Value> ordered, server_only;
  for (Value& e : list.as_array()) (order_pos(e) >= 0 ? ordered : server_only).push_back(std::move(e));
  std::stable_sort(ordered.begin(), ordered.end(),
                   [&](const Value& a, const Value& b) { return order_pos(a) < order_pos(b); });
  Value::Array out;
  std::size_t i = 0, j = 0;
  while (i < ordered.size() || j < server_only.size()) {
    bool take_left = j >= server_only.size();
    if (i < ordered.size() && j < server_only.size()) {
      auto li = server_pos(ordered[i]), ri = server_pos(server_only[j]);
      take_left = li >= 0 && ri >= 0 && li < ri;
    }
    out.push_back(std::move(take_left ? ordered[i++] : server_only[j++]));
  }
  list = Value(std::move(out));
}

void Merger::merge_list(Value& original, const Value& patch, const Value* prop) {
  for (const Value& e : patch.as_array())
    if (directive(e) == "replace") {
      original = strip(patch);
      return;
    }
  std::string strategy = SchemaSet::extension(prop, "x-kubernetes-patch-strategy");
  if (strategy.find("merge") == std::string::npos) {
    original = strip(patch);
    return;
  }
  std::string key = SchemaSet::extension(prop, "x-kubernetes-patch-merge-key");
  const Value* list_schema = set_.resolve(prop);
  const Value* items = set_.resolve(list_schema ? list_schema->find("items") : nullptr);
  auto& out = original.as_array();
  for (const Value& e : patch.as_array()) {
    if (key.empty() || !e.is_object()) {
      if (index_of(original, e, "") < 0) out.push_back(strip(e));
      continue;
    }
    const Value* id = e.find(key);
    if (!id) throw ApiError::bad_request("map does not contain declared merge key: " + key);
    std::ptrdiff_t at = index_of(original, *id, key);
    if (directive(e) == "delete") {
      std::erase_if(out, [&](const Value& o) { return o.find(key) && *o.find(key) == *id; });
    } else if (at < 0) {
      out.push_back(strip(e));
    } else if (!merge_map(out[static_cast<std::size_t>(at)], e, items)) {
      out.erase(out.begin() + at);
    }
  }
}

void Merger::merge_entry(Value& original, const std::string& key, const Value& value, const Value* schema) {
  if (value.is_null()) {
    original.erase(key);
    return;
  }
  Value* existing = original.find(key);
  const Value* prop = SchemaSet::property(schema, key);
  if (!existing) {
    if (directive(value) != "delete") original.set(key, strip(value));
  } else if (existing->is_object() && value.is_object()) {
    if (!merge_map(*existing, value, set_.resolve(prop))) original.erase(key);
  } else if (existing->is_array() && value.is_array()) {
    merge_list(*existing, value, prop);
  } else {
    *existing = strip(value);
  }
}

bool Merger::merge_map(Value& original, const Value& patch, const Value* schema) {
  std::string d = directive(patch);
  if (d == "delete") return false;
  if (d == "replace") {
    original = strip(patch);
    return true;
  }
  if (const Value* retain = patch.find("$retainKeys"); retain && retain->is_array())
    std::erase_if(original.as_object(),
                  [&](const Value::Member& m) { return index_of(*retain, Value(m.first.view()), "") < 0; });
  std::map<std::string, std::pair<const Value*, Value>> orders;  // field -> (order, server list)
  for (const auto& [k, v] : patch.as_object()) {
    if (starts_with(k, kOrder)) {
      const Value* server = original.find(k.str().substr(kOrder.size()));
      orders[k.str().substr(kOrder.size())] = {&v, server ? *server : Value()};
    } else if (starts_with(k, kDeletePrimitive)) {
      Value* list = original.find(k.str().substr(kDeletePrimitive.size()));
      if (list && list->is_array() && v.is_array())
        std::erase_if(list->as_array(), [&](const Value& e) { return index_of(v, e, "") >= 0; });
    } else if (k != "$patch" && k != "$retainKeys") {
      merge_entry(original, k, v, schema);
    }
  }
  for (const auto& [field, order] : orders)
    if (Value* list = original.find(field))
      reorder(*list, *order.first,
              SchemaSet::extension(SchemaSet::property(schema, field), "x-kubernetes-patch-merge-key"), order.second);
  return true;
}

}  // namespace

Value strategic_merge_patch(Value target, const Value& patch, const SchemaSet& schemas, const Value* schema) {
  if (!patch.is_object()) throw ApiError::bad_request("strategic merge patch must be a JSON object");
  if (!target.is_object()) target = Value::object();
  Merger m(schemas);
  if (!m.merge_map(target, patch, schemas.resolve(schema))) return Value::object();
  return target;
}

}  // namespace k8s::sim
