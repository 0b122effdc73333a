#include "k8s/sim/cluster.hpp"

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/builtin_schemas.hpp"
#include "k8s/sim/defaults.hpp"
#include "k8s/sim/patch.hpp"
#include "k8s/sim/selector.hpp"
#include "k8s/sim/size_limits.hpp"
#include "k8s/sim/store_meta.hpp"
#include "k8s/sim/validate.hpp"
#include "model/names.hpp"
#include "model/yaml_emit.hpp"

namespace k8s::sim {

using model::Value;

namespace {

Value gvk_extension(const ResourceType& t) {
  return Value::arr({Value::obj({{"group", t.group}, {"kind", t.kind}, {"version", t.version}})});
}

std::shared_ptr<const SchemaSet> initial_schemas(const TypeRegistry& types) {
  auto set = std::make_shared<SchemaSet>(builtin_schemas());
  for (const ResourceType& t : types.all()) {
    const Value* s = set->get(t.schema_ref);
    if (!s) continue;
    Value copy = *s;
    copy.set("x-kubernetes-group-version-kind", gvk_extension(t));
    set->add(t.schema_ref, std::move(copy));
  }
  return set;
}

std::string name_problem(const ResourceType& t, const std::string& name) {
  if (t.group.empty() && (t.kind == "Namespace" || t.kind == "Service")) return model::dns_label_problem(name);
  if (t.group == "rbac.authorization.k8s.io") {
    if (name == "." || name == "..") return "may not be '" + name + "'";
    return name.find_first_of("/%") == std::string::npos ? "" : "may not contain '/' or '%'";
  }
  return model::dns_subdomain_problem(name);
}

void check_string_map(const Value* m, const std::string& field, bool values_are_labels, std::vector<Cause>& out) {
  if (!m || !m->is_object()) return;
  for (const auto& [k, v] : m->as_object()) {
    std::string problem = model::qualified_name_problem(k);
    if (!problem.empty()) out.push_back({"FieldValueInvalid", field, "Invalid value: \"" + k + "\": " + problem});
    if (values_are_labels && v.is_string() && !model::label_value_problem(v.as_string()).empty())
      out.push_back({"FieldValueInvalid", field + "." + k,
                     "Invalid value: \"" + v.as_string() + "\": " + model::label_value_problem(v.as_string())});
  }
}

}  // namespace

Cluster::Cluster(const Clock& clock, ClusterOptions options)
    : clock_(clock), store_(clock, options.store), schemas_(initial_schemas(types_)) {
  auto ns = types_.find("", "v1", "namespaces");
  std::vector<std::string> warnings;
  for (const char* name : {"default", "kube-system", "kube-public", "kube-node-lease"})
    create(*ns, "", Value::obj({{"metadata", Value::obj({{"name", name}})}}), {}, warnings);
  // The API server's own Service, as every cluster has it.
  Value kubernetes = Value::obj(
      {{"metadata", Value::obj({{"name", "kubernetes"},
                                {"labels", Value::obj({{"component", "apiserver"}, {"provider", "kubernetes"}})}})},
       {"spec", Value::obj({{"clusterIP", "10.96.0.1"},
                            {"ports",
                             Value::arr({Value::obj(
                                 {{"name", "https"}, {"port", 443}, {"protocol", "TCP"}, {"targetPort", 6443}})})}})}});
  create(*types_.find("", "v1", "services"), "default", std::move(kubernetes), {}, warnings);
}

std::shared_ptr<const SchemaSet> Cluster::schemas() const {
  std::lock_guard lock(schemas_mutex_);
  return schemas_;
}

Value Cluster::printer_columns(const ResourceType& t) const {
  std::lock_guard lock(schemas_mutex_);
  auto it = printer_columns_.find(t.schema_ref);
  return it == printer_columns_.end() ? Value() : it->second;
}

Value Cluster::as_version(const ResourceType& t, const Value& object) {
  const Value* v = object.find("apiVersion");
  if (v && v->is_string() && v->as_string() == t.api_version()) return object;
  Value copy = object;
  copy.set("apiVersion", t.api_version());
  return copy;
}

void Cluster::check_body(const ResourceType& t, const std::string& ns, Value& object) const {
  if (!object.is_object()) throw ApiError::bad_request("Object 'Kind' is missing in '" + model::to_json(object) + "'");
  std::string api_version = field_text(object, "apiVersion"), kind = field_text(object, "kind");
  if (!api_version.empty() && api_version != t.api_version())
    throw ApiError::bad_request("the API version in the data (" + api_version +
                                ") does not match the expected API version (" + t.api_version() + ")");
  if (!kind.empty() && kind != t.kind)
    throw ApiError::bad_request("the kind in the data (" + kind + ") does not match the expected kind (" + t.kind +
                                ")");
  object.set("apiVersion", t.api_version());
  object.set("kind", t.kind);
  Value& m = meta(object);
  if (!t.namespaced) {
    m.erase("namespace");
    return;
  }
  std::string body_ns = meta_string(object, "namespace");
  if (body_ns.empty())
    m.set("namespace", ns);
  else if (body_ns != ns)
    throw ApiError::bad_request(
        "the namespace of the provided object does not match the namespace sent on the request");
}

void Cluster::check_metadata(const ResourceType& t, const Value& object) const {
  std::vector<Cause> causes;
  std::string name = meta_string(object, "name");
  if (name.empty() && meta_string(object, "generateName").empty())
    causes.push_back({"FieldValueRequired", "metadata.name", "Required value: name or generateName is required"});
  else if (!name.empty() && !name_problem(t, name).empty())
    causes.push_back(
        {"FieldValueInvalid", "metadata.name", "Invalid value: \"" + name + "\": " + name_problem(t, name)});
  const Value* m = object.find("metadata");
  check_string_map(m->find("labels"), "metadata.labels", true, causes);
  check_string_map(m->find("annotations"), "metadata.annotations", false, causes);
  check_annotation_size(*m, causes);
  check_template_annotation_size(t, object, causes);
  if (!causes.empty()) throw ApiError::invalid(t.group, t.kind, name, causes);
}

void Cluster::check_schema(const ResourceType& t, Value& object, const WriteOptions& o,
                           std::vector<std::string>& warnings) const {
  auto set = schemas();
  ValidationReport report = check(*set, set->get(t.schema_ref), object, {t.custom, t.custom});
  if (t.custom) {
    ValidationReport m =
        check(*set, set->get("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"), meta(object), {true, false});
    for (auto& f : m.unknown_fields) report.unknown_fields.push_back("metadata." + f);
    for (auto& c : m.causes) report.causes.push_back({c.reason, "metadata." + c.field, c.message});
  }
  std::string prefix = t.kind + " in version \"" + t.version + "\" cannot be handled as a " + t.kind + ": ";
  if (o.validation == FieldValidation::strict && !report.unknown_fields.empty()) {
    std::string msg = prefix + "strict decoding error: ";
    for (std::size_t i = 0; i < report.unknown_fields.size(); ++i)
      msg += (i ? ", " : "") + std::string("unknown field \"") + report.unknown_fields[i] + "\"";
    throw ApiError::bad_request(msg);
  }
  if (o.validation == FieldValidation::warn)
    for (const auto& f : report.unknown_fields) warnings.push_back("unknown field \"" + f + "\"");
  if (report.causes.empty()) return;
  if (!t.custom)
    throw ApiError::bad_request(prefix + report.causes.front().field + ": " + report.causes.front().message);
  throw ApiError::invalid(t.group, t.kind, meta_string(object, "name"), report.causes);
}

SnapshotPtr Cluster::create(const ResourceType& t, const std::string& ns, Value object, const WriteOptions& o,
                            std::vector<std::string>& warnings) {
  check_body(t, ns, object);
  check_metadata(t, object);
  check_schema(t, object, o, warnings);
  apply_defaults(t, object);
  check_data_size(t, object);
  if (t.namespaced) store_.get(*types_.find("", "v1", "namespaces"), "", ns);
  prepare_create(t, object);
  SnapshotPtr snap = store_.create(t, std::move(object), o.dry_run);
  if (!o.dry_run) after_write(t, snap);
  if (!o.dry_run) collect_if_orphaned(t, snap);
  return snap;
}

SnapshotPtr Cluster::update(const ResourceType& t, const std::string& ns, const std::string& name, Value object,
                            Subresource sub, const WriteOptions& o, std::vector<std::string>& warnings) {
  check_body(t, ns, object);
  std::string body_name = meta_string(object, "name");
  if (body_name != name)
    throw ApiError::bad_request("the name of the object (" + body_name + ") does not match the name on the URL (" +
                                name + ")");
  check_metadata(t, object);
  check_schema(t, object, o, warnings);
  apply_defaults(t, object);
  check_data_size(t, object);
  auto carry = [&](const Value& current) {
    carry_over(t, current, object);
    return std::move(object);
  };
  SnapshotPtr snap = store_.mutate(t, ns, name, carry, sub, o.dry_run);
  if (!o.dry_run) after_write(t, snap);
  return snap;
}

SnapshotPtr Cluster::patch(const ResourceType& t, const std::string& ns, const std::string& name, PatchType type,
                           const Value& patch, Subresource sub, const WriteOptions& o,
                           std::vector<std::string>& warnings) {
  if (type == PatchType::strategic && t.custom)
    throw ApiError::unsupported_media_type(
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
  auto set = schemas();
  auto apply = [&](const Value& current) {
    Value next = type == PatchType::merge  ? json_merge_patch(current, patch)
                 : type == PatchType::json ? json_patch(current, patch)
                                           : strategic_merge_patch(current, patch, *set, set->get(t.schema_ref));
    check_body(t, ns, next);
    if (meta_string(next, "name") != name)
      throw ApiError::bad_request("the name of the object (" + meta_string(next, "name") +
                                  ") does not match the name on the URL (" + name + ")");
    check_metadata(t, next);
    check_schema(t, next, o, warnings);
    apply_defaults(t, next);
    check_data_size(t, next);
    return next;
  };
  SnapshotPtr snap = store_.mutate(t, ns, name, apply, sub, o.dry_run);
  if (!o.dry_run) after_write(t, snap);
  return snap;
}

}  // namespace k8s::sim
