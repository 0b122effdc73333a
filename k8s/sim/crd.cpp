#include "k8s/sim/crd.hpp"

#include "k8s/sim/selector.hpp"
#include "model/names.hpp"

namespace k8s::sim {

using model::Value;

namespace {

std::vector<std::string> strings_at(const Value* v) {
  std::vector<std::string> out;
  if (v && v->is_array())
    for (const Value& e : v->as_array())
      if (e.is_string()) out.push_back(e.as_string());
  return out;
}

bool flag(const Value* v) {
  return v && v->is_bool() && v->as_bool();
}

void check_versions(const Value* versions, std::vector<Cause>& out) {
  if (!versions || !versions->is_array() || versions->size() == 0) {
    out.push_back({"FieldValueRequired", "spec.versions",
                   "Required value: must have exactly one version marked as storage version"});
    return;
  }
  int storage = 0;
  for (std::size_t i = 0; i < versions->size(); ++i) {
    const Value& v = versions->as_array()[i];
    if (field_text(v, "name").empty())
      out.push_back({"FieldValueRequired", "spec.versions[" + std::to_string(i) + "].name", "Required value"});
    if (flag(v.find("storage"))) ++storage;
  }
  if (storage != 1)
    out.push_back({"FieldValueInvalid", "spec.versions",
                   "Invalid value: \"versions\": must have exactly one version marked as storage version"});
}

}  // namespace

std::vector<Cause> crd_problems(const Value& crd) {
  std::vector<Cause> out;
  std::string group = field_text(crd, "spec.group"), plural = field_text(crd, "spec.names.plural");
  std::string kind = field_text(crd, "spec.names.kind"), scope = field_text(crd, "spec.scope");
  if (group.empty())
    out.push_back({"FieldValueRequired", "spec.group", "Required value"});
  else if (group.find('.') == std::string::npos)
    out.push_back({"FieldValueInvalid", "spec.group",
                   "Invalid value: \"" + group + "\": should be a domain with at least one dot"});
  if (plural.empty())
    out.push_back({"FieldValueRequired", "spec.names.plural", "Required value"});
  else if (!model::dns_label_problem(plural).empty())
    out.push_back({"FieldValueInvalid", "spec.names.plural",
                   "Invalid value: \"" + plural + "\": " + model::dns_label_problem(plural)});
  if (kind.empty()) out.push_back({"FieldValueRequired", "spec.names.kind", "Required value"});
  if (scope != "Namespaced" && scope != "Cluster")
    out.push_back({"FieldValueNotSupported", "spec.scope",
                   "Unsupported value: \"" + scope + "\": supported values: \"Cluster\", \"Namespaced\""});
  std::string name = field_text(crd, "metadata.name");
  if (!plural.empty() && !group.empty() && name != plural + "." + group)
    out.push_back({"FieldValueInvalid", "metadata.name",
                   "Invalid value: \"" + name + "\": must be spec.names.plural+\".\"+spec.group"});
  const Value* spec = crd.find("spec");
  check_versions(spec ? spec->find("versions") : nullptr, out);
  return out;
}

std::string crd_component_name(const std::string& group, const std::string& version, const std::string& kind) {
  std::string reversed;
  std::size_t end = group.size();
  while (end != std::string::npos && end > 0) {
    std::size_t dot = group.rfind('.', end - 1);
    std::size_t start = dot == std::string::npos ? 0 : dot + 1;
    reversed += (reversed.empty() ? "" : ".") + group.substr(start, end - start);
    end = dot;
  }
  return reversed + "." + version + "." + kind;
}

std::vector<CrdVersion> describe_crd(const Value& crd) {
  const Value& spec = *crd.find("spec");
  const Value* names = spec.find("names");
  std::vector<CrdVersion> out;
  for (const Value& v : spec.find("versions")->as_array()) {
    if (v.find("served") && !flag(v.find("served"))) continue;
    CrdVersion cv;
    ResourceType& t = cv.type;
    t.group = field_text(spec, "group");
    t.version = field_text(v, "name");
    t.kind = field_text(*names, "kind");
    t.plural = field_text(*names, "plural");
    t.singular = field_text(*names, "singular");
    if (t.singular.empty()) t.singular = t.plural;
    t.namespaced = field_text(spec, "scope") == "Namespaced";
    t.short_names = strings_at(names->find("shortNames"));
    t.categories = strings_at(names->find("categories"));
    const Value* sub = v.find("subresources");
    t.status_subresource = sub && sub->find("status");
    t.tracks_generation = true;
    t.custom = true;
    t.schema_ref = crd_component_name(t.group, t.version, t.kind);
    const Value* schema = v.find("schema");
    if (schema && schema->find("openAPIV3Schema")) cv.schema = *schema->find("openAPIV3Schema");
    if (const Value* cols = v.find("additionalPrinterColumns")) cv.printer_columns = *cols;
    out.push_back(std::move(cv));
  }
  return out;
}

Value crd_status(const Value& crd, const std::string& now) {
  const Value& spec = *crd.find("spec");
  Value stored = Value::array();
  for (const Value& v : spec.find("versions")->as_array())
    if (flag(v.find("storage"))) stored.push(field_text(v, "name"));
  auto condition = [&](const char* type, const char* reason, const char* message) {
    return Value::obj(
        {{"type", type}, {"status", "True"}, {"lastTransitionTime", now}, {"reason", reason}, {"message", message}});
  };
  Value conditions =
      Value::arr({condition("NamesAccepted", "NoConflicts", "no conflicts found"),
                  condition("Established", "InitialNamesAccepted", "the initial names have been accepted")});
  return Value::obj({{"conditions", std::move(conditions)},
                     {"acceptedNames", *spec.find("names")},
                     {"storedVersions", std::move(stored)}});
}

}  // namespace k8s::sim
