// A JSON-shaped document tree: the one in-memory form of every parsed
// manifest and every rendered object. Objects keep insertion order; the
// emitters sort keys, so rendering never depends on map iteration order.
// Contract: a Value owns its children; copies are deep.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "model/member_key.hpp"

namespace model {

struct ValueInit;
struct ValueMemberInit;

class Value {
 public:
  enum class Type : std::uint8_t { null, boolean, integer, number, string, array, object };
  using Array = std::vector<Value>;
  using Member = std::pair<MemberKey, Value>;
  using Object = std::vector<Member>;

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : v_(b) {}
  Value(int i) : v_(static_cast<std::int64_t>(i)) {}
  Value(std::int64_t i) : v_(i) {}
  Value(double d) : v_(d) {}
  Value(const char* s) : v_(std::string(s)) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(std::string_view s) : v_(std::string(s)) {}
  Value(Array a) : v_(std::move(a)) {}
  Value(Object o) : v_(std::move(o)) {}

  static Value object() { return Value(Object{}); }
  static Value array() { return Value(Array{}); }
  // Builds an object from literal members, e.g. Value::obj({{"a", 1}}).
  // Each member's value is constructed once and moved into place.
  static Value obj(std::initializer_list<ValueMemberInit> members);
  static Value arr(std::initializer_list<ValueInit> items);
  static Value strings(const std::vector<std::string>& items);

  Type type() const { return static_cast<Type>(v_.index()); }
  bool is_null() const { return type() == Type::null; }
  bool is_bool() const { return type() == Type::boolean; }
  bool is_int() const { return type() == Type::integer; }
  bool is_number() const { return type() == Type::number || type() == Type::integer; }
  bool is_string() const { return type() == Type::string; }
  bool is_array() const { return type() == Type::array; }
  bool is_object() const { return type() == Type::object; }

  bool as_bool() const { return std::get<bool>(v_); }
  std::int64_t as_int() const { return std::get<std::int64_t>(v_); }
  double as_double() const;
  const std::string& as_string() const { return std::get<std::string>(v_); }
  std::string& as_string() { return std::get<std::string>(v_); }
  const Array& as_array() const { return std::get<Array>(v_); }
  Array& as_array() { return std::get<Array>(v_); }
  const Object& as_object() const { return std::get<Object>(v_); }
  Object& as_object() { return std::get<Object>(v_); }

  // Object access. find returns nullptr when absent or not an object.
  const Value* find(std::string_view key) const;
  Value* find(std::string_view key);
  // Replaces an existing member or appends a new one; returns the stored value.
  Value& set(std::string_view key, Value v);
  // Sets only when v is not null and not an empty string/array/object.
  void set_nonempty(std::string_view key, Value v);
  bool erase(std::string_view key);
  Value& push(Value v);

  // Number of members or items; 0 for scalars.
  std::size_t size() const;
  bool empty_container() const;

  // Equality ignores object member order and compares 1 and 1.0 equal, as
  // a JSON/YAML reader would.
  friend bool operator==(const Value& a, const Value& b);
  friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }

  const char* type_name() const { return type_name(type()); }
  static const char* type_name(Type t);

 private:
  std::variant<std::monostate, bool, std::int64_t, double, std::string, Array, Object> v_;
};

// The first key `members` holds twice, or nullptr. Objects do not check
// their keys themselves; the readers refuse duplicates (the API server
// would keep the last, our lookups find the first).
const MemberKey* duplicate_key(const Value::Object& members);

// One element of a braced list given to Value::obj() or Value::arr(). The
// elements of an initializer_list are const, so a plain Member would be
// copied out of it, subtree and all; a mutable field may be moved from.
struct ValueInit {
  template <class T>
  ValueInit(T&& v) : value(std::forward<T>(v)) {}  // NOLINT(google-explicit-constructor): braced lists
  mutable Value value;
};

struct ValueMemberInit {
  template <class T>
  ValueMemberInit(std::string_view k, T&& v) : key(k), value(std::forward<T>(v)) {}
  mutable MemberKey key;
  mutable Value value;
};

}  // namespace model
