#include "model/value.hpp"

#include <algorithm>

namespace model {

Value Value::obj(std::initializer_list<ValueMemberInit> members) {
  Object o;
  o.reserve(members.size());
  for (const ValueMemberInit& m : members) o.emplace_back(std::move(m.key), std::move(m.value));
  return Value(std::move(o));
}

Value Value::arr(std::initializer_list<ValueInit> items) {
  Array a;
  a.reserve(items.size());
  for (const ValueInit& i : items) a.push_back(std::move(i.value));
  return Value(std::move(a));
}

Value Value::strings(const std::vector<std::string>& items) {
  Array a;
  a.reserve(items.size());
  for (const auto& s : items) a.emplace_back(s);
  return Value(std::move(a));
}

double Value::as_double() const {
  if (is_int()) return static_cast<double>(as_int());
  return std::get<double>(v_);
}

const Value* Value::find(std::string_view key) const {
  if (!is_object()) return nullptr;
  for (const auto& [k, v] : as_object())
    if (k == key) return &v;
  return nullptr;
}

Value* Value::find(std::string_view key) {
  return const_cast<Value*>(static_cast<const Value*>(this)->find(key));
}

Value& Value::set(std::string_view key, Value v) {
  if (!is_object()) v_ = Object{};
  auto& o = as_object();
  for (auto& [k, existing] : o)
    if (k == key) return existing = std::move(v);
  o.emplace_back(key, std::move(v));
  return o.back().second;
}

void Value::set_nonempty(std::string_view key, Value v) {
  if (v.is_null()) return;
  if (v.is_string() && v.as_string().empty()) return;
  if ((v.is_array() || v.is_object()) && v.size() == 0) return;
  set(key, std::move(v));
}

bool Value::erase(std::string_view key) {
  if (!is_object()) return false;
  auto& o = as_object();
  auto it = std::find_if(o.begin(), o.end(), [&](const Member& m) { return m.first == key; });
  if (it == o.end()) return false;
  o.erase(it);
  return true;
}

Value& Value::push(Value v) {
  if (!is_array()) v_ = Array{};
  auto& a = as_array();
  a.push_back(std::move(v));
  return a.back();
}

std::size_t Value::size() const {
  if (is_array()) return as_array().size();
  if (is_object()) return as_object().size();
  return 0;
}

bool Value::empty_container() const {
  return (is_array() || is_object()) && size() == 0;
}

bool operator==(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_int() && b.is_int()) return a.as_int() == b.as_int();
    return a.as_double() == b.as_double();
  }
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Value::Type::null:
      return true;
    case Value::Type::boolean:
      return a.as_bool() == b.as_bool();
    case Value::Type::string:
      return a.as_string() == b.as_string();
    case Value::Type::array:
      return a.as_array() == b.as_array();
    case Value::Type::object: {
      if (a.size() != b.size()) return false;
      for (const auto& [k, v] : a.as_object()) {
        const Value* other = b.find(k);
        if (!other || !(*other == v)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

const char* Value::type_name(Type t) {
  switch (t) {
    case Type::null:
      return "null";
    case Type::boolean:
      return "boolean";
    case Type::integer:
      return "integer";
    case Type::number:
      return "number";
    case Type::string:
      return "string";
    case Type::array:
      return "array";
    case Type::object:
      return "object";
  }
  return "unknown";
}

const MemberKey* duplicate_key(const Value::Object& members) {
  // Most objects have a handful of members, where comparing pairs beats
  // hashing or sorting the keys.
  if (members.size() <= 16) {
    for (std::size_t i = 1; i < members.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (members[i].first == members[j].first) return &members[i].first;
    return nullptr;
  }
  std::vector<const MemberKey*> keys;
  keys.reserve(members.size());
  for (const auto& m : members) keys.push_back(&m.first);
  std::sort(keys.begin(), keys.end(), [](const MemberKey* a, const MemberKey* b) { return *a < *b; });
  auto it =
      std::adjacent_find(keys.begin(), keys.end(), [](const MemberKey* a, const MemberKey* b) { return *a == *b; });
  return it == keys.end() ? nullptr : *it;
}

}  // namespace model
