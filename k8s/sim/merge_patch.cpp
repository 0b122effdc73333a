// JSON merge patch (RFC 7386) and JSON patch (RFC 6902).
#include <string>

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/patch.hpp"

namespace k8s::sim {

using model::Value;

Value json_merge_patch(Value target, const Value& patch) {
  if (!patch.is_object()) return patch;
  if (!target.is_object()) target = Value::object();
  for (const auto& [key, value] : patch.as_object()) {
    if (value.is_null()) {
      target.erase(key);
      continue;
    }
    Value* existing = target.find(key);
    target.set(key, json_merge_patch(existing ? std::move(*existing) : Value(), value));
  }
  return target;
}

namespace {

[[noreturn]] void patch_fail(const std::string& why) {
  throw ApiError(422, "Invalid", why);
}

std::vector<std::string> split_pointer(const std::string& pointer) {
  std::vector<std::string> parts;
  if (pointer.empty()) return parts;
  if (pointer[0] != '/') patch_fail("invalid JSON pointer: " + pointer);
  std::string cur;
  for (std::size_t i = 1; i <= pointer.size(); ++i) {
    if (i == pointer.size() || pointer[i] == '/') {
      parts.push_back(cur);
      cur.clear();
    } else if (pointer[i] == '~' && i + 1 < pointer.size()) {
      cur += pointer[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      cur += pointer[i];
    }
  }
  return parts;
}

std::size_t array_index(const Value& arr, const std::string& token, bool allow_end) {
  if (allow_end && token == "-") return arr.size();
  if (token.empty() || token.find_first_not_of("0123456789") != std::string::npos)
    patch_fail("invalid array index: " + token);
  std::size_t i = std::stoul(token);
  if (i > arr.size() || (!allow_end && i == arr.size())) patch_fail("array index out of bounds: " + token);
  return i;
}

// The container holding the last token of `parts`.
Value& parent_of(Value& root, const std::vector<std::string>& parts) {
  Value* cur = &root;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (cur->is_object())
      cur = cur->find(parts[i]);
    else if (cur->is_array())
      cur = &cur->as_array()[array_index(*cur, parts[i], false)];
    else
      cur = nullptr;
    if (!cur) patch_fail("doc is missing path: " + parts[i]);
  }
  return *cur;
}

Value take(Value& root, const std::vector<std::string>& parts) {
  if (parts.empty()) return std::exchange(root, Value());
  Value& parent = parent_of(root, parts);
  if (parent.is_array()) {
    auto& a = parent.as_array();
    std::size_t i = array_index(parent, parts.back(), false);
    Value v = std::move(a[i]);
    a.erase(a.begin() + static_cast<std::ptrdiff_t>(i));
    return v;
  }
  Value* v = parent.find(parts.back());
  if (!v) patch_fail("unable to remove nonexistent key: " + parts.back());
  Value out = std::move(*v);
  parent.erase(parts.back());
  return out;
}

void put(Value& root, const std::vector<std::string>& parts, Value v, bool replace) {
  if (parts.empty()) {
    root = std::move(v);
    return;
  }
  Value& parent = parent_of(root, parts);
  if (parent.is_array()) {
    auto& a = parent.as_array();
    std::size_t i = array_index(parent, parts.back(), !replace);
    if (replace)
      a[i] = std::move(v);
    else
      a.insert(a.begin() + static_cast<std::ptrdiff_t>(i), std::move(v));
  } else if (parent.is_object()) {
    if (replace && !parent.find(parts.back()))
      patch_fail("replace operation does not apply: doc is missing key: " + parts.back());
    parent.set(parts.back(), std::move(v));
  } else {
    patch_fail("doc is missing path: " + parts.back());
  }
}

const Value& lookup(Value& root, const std::vector<std::string>& parts) {
  if (parts.empty()) return root;
  Value& parent = parent_of(root, parts);
  if (parent.is_array()) return parent.as_array()[array_index(parent, parts.back(), false)];
  const Value* v = parent.find(parts.back());
  if (!v) patch_fail("doc is missing key: " + parts.back());
  return *v;
}

std::string string_field(const Value& op, const char* name) {
  const Value* v = op.find(name);
  if (!v || !v->is_string()) patch_fail(std::string("missing \"") + name + "\" in JSON patch operation");
  return v->as_string();
}

void apply_op(Value& doc, const Value& op) {
  std::string kind = string_field(op, "op");
  auto path = split_pointer(string_field(op, "path"));
  const Value* value = op.find("value");
  if ((kind == "add" || kind == "replace" || kind == "test") && !value)
    patch_fail("missing \"value\" in JSON patch " + kind + " operation");
  if (kind == "add")
    put(doc, path, *value, false);
  else if (kind == "replace")
    put(doc, path, *value, true);
  else if (kind == "remove")
    take(doc, path);
  else if (kind == "move")
    put(doc, path, take(doc, split_pointer(string_field(op, "from"))), false);
  else if (kind == "copy")
    put(doc, path, lookup(doc, split_pointer(string_field(op, "from"))), false);
  else if (kind == "test") {
    if (lookup(doc, path) != *value) patch_fail("testing value " + string_field(op, "path") + " failed");
  } else {
    patch_fail("Unexpected kind: " + kind);
  }
}

}  // namespace

Value json_patch(Value target, const Value& operations) {
  if (!operations.is_array())
    throw ApiError::bad_request("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  for (const Value& op : operations.as_array()) {
    if (!op.is_object()) patch_fail("invalid JSON patch operation");
    apply_op(target, op);
  }
  return target;
}

}  // namespace k8s::sim
