#include "actors/core/convergence.hpp"

#include <set>

#include "actors/core/writer_plan.hpp"
#include "model/yaml_emit.hpp"

namespace actors::core {

namespace {

std::string str(const model::Value& v, const char* a, const char* b = nullptr) {
  const model::Value* x = v.find(a);
  if (b) x = x ? x->find(b) : nullptr;
  return x && x->is_string() ? x->as_string() : "";
}

std::string hash_annotation(const model::Value& obj) {
  const model::Value* md = obj.find("metadata");
  const model::Value* an = md ? md->find("annotations") : nullptr;
  const model::Value* v = an ? an->find(kConfigHashAnnotation) : nullptr;
  return v && v->is_string() ? v->as_string() : "";
}

}  // namespace

const std::vector<std::string>& input_kinds() {
  static const std::vector<std::string> kinds = {"Namespace",         "Secret",       "ConfigMap", "GrafanaAgent",
                                                 "MetricsInstance",   "LogsInstance", "PodLogs",   "Integration",
                                                 "ServiceMonitor",    "PodMonitor",   "Probe",     "MetricsIntegration",
                                                 "IntegrationMonitor"};
  return kinds;
}

const std::vector<std::string>& owned_kinds() {
  static const std::vector<std::string> kinds = {"Secret", "Service", "StatefulSet", "DaemonSet", "Deployment"};
  return kinds;
}

bool is_managed(const model::Value& v) {
  const model::Value* md = v.find("metadata");
  const model::Value* labels = md ? md->find("labels") : nullptr;
  const model::Value* m = labels ? labels->find(model::kManagedByLabel) : nullptr;
  return m && m->is_string() && m->as_string() == model::kManagedByValue;
}

std::string object_id(const model::Value& v) {
  return str(v, "kind") + " " + str(v, "metadata", "namespace") + "/" + str(v, "metadata", "name");
}

std::vector<std::string> compare_owned(const std::vector<model::Value>& desired,
                                       const std::vector<model::Value>& owned) {
  std::map<std::string, const model::Value*> have;
  for (const auto& obj : owned) have[object_id(obj)] = &obj;
  std::vector<std::string> out;
  std::set<std::string> wanted;
  for (const model::Value& want : desired) {
    std::string id = object_id(want);
    wanted.insert(id);
    auto it = have.find(id);
    if (it == have.end())
      out.push_back("missing " + id);
    else if (hash_annotation(*it->second) != config_hash(want))
      out.push_back("stale " + id);
  }
  for (const auto& [id, obj] : have)
    if (!wanted.count(id)) out.push_back("leftover " + id);
  return out;
}

std::vector<std::string> divergence(const std::vector<model::Value>& inputs, const std::vector<model::Value>& owned,
                                    const model::RenderOptions& options) {
  model::Inventory inv;
  for (const auto& obj : inputs) inv.add(obj);
  return compare_owned(model::render_all(inv, options).objects, owned);
}

std::map<std::string, std::string> comparable_content(const std::vector<model::Value>& owned) {
  std::map<std::string, std::string> out;
  for (const auto& o : owned) {
    const model::Value* content = o.find("data") ? o.find("data") : o.find("spec");
    out[object_id(o)] = content ? model::to_json(*content) : "";
  }
  return out;
}

}  // namespace actors::core
