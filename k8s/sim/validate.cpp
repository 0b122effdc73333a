#include "k8s/sim/validate.hpp"

#include "model/yaml_emit.hpp"

namespace k8s::sim {

using model::Value;

namespace {

std::string json_type(const Value& v) {
  switch (v.type()) {
    case Value::Type::null:
      return "null";
    case Value::Type::boolean:
      return "boolean";
    case Value::Type::integer:
      return "integer";
    case Value::Type::number:
      return "number";
    case Value::Type::string:
      return "string";
    case Value::Type::array:
      return "array";
    case Value::Type::object:
      return "object";
  }
  return "null";
}

bool type_ok(const std::string& want, const Value& v) {
  if (want == "integer")
    return v.is_int() || (v.type() == Value::Type::number &&
                          v.as_double() == static_cast<double>(static_cast<long long>(v.as_double())));
  if (want == "number") return v.is_number();
  return want == json_type(v);
}

bool flag(const Value* s, const char* name) {
  const Value* v = s ? s->find(name) : nullptr;
  return v && v->is_bool() && v->as_bool();
}

std::string join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

class Checker {
 public:
  Checker(const SchemaSet& set, const ValidateOptions& o, ValidationReport& r) : set_(set), opts_(o), report_(r) {}
  void walk(const Value* schema, Value& v, const std::string& path);

 private:
  bool check_type(const Value* s, const Value& v, const std::string& path);
  void check_enum(const Value* s, const Value& v, const std::string& path);
  void walk_object(const Value* s, Value& v, const std::string& path);
  void invalid(const std::string& path, const std::string& reason, const std::string& message) {
    report_.causes.push_back({reason, path, message});
  }

  const SchemaSet& set_;
  const ValidateOptions& opts_;
  ValidationReport& report_;
};

bool Checker::check_type(const Value* s, const Value& v, const std::string& path) {
  if (flag(s, "x-kubernetes-int-or-string")) {
    if (v.is_int() || v.is_string()) return true;
    invalid(path, "FieldValueInvalid",
            "Invalid value: \"" + json_type(v) + "\": " + path + " in body must be of type int-or-string: \"" +
                json_type(v) + "\"");
    return false;
  }
  const Value* type = s->find("type");
  if (!type || !type->is_string() || type_ok(type->as_string(), v)) return true;
  invalid(path, "FieldValueTypeInvalid",
          "Invalid value: \"" + json_type(v) + "\": " + path + " in body must be of type " + type->as_string() +
              ": \"" + json_type(v) + "\"");
  return false;
}

void Checker::check_enum(const Value* s, const Value& v, const std::string& path) {
  const Value* values = s->find("enum");
  if (!values || !values->is_array()) return;
  std::string supported;
  for (const Value& e : values->as_array()) {
    if (e == v) return;
    supported += (supported.empty() ? "" : ", ") + model::to_json(e);
  }
  invalid(path, "FieldValueNotSupported",
          "Unsupported value: " + model::to_json(v) + ": supported values: " + supported);
}

void Checker::walk(const Value* schema, Value& v, const std::string& path) {
  const Value* s = set_.resolve(schema);
  if (!s || !check_type(s, v, path)) return;
  check_enum(s, v, path);
  check_constraints(*s, v, path, report_.causes);
  if (v.is_object()) walk_object(s, v, path);
  if (v.is_array())
    if (const Value* items = s->find("items"))
      for (std::size_t i = 0; i < v.size(); ++i) walk(items, v.as_array()[i], path + "[" + std::to_string(i) + "]");
}

void Checker::walk_object(const Value* s, Value& v, const std::string& path) {
  const Value* props = s->find("properties");
  const Value* extra = s->find("additionalProperties");
  bool open = flag(s, "x-kubernetes-preserve-unknown-fields") || (extra && extra->is_bool() && extra->as_bool());
  bool embedded = flag(s, "x-kubernetes-embedded-resource");
  bool root_meta = path.empty() && opts_.skip_root_meta;
  if (opts_.prune && props && props->is_object())
    for (const auto& [key, prop] : props->as_object())
      if (const Value* d = prop.find("default"); d && !v.find(key)) v.set(key, *d);
  auto& members = v.as_object();
  for (std::size_t i = 0; i < members.size();) {
    auto& [key, child] = members[i];
    const Value* prop = props ? props->find(key) : nullptr;
    if (!prop && extra && extra->is_object()) prop = extra;
    if ((root_meta || embedded) && (key == "apiVersion" || key == "kind" || key == "metadata")) {
      ++i;
      continue;
    }
    if (child.is_null() && opts_.prune && !flag(set_.resolve(prop), "nullable")) {
      members.erase(members.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    if (!prop && !open) {
      report_.unknown_fields.push_back(join(path, key));
      if (opts_.prune) {
        members.erase(members.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
    }
    if (prop && !child.is_null()) walk(prop, child, join(path, key));
    ++i;
  }
  if (const Value* required = s->find("required"); required && required->is_array())
    for (const Value& r : required->as_array())
      if (r.is_string() && !v.find(r.as_string()))
        invalid(join(path, r.as_string()), "FieldValueRequired", "Required value");
}

}  // namespace

ValidationReport check(const SchemaSet& schemas, const Value* schema, Value& object, const ValidateOptions& options) {
  ValidationReport report;
  Checker(schemas, options, report).walk(schema, object, "");
  return report;
}

}  // namespace k8s::sim
