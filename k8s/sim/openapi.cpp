#include "k8s/sim/openapi.hpp"

#include <cstdio>
#include <set>

#include "k8s/sim/discovery.hpp"
#include "model/yaml_emit.hpp"

namespace k8s::sim {

using model::Value;

namespace {

const std::string kRef = "#/components/schemas/";

Value ref(const std::string& name) {
  return Value::obj({{"$ref", kRef + name}});
}

Value query_param(const char* name) {
  return Value::obj(
      {{"name", name}, {"in", "query"}, {"schema", Value::obj({{"type", "string"}, {"uniqueItems", true}})}});
}

Value path_param(const char* name) {
  return Value::obj({{"name", name},
                     {"in", "path"},
                     {"required", true},
                     {"schema", Value::obj({{"type", "string"}, {"uniqueItems", true}})}});
}

Value json_content(const Value& schema) {
  return Value::obj({{"application/json", Value::obj({{"schema", schema}})}});
}

Value operation(const ResourceType& t, const char* action, const std::string& id, const Value& response) {
  Value op = Value::obj({{"operationId", id},
                         {"x-kubernetes-action", action},
                         {"x-kubernetes-group-version-kind",
                          Value::obj({{"group", t.group}, {"kind", t.kind}, {"version", t.version}})}});
  op.set("responses", Value::obj({{"200", Value::obj({{"description", "OK"}, {"content", json_content(response)}})}}));
  return op;
}

Value write_params() {
  return Value::arr({query_param("dryRun"), query_param("fieldManager"), query_param("fieldValidation")});
}

Value patch_op(const ResourceType& t, const std::string& id) {
  Value op = operation(t, "patch", id, ref(t.schema_ref));
  Value params = write_params();
  params.push(query_param("force"));
  op.set("parameters", std::move(params));
  Value patch = Value::obj({{"schema", ref("io.k8s.apimachinery.pkg.apis.meta.v1.Patch")}});
  op.set("requestBody", Value::obj({{"required", true},
                                    {"content", Value::obj({{"application/json-patch+json", patch},
                                                            {"application/merge-patch+json", patch},
                                                            {"application/apply-patch+yaml", patch}})}}));
  return op;
}

Value post_op(const ResourceType& t, const std::string& id) {
  Value post = operation(t, "post", "create" + id, ref(t.schema_ref));
  post.set("parameters", write_params());
  post.set("requestBody", Value::obj({{"required", true}, {"content", json_content(ref(t.schema_ref))}}));
  return post;
}

// A review has POST only on a real server. kubectl 1.32, lacking
// /openapi/v2, learns that the server checks fields (fieldValidation) only
// from a PATCH operation of the kind, so one is listed (it answers 405)
// instead of kubectl failing `create -f` in its own validation.
void add_review_paths(Value& paths, const ResourceType& t, const std::string& path, const std::string& id) {
  Value coll = Value::obj({{"parameters", Value::array()}});
  coll.set("post", post_op(t, id));
  coll.set("patch", patch_op(t, "patch" + id));
  paths.set(path, std::move(coll));
}

void add_paths(Value& paths, const ResourceType& t) {
  std::string base = t.group.empty() ? "/api/v1" : "/apis/" + t.group + "/" + t.version;
  std::string scope = t.namespaced ? "/namespaces/{namespace}" : "";
  std::string id = t.kind + (t.namespaced ? "Namespaced" : "");
  if (t.create_only) return add_review_paths(paths, t, base + scope + "/" + t.plural, id);
  Value common = t.namespaced ? Value::arr({path_param("namespace")}) : Value::array();
  Value coll = Value::obj({{"parameters", common}});
  coll.set("get", operation(t, "list", "list" + id, ref(t.schema_ref)));
  coll.set("post", post_op(t, id));
  coll.set("delete", operation(t, "deletecollection", "deleteCollection" + id, ref(t.schema_ref)));
  paths.set(base + scope + "/" + t.plural, std::move(coll));
  Value item_params = common;
  item_params.push(path_param("name"));
  Value item = Value::obj({{"parameters", item_params}});
  item.set("get", operation(t, "get", "read" + id, ref(t.schema_ref)));
  Value put = operation(t, "put", "replace" + id, ref(t.schema_ref));
  put.set("parameters", write_params());
  put.set("requestBody", Value::obj({{"required", true}, {"content", json_content(ref(t.schema_ref))}}));
  item.set("put", std::move(put));
  item.set("patch", patch_op(t, "patch" + id));
  item.set("delete", operation(t, "delete", "delete" + id, ref(t.schema_ref)));
  if (t.status_subresource) {
    Value status = Value::obj({{"parameters", item_params}});
    status.set("get", operation(t, "get", "read" + id + "Status", ref(t.schema_ref)));
    status.set("patch", patch_op(t, "patch" + id + "Status"));
    paths.set(base + scope + "/" + t.plural + "/{name}/status", std::move(status));
  }
  paths.set(base + scope + "/" + t.plural + "/{name}", std::move(item));
}

// Adds `name` and every schema it references to `out`.
void collect(const SchemaSet& set, const std::string& name, std::set<std::string>& out) {
  if (!out.insert(name).second) return;
  const Value* s = set.get(name);
  if (!s) return;
  std::vector<const Value*> stack = {s};
  while (!stack.empty()) {
    const Value* v = stack.back();
    stack.pop_back();
    if (v->is_object()) {
      const Value* r = v->find("$ref");
      if (r && r->is_string() && r->as_string().rfind(kRef, 0) == 0)
        collect(set, r->as_string().substr(kRef.size()), out);
      for (const auto& [k, child] : v->as_object()) stack.push_back(&child);
    } else if (v->is_array()) {
      for (const Value& child : v->as_array()) stack.push_back(&child);
    }
  }
}

std::string fnv_hash(const std::string& text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llX", static_cast<unsigned long long>(h));
  return buf;
}

std::string gv_path(const std::string& group, const std::string& version) {
  return group.empty() ? "api/" + version : "apis/" + group + "/" + version;
}

}  // namespace

Value openapi_document(const std::vector<ResourceType>& types, const SchemaSet& schemas, const std::string& group,
                       const std::string& version) {
  Value paths = Value::object();
  std::set<std::string> names = {"io.k8s.apimachinery.pkg.apis.meta.v1.Patch"};
  for (const ResourceType& t : types) {
    if (t.group != group || t.version != version) continue;
    add_paths(paths, t);
    collect(schemas, t.schema_ref, names);
  }
  Value components = Value::object();
  for (const std::string& n : names) {
    const Value* s = schemas.get(n);
    components.set(n, s ? *s : Value::obj({{"type", "object"}}));
  }
  return Value::obj({{"openapi", "3.0.0"},
                     {"info", Value::obj({{"title", "Kubernetes"}, {"version", "v1.32.0"}})},
                     {"paths", std::move(paths)},
                     {"components", Value::obj({{"schemas", std::move(components)}})}});
}

const OpenApi::Cached* OpenApi::cached(const std::string& path) {
  unsigned long generation = cluster_.types_generation();
  auto& entry = cache_[path];
  if (entry.generation == generation && !entry.json.empty()) return &entry;
  auto types = cluster_.types_snapshot();
  for (const auto& [g, v] : group_versions(types)) {
    if (gv_path(g, v) != path) continue;
    entry.json = model::to_json(openapi_document(types, *cluster_.schemas(), g, v));
    entry.hash = fnv_hash(entry.json);
    entry.generation = generation;
    return &entry;
  }
  cache_.erase(path);
  return nullptr;
}

std::string OpenApi::index() {
  std::lock_guard lock(mutex_);
  Value paths = Value::object();
  for (const auto& [g, v] : group_versions(cluster_.types_snapshot())) {
    const Cached* c = cached(gv_path(g, v));
    if (c)
      paths.set(gv_path(g, v),
                Value::obj({{"serverRelativeURL", "/openapi/v3/" + gv_path(g, v) + "?hash=" + c->hash}}));
  }
  return model::to_json(Value::obj({{"paths", std::move(paths)}}));
}

std::string OpenApi::document(const std::string& path) {
  std::lock_guard lock(mutex_);
  const Cached* c = cached(path);
  return c ? c->json : "";
}

}  // namespace k8s::sim
