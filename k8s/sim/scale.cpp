// The /scale subresource of Deployments and StatefulSets.
#include "k8s/sim/api_error.hpp"
#include "k8s/sim/patch.hpp"
#include "k8s/sim/rest_util.hpp"
#include "k8s/sim/selector.hpp"
#include "k8s/sim/store_meta.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace k8s::sim {

using model::Value;

namespace {

// autoscaling/v1 Scale view of a workload.
Value scale_of(const Value& object) {
  Value m = Value::object();
  for (const char* f : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"})
    m.set_nonempty(f, meta_string(object, f));
  std::string replicas = field_text(object, "spec.replicas");
  std::string selector;
  const Value* match = object.find("spec") ? object.find("spec")->find("selector") : nullptr;
  match = match ? match->find("matchLabels") : nullptr;
  if (match && match->is_object())
    for (const auto& [k, v] : match->as_object())
      if (v.is_string()) selector += (selector.empty() ? "" : ",") + k + "=" + v.as_string();
  std::string status_replicas = field_text(object, "status.replicas");
  return Value::obj(
      {{"kind", "Scale"},
       {"apiVersion", "autoscaling/v1"},
       {"metadata", std::move(m)},
       {"spec", Value::obj({{"replicas", static_cast<std::int64_t>(replicas.empty() ? 1 : std::stoll(replicas))}})},
       {"status",
        Value::obj({{"replicas", static_cast<std::int64_t>(status_replicas.empty() ? 0 : std::stoll(status_replicas))},
                    {"selector", selector}})}});
}

}  // namespace

HttpResponse scale_request(Cluster& cluster, const HttpRequest& req, const ResourceType& t, const std::string& ns,
                           const std::string& name) {
  HttpResponse r;
  const std::string& m = req.method;
  if (m == "GET") {
    r.body = model::to_json(scale_of(cluster.store().get(t, ns, name)->value));
    return r;
  }
  if (m != "PUT" && m != "PATCH")
    throw ApiError::method_not_allowed("the server does not allow this method on the requested resource");
  Value body = m == "PUT" ? parse_body(req) : model::parse_json(req.body, "patch");
  PatchType pt = m == "PATCH" ? patch_type(req.content_type) : PatchType::merge;
  auto rescale = [&](const Value& current) {
    Value scale = scale_of(current);
    Value next = m == "PUT" ? body : pt == PatchType::json ? json_patch(scale, body) : json_merge_patch(scale, body);
    const Value* replicas = next.find("spec") ? next.find("spec")->find("replicas") : nullptr;
    if (!replicas || !replicas->is_int() || replicas->as_int() < 0)
      throw ApiError::invalid(
          "autoscaling", "Scale", name,
          {{"FieldValueInvalid", "spec.replicas", "Invalid value: must be greater than or equal to 0"}});
    Value updated = current;
    updated.find("spec")->set("replicas", *replicas);
    meta(updated).set("resourceVersion", meta_string(next, "resourceVersion"));
    return updated;
  };
  SnapshotPtr s = cluster.store().mutate(t, ns, name, rescale, Subresource::main, write_options(req).dry_run);
  r.body = model::to_json(scale_of(s->value));
  return r;
}

}  // namespace k8s::sim
