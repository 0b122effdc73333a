// The compact notation of the built-in schemas. A type starts at column 0:
//   core.Container            a closed object (unknown fields are errors)
//   core.Volume *             an open object (x-kubernetes-preserve-unknown-fields)
// and lists its fields indented:
//   name string               scalar: string integer number boolean time quantity int-or-string
//   env []core.EnvVar merge=name      a list merged by key
//   finalizers []string merge         a primitive list merged as a set
//   strategy apps.DeploymentStrategy retainKeys
//   labels map[string]        an object of strings
//   affinity object           any object
//   @kind                     apiVersion, kind and metadata
// Prefixes: meta. core. apps. authentication. coordination. discovery. networking.
// rbac. apiext.
#include "k8s/sim/builtin_schemas.hpp"

#include <sstream>
#include <string>
#include <vector>

namespace k8s::sim {

using model::Value;

namespace {

std::string component_name(const std::string& short_name) {
  std::size_t dot = short_name.find('.');
  std::string prefix = short_name.substr(0, dot), name = short_name.substr(dot + 1);
  if (prefix == "meta") return "io.k8s.apimachinery.pkg.apis.meta.v1." + name;
  if (prefix == "apiext") return "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1." + name;
  return "io.k8s.api." + prefix + ".v1." + name;
}

Value type_schema(const std::string& t) {
  if (t.rfind("[]", 0) == 0) return Value::obj({{"type", "array"}, {"items", type_schema(t.substr(2))}});
  if (t.rfind("map[", 0) == 0)
    return Value::obj({{"type", "object"}, {"additionalProperties", type_schema(t.substr(4, t.size() - 5))}});
  if (t == "string" || t == "integer" || t == "number" || t == "boolean") return Value::obj({{"type", t}});
  if (t == "time") return Value::obj({{"type", "string"}, {"format", "date-time"}});
  if (t == "bytes") return Value::obj({{"type", "string"}, {"format", "byte"}});
  if (t == "int-or-string" || t == "quantity") return Value::obj({{"x-kubernetes-int-or-string", true}});
  if (t == "object") return Value::obj({{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}});
  return Value::obj({{"$ref", "#/components/schemas/" + component_name(t)}});
}

Value field_schema(std::istringstream& words) {
  std::string type, option;
  words >> type;
  Value s = type_schema(type);
  std::vector<std::string> strategies;
  while (words >> option) {
    if (option.rfind("merge", 0) == 0) {
      strategies.push_back("merge");
      if (option.size() > 6) s.set("x-kubernetes-patch-merge-key", option.substr(6));
    } else if (option == "retainKeys") {
      strategies.push_back("retainKeys");
    }
  }
  std::string joined;
  for (const auto& st : strategies) joined += (joined.empty() ? "" : ",") + st;
  if (!joined.empty()) s.set("x-kubernetes-patch-strategy", joined);
  return s;
}

void add_field(Value& type, const std::string& line) {
  std::istringstream words(line);
  std::string name;
  words >> name;
  Value& props = *type.find("properties");
  if (name == "@kind") {
    props.set("apiVersion", type_schema("string"));
    props.set("kind", type_schema("string"));
    props.set("metadata", type_schema("meta.ObjectMeta"));
    return;
  }
  props.set(name, field_schema(words));
}

}  // namespace

void add_schema_text(std::string_view text, SchemaSet& out) {
  std::istringstream in{std::string(text)};
  std::string line, current;
  Value type;
  auto flush = [&] {
    if (!current.empty()) out.add(component_name(current), std::move(type));
  };
  while (std::getline(in, line)) {
    if (line.find_first_not_of(' ') == std::string::npos || line[0] == '#') continue;
    if (line[0] != ' ') {
      flush();
      std::istringstream words(line);
      std::string marker;
      words >> current >> marker;
      type = Value::obj({{"type", "object"}, {"properties", Value::object()}});
      if (marker == "*") type.set("x-kubernetes-preserve-unknown-fields", true);
      continue;
    }
    add_field(type, line);
  }
  flush();
}

SchemaSet builtin_schemas() {
  SchemaSet out;
  for (std::string_view text : {meta_schema_text(), core_schema_text(), pod_schema_text(), apps_schema_text()})
    add_schema_text(text, out);
  out.add("io.k8s.apimachinery.pkg.apis.meta.v1.Time", type_schema("time"));
  out.add("io.k8s.apimachinery.pkg.api.resource.Quantity", type_schema("quantity"));
  out.add("io.k8s.apimachinery.pkg.util.intstr.IntOrString", type_schema("int-or-string"));
  return out;
}

}  // namespace k8s::sim
