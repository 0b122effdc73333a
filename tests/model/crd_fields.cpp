#include "crd_fields.hpp"

#include <re2/re2.h>

#include <catch2/catch.hpp>

#include <algorithm>

#include "golden_util.hpp"
#include "model/parse.hpp"

using model::Value;

namespace crdfields {
namespace {

std::string text(const Value* v) {
  return v && v->is_string() ? v->as_string() : "";
}

bool has_properties(const Value& s) {
  const Value* p = s.find("properties");
  return p && p->is_object() && p->size() > 0;
}

const Value* items_of(const Value& s) {
  const Value* i = s.find("items");
  return i && i->is_object() ? i : nullptr;
}

const Value* map_values_of(const Value& s) {
  const Value* a = s.find("additionalProperties");
  return a && a->is_object() ? a : nullptr;
}

// Whether the walk goes into a schema: objects with properties, and lists
// or maps of them. Everything else is a leaf.
bool is_container(const Value& s) {
  if (has_properties(s)) return true;
  if (const Value* i = items_of(s)) return is_container(*i);
  if (const Value* m = map_values_of(s)) return is_container(*m);
  return false;
}

void walk(const std::string& kind, std::vector<Step> steps, const Value& s, std::vector<Field>& out) {
  auto descend = [&](Step step) {
    std::vector<Step> next = steps;
    next.push_back(step);
    if (is_container(*step.schema))
      walk(kind, std::move(next), *step.schema, out);
    else
      out.push_back(Field{kind, std::move(next)});
  };
  if (has_properties(s)) {
    for (const auto& [name, sub] : s.find("properties")->as_object()) descend({Step::Kind::property, name, &sub});
  } else if (const Value* i = items_of(s)) {
    descend({Step::Kind::item, "", i});
  } else if (const Value* m = map_values_of(s)) {
    descend({Step::Kind::map_value, "", m});
  }
}

bool pattern_allows(const Value& schema, const Value& v) {
  const std::string pattern = text(schema.find("pattern"));
  if (pattern.empty() || !v.is_string()) return true;
  RE2 re(pattern, RE2::Quiet);
  return !re.ok() || RE2::PartialMatch(v.as_string(), re);
}

std::vector<Value> strings(std::initializer_list<const char*> values) {
  std::vector<Value> out;
  for (const char* v : values) out.emplace_back(v);
  return out;
}

// Samples of string fields, by field name (and path where a name means
// different things).
std::vector<Value> string_samples(const std::string& name, const std::string& generic) {
  if (name == "interval" || name == "scrapeInterval" || name == "scrapeTimeout" || name == "refreshInterval")
    return strings({"10s"});
  if (name == "bodySizeLimit") return strings({"10MB"});
  if (name == "proxyUrl") return strings({"http://proxy.example:3128"});
  // Two samples where the field is often required (and then its baseline).
  if (name == "tokenUrl") return strings({"https://auth.example/token", "https://auth2.example/token"});
  if (name == "url")
    return generic.find("prober") != std::string::npos
               ? strings({"prober.example:9115"})
               : strings({"https://sd.example/targets", "https://sd2.example/targets"});
  if (name == "apiServer") return strings({"https://api.example"});
  if (name == "name") return strings({"creds", "creds2"});
  if (name == "key") return strings({"k", "k2"});
  if (name == "path" || name == "metricsPath") return strings({"/x"});
  if (name == "operator") return strings({"In", "NotIn", "Exists", "DoesNotExist"});
  if (name == "type") return strings({"Token"});
  if (name == "targetLabel") return strings({"t", "u"});
  if (name == "regex") return strings({"(x)"});
  if (name == "replacement") return strings({"$1x"});
  if (name == "separator") return strings({"|"});
  if (name == "label") return strings({"a=b"});
  if (name == "field") return strings({"metadata.name=x"});
  if (name.ends_with("File")) return strings({"/etc/x/file"});
  if (name == "serverName") return strings({"server.example"});
  if (name == "noProxy") return strings({"localhost"});
  return strings({"x"});
}

Value list_sample(const std::string& name) {
  if (name == "static" || name == "targets") return Value::arr({"target.example:80"});
  if (name == "files") return Value::arr({"/etc/sd/*.json"});
  if (name == "sourceLabels") return Value::arr({"a"});
  if (name == "values") return Value::arr({"y"});
  return Value::arr({"x"});
}

std::vector<Value> values_for(const std::string& name, const Value& s, const std::string& generic) {
  if (const Value* e = s.find("enum"); e && e->is_array()) return e->as_array();
  if (const Value* f = s.find("x-kubernetes-int-or-string"); f && f->is_bool() && f->as_bool()) {
    if (name == "targetPort") return {Value(9100), Value("web")};
    return {Value("1.5")};
  }
  const std::string type = text(s.find("type"));
  if (type == "boolean") return {Value(true), Value(false)};
  if (type == "integer") {
    std::int64_t v = name == "portNumber" ? 9100 : name == "modulus" ? 3 : 7;
    if (const Value* min = s.find("minimum"); min && min->is_number() && v < min->as_double()) v = min->as_int();
    return {Value(v)};
  }
  if (type == "number") return {Value(1.5)};
  if (type == "string") return string_samples(name, generic);
  if (type == "array") {
    const Value* item = items_of(s);
    if (item && item->find("enum")) return {Value::arr({item->find("enum")->as_array().front()})};
    if (name == "files") return {list_sample(name), Value::arr({"/etc/sd2/*.yaml"})};  // required: a second one
    return {list_sample(name)};
  }
  if (const Value* m = map_values_of(s))
    return {Value::obj({{"a", text(m->find("type")) == "array" ? Value::arr({"b"}) : Value("b")}})};
  return {Value::object()};
}

void fill_shape(Value& obj, const Value& schema, const std::string& on_path);

// A new container for `s`: an object gets its shape and required fields.
Value make(const Value& s, const std::string& on_path) {
  if (text(s.find("type")) == "array") return Value::array();
  Value obj = Value::object();
  if (has_properties(s)) fill_shape(obj, s, on_path);
  return obj;
}

bool has_property(const Value& schema, const char* name) {
  const Value* p = schema.find("properties");
  return p && p->find(name);
}

void set_default(Value& obj, const char* name, Value v, const std::string& on_path) {
  if (on_path != name && !obj.find(name)) obj.set(name, std::move(v));
}

// `on_path` is the property the field continues through ("" when the
// field is a property of this object): it gets no default, so a path
// through a Secret-or-ConfigMap reference's configMap has no secret too.
void fill_shape(Value& obj, const Value& schema, const std::string& on_path) {
  const Value& props = *schema.find("properties");
  if (has_property(schema, "key") && has_property(schema, "name") && has_property(schema, "optional")) {
    set_default(obj, "name", "creds", on_path);
    set_default(obj, "key", "k", on_path);
  }
  if (has_property(schema, "targetLabel") && has_property(schema, "sourceLabels"))
    set_default(obj, "targetLabel", "t", on_path);
  // A client certificate goes with its key; an authorization has credentials.
  if (has_property(schema, "cert") && has_property(schema, "keySecret")) {
    set_default(obj, "cert", Value::obj({{"secret", Value::obj({{"name", "creds"}, {"key", "k"}})}}), on_path);
    set_default(obj, "keySecret", Value::obj({{"name", "creds"}, {"key", "k2"}}), on_path);
  }
  if (has_property(schema, "type") && has_property(schema, "credentials"))
    set_default(obj, "credentials", Value::obj({{"name", "creds"}, {"key", "k"}}), on_path);
  if (has_property(schema, "operator") && has_property(schema, "values")) {
    set_default(obj, "key", "x", on_path);
    set_default(obj, "operator", "In", on_path);
    set_default(obj, "values", Value::arr({"x"}), on_path);
  }
  if (props.size() == 2 && has_property(schema, "secret") && has_property(schema, "configMap") && on_path.empty())
    obj.set("secret", Value::obj({{"name", "creds"}, {"key", "k"}}));
  if (const Value* required = schema.find("required"); required && required->is_array())
    for (const Value& r : required->as_array()) {
      const std::string& name = r.as_string();
      if (name == on_path || obj.find(name)) continue;
      const Value& sub = *props.find(name);
      obj.set(name, is_container(sub) ? make(sub, "") : values_for(name, sub, "").front());
    }
}

// The node of step `i` in `object`, or null.
Value* node_at(Value& object, const Field& f, std::size_t i) {
  Value* node = &object;
  for (std::size_t k = 0; k <= i && node; ++k) {
    const Step& s = f.steps[k];
    if (s.kind == Step::Kind::property)
      node = node->find(s.name);
    else if (s.kind == Step::Kind::map_value)
      node = node->find(kMapKey);
    else
      node = node->is_array() && node->size() > 0 ? &node->as_array()[0] : nullptr;
  }
  return node;
}

}  // namespace

std::string Field::generic() const {
  std::string out;
  for (const Step& s : steps) {
    if (s.kind == Step::Kind::property) out += (out.empty() ? "" : ".") + s.name;
    if (s.kind == Step::Kind::item) out += "[]";
    if (s.kind == Step::Kind::map_value) out += ".*";
  }
  return out;
}

std::string Field::concrete() const {
  std::string out;
  for (const Step& s : steps) {
    if (s.kind == Step::Kind::property) out += (out.empty() ? "" : ".") + s.name;
    if (s.kind == Step::Kind::item) out += "[0]";
    if (s.kind == Step::Kind::map_value) out += std::string(".") + kMapKey;
  }
  return out;
}

std::vector<std::string> Field::property_paths() const {
  std::vector<std::string> out;
  std::string path;
  for (const Step& s : steps) {
    if (s.kind == Step::Kind::property) {
      path += (path.empty() ? "" : ".") + s.name;
      out.push_back(path);
    }
    if (s.kind == Step::Kind::item) path += "[0]";
    if (s.kind == Step::Kind::map_value) path += std::string(".") + kMapKey;
  }
  return out;
}

bool Field::within(const std::string& path) const {
  const std::string c = concrete();
  if (c == path) return true;
  return c.size() > path.size() && c.compare(0, path.size(), path) == 0 &&
         (c[path.size()] == '.' || c[path.size()] == '[');
}

const std::map<std::string, Value>& spec_schemas() {
  static const auto schemas = [] {
    std::map<std::string, Value> out;
    for (const auto& file : testutil::yaml_files(testutil::source_path("deploy/prometheus-operator-crds")))
      for (auto& doc : model::parse_documents(testutil::read_text(file), file)) {
        const Value* spec = doc.value.find("spec");
        if (text(doc.value.find("kind")) != "CustomResourceDefinition" || !spec) continue;
        const Value& version = spec->find("versions")->as_array().at(0);
        const Value* schema = version.find("schema")->find("openAPIV3Schema");
        out[text(spec->find("names")->find("kind"))] = *schema->find("properties")->find("spec");
      }
    return out;
  }();
  return schemas;
}

std::vector<Field> leaf_fields(const std::string& kind) {
  const Value& spec = spec_schemas().at(kind);
  std::vector<Field> out;
  walk(kind, {Step{Step::Kind::property, "spec", &spec}}, spec, out);
  return out;
}

std::vector<Value> candidates(const Field& f) {
  std::vector<Value> out;
  for (Value& v : values_for(f.name(), f.schema(), f.generic()))
    if (pattern_allows(f.schema(), v)) out.push_back(std::move(v));
  INFO(f.kind << " " << f.generic() << ": no sample value matches the schema; add one in crd_fields.cpp");
  REQUIRE(!out.empty());
  return out;
}

// noProxy and proxyConnectHeader need a proxyUrl beside them.
void add_companions(Value& parent, const Step& s) {
  if (s.kind == Step::Kind::property && (s.name == "noProxy" || s.name == "proxyConnectHeader") &&
      !parent.find("proxyUrl"))
    parent.set("proxyUrl", "http://proxy.example:3128");
}

Value with_containers(const Value& object, const Field& f) {
  Value out = object;
  Value* node = &out;
  for (std::size_t i = 0; i + 1 < f.steps.size(); ++i) {
    const Step& s = f.steps[i];
    const Step& next = f.steps[i + 1];
    add_companions(*node, s);
    // The leaf's own parent fills in the leaf too: that is its baseline.
    const std::string on_path = next.kind == Step::Kind::property && i + 2 < f.steps.size() ? next.name : "";
    Value* child = nullptr;
    if (s.kind == Step::Kind::item) {
      if (node->size() == 0) node->push(make(*s.schema, on_path));
      child = &node->as_array()[0];
    } else {
      const std::string key = s.kind == Step::Kind::property ? s.name : kMapKey;
      child = node->find(key);
      if (!child) child = &node->set(key, make(*s.schema, on_path));
    }
    node = child;
  }
  add_companions(*node, f.steps.back());
  return out;
}

const Value* leaf(const Value& object, const Field& f) {
  return node_at(const_cast<Value&>(object), f, f.steps.size() - 1);
}

void set_leaf(Value& object, const Field& f, Value v) {
  Value* parent = node_at(object, f, f.steps.size() - 2);
  REQUIRE(parent);
  const Step& s = f.steps.back();
  if (s.kind == Step::Kind::property)
    parent->set(s.name, std::move(v));
  else if (s.kind == Step::Kind::map_value)
    parent->set(kMapKey, std::move(v));
  else if (parent->size() == 0)
    parent->push(std::move(v));
  else
    parent->as_array()[0] = std::move(v);
}

void point_at_missing(Value& object, const Field& f) {
  Value* parent = node_at(object, f, f.steps.size() - 2);
  REQUIRE(parent);
  parent->set("name", "missing");
}

}  // namespace crdfields
