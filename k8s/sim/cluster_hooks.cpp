// What the real API server's strategies and controllers do around writes:
// defaults on create, CRD registration, namespace and CRD cascades.
#include <set>

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/cluster.hpp"
#include "k8s/sim/crd.hpp"
#include "k8s/sim/defaults.hpp"
#include "k8s/sim/selector.hpp"
#include "k8s/sim/store_meta.hpp"

namespace k8s::sim {

using model::Value;

namespace {

bool is(const ResourceType& t, const char* group, const char* kind) {
  return t.group == group && t.kind == kind;
}

}  // namespace

bool Cluster::has_finalizers(const Value& object) {
  const Value* m = object.find("metadata");
  const Value* f = m ? m->find("finalizers") : nullptr;
  return f && f->size() > 0;
}

void Cluster::prepare_create(const ResourceType& t, Value& object) {
  if (t.status_subresource && !is(t, "", "Node")) object.erase("status");
  if (is(t, "", "Namespace")) {
    object.set("spec", Value::obj({{"finalizers", Value::arr({"kubernetes"})}}));
    object.set("status", Value::obj({{"phase", "Active"}}));
    Value& m = meta(object);
    Value* labels = m.find("labels");
    if (!labels || !labels->is_object()) labels = &m.set("labels", Value::object());
    labels->set("kubernetes.io/metadata.name", meta_string(object, "name"));
  } else if (is(t, "", "Pod")) {
    admit_pod(object);
    object.set("status", Value::obj({{"phase", "Pending"}}));
  } else if (is(t, "", "Service")) {
    Value* spec = object.find("spec");
    if (field_text(*spec, "clusterIP").empty() && field_text(*spec, "type") != "ExternalName") {
      std::lock_guard lock(ip_mutex_);
      unsigned n = next_ip_++;
      spec->set("clusterIP", "10.96." + std::to_string((n >> 8) & 0xff) + "." + std::to_string(n & 0xff));
    }
    if (!spec->find("clusterIPs") && !field_text(*spec, "clusterIP").empty())
      spec->set("clusterIPs", Value::arr({*spec->find("clusterIP")}));
    object.set("status", Value::obj({{"loadBalancer", Value::object()}}));
  }
}

void Cluster::carry_over(const ResourceType& t, const Value& current, Value& next) {
  if (!is(t, "", "Service")) return;
  const Value* old_spec = current.find("spec");
  Value* spec = next.find("spec");
  if (!old_spec || !spec || !spec->is_object()) return;
  for (const char* f : {"clusterIP", "clusterIPs"})
    if (!spec->find(f) && old_spec->find(f)) spec->set(f, *old_spec->find(f));
}

void Cluster::after_write(const ResourceType& t, const SnapshotPtr& object) {
  const Value& v = object->value;
  if (v.find("metadata")->find("deletionTimestamp") && !has_finalizers(v)) {
    after_delete(t, object);
    return;
  }
  if (is(t, "", "Namespace")) ensure_default_service_account(meta_string(v, "name"));
  if (!is(t, "apiextensions.k8s.io", "CustomResourceDefinition")) return;
  register_crd(v);
  if (field_text(v, "status.acceptedNames.kind").empty()) {
    std::string now = rfc3339(clock_.now());
    auto establish = [&](const Value& current) {
      Value next = current;
      next.set("status", crd_status(current, now));
      return next;
    };
    store_.mutate(t, "", meta_string(v, "name"), establish, Subresource::status);
  }
}

// As the service-account controller does: every namespace has "default".
void Cluster::ensure_default_service_account(const std::string& ns) {
  auto t = types_.find("", "v1", "serviceaccounts");
  try {
    store_.get(*t, ns, "default");
  } catch (const ApiError& e) {
    if (e.code() != 404) throw;
    Value sa = Value::obj({{"apiVersion", "v1"},
                           {"kind", "ServiceAccount"},
                           {"metadata", Value::obj({{"name", "default"}, {"namespace", ns}})}});
    try {
      store_.create(*t, std::move(sa));
    } catch (const ApiError& race) {
      if (race.reason() != "AlreadyExists") throw;
    }
  }
}

void Cluster::register_crd(const Value& crd) {
  std::string group = field_text(crd, "spec.group"), plural = field_text(crd, "spec.names.plural");
  auto versions = describe_crd(crd);
  std::lock_guard lock(schemas_mutex_);
  auto set = std::make_shared<SchemaSet>(*schemas_);
  for (const ResourceType& old : types_.all())
    if (old.group == group && old.plural == plural) set->erase(old.schema_ref);
  for (CrdVersion& v : versions) {
    Value schema = v.schema.is_object() ? v.schema : Value::obj({{"type", "object"}});
    Value* props = schema.find("properties");
    if (!props || !props->is_object()) props = &schema.set("properties", Value::object());
    props->set("apiVersion", Value::obj({{"type", "string"}}));
    props->set("kind", Value::obj({{"type", "string"}}));
    props->set("metadata",
               Value::obj({{"$ref", "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}}));
    schema.set("x-kubernetes-group-version-kind",
               Value::arr({Value::obj({{"group", group}, {"kind", v.type.kind}, {"version", v.type.version}})}));
    set->add(v.type.schema_ref, std::move(schema));
    printer_columns_[v.type.schema_ref] = v.printer_columns;
  }
  // Schemas first: a reader that sees the new types also sees their schemas.
  schemas_ = std::move(set);
  types_.remove(group, plural);
  for (CrdVersion& v : versions) types_.add(v.type);
}

void Cluster::unregister_crd(const Value& crd) {
  std::string group = field_text(crd, "spec.group"), plural = field_text(crd, "spec.names.plural");
  for (const ResourceType& t : types_.all())
    if (t.group == group && t.plural == plural) {
      delete_all(t, "");
      break;
    }
  std::lock_guard lock(schemas_mutex_);
  auto set = std::make_shared<SchemaSet>(*schemas_);
  for (const ResourceType& t : types_.all())
    if (t.group == group && t.plural == plural) set->erase(t.schema_ref);
  types_.remove(group, plural);
  schemas_ = std::move(set);
}

void Cluster::delete_all(const ResourceType& t, const std::string& ns) {
  for (const SnapshotPtr& item : store_.list(t, ns, {}).items) {
    try {
      remove(t, meta_string(item->value, "namespace"), meta_string(item->value, "name"), {});
    } catch (const ApiError& e) {
      if (e.code() != 404) throw;
    }
  }
}

void Cluster::after_delete(const ResourceType& t, const SnapshotPtr& object) {
  collect_dependents(object->value);
  if (is(t, "apiextensions.k8s.io", "CustomResourceDefinition")) {
    unregister_crd(object->value);
  } else if (is(t, "", "Namespace")) {
    std::set<std::string> seen;
    for (const ResourceType& inner : types_.all())
      if (inner.namespaced && seen.insert(inner.storage_key()).second)
        delete_all(inner, meta_string(object->value, "name"));
  }
}

SnapshotPtr Cluster::apply_manifest(Value object) {
  std::string api_version = field_text(object, "apiVersion"), kind = field_text(object, "kind");
  auto t = types_.find_kind(api_version, kind);
  if (!t) throw ApiError::bad_request("no matches for kind \"" + kind + "\" in version \"" + api_version + "\"");
  std::string ns = t->namespaced ? meta_string(object, "namespace") : "";
  if (t->namespaced && ns.empty()) ns = "default";
  const Value* status = object.find("status");
  Value saved_status = status ? *status : Value();
  std::vector<std::string> warnings;
  SnapshotPtr snap;
  try {
    snap = create(*t, ns, object, {}, warnings);
  } catch (const ApiError& e) {
    if (e.reason() != "AlreadyExists") throw;
    snap = update(*t, ns, meta_string(object, "name"), object, Subresource::main, {}, warnings);
  }
  if (saved_status.is_null() || !t->status_subresource) return snap;
  Value with_status = snap->value;
  with_status.set("status", saved_status);
  return update(*t, ns, meta_string(snap->value, "name"), std::move(with_status), Subresource::status, {}, warnings);
}

}  // namespace k8s::sim
