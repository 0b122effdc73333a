// The convergence check of OperatorFixture: render_all over the cluster's
// current contents versus what the cluster holds.
#include <set>
#include <tuple>

#include "actors/core/writer_plan.hpp"
#include "operator_fixture.hpp"

namespace e2e {

namespace {

const std::vector<std::string> kInputKinds = {
    "Namespace",   "Secret",         "ConfigMap",  "GrafanaAgent", "MetricsInstance",    "LogsInstance",      "PodLogs",
    "Integration", "ServiceMonitor", "PodMonitor", "Probe",        "MetricsIntegration", "IntegrationMonitor"};
const std::vector<std::string> kOwnedKinds = {"Secret", "Service", "StatefulSet", "DaemonSet", "Deployment"};

std::string str(const model::Value& v, const char* a, const char* b = nullptr) {
  const model::Value* x = v.find(a);
  if (b) x = x ? x->find(b) : nullptr;
  return x && x->is_string() ? x->as_string() : "";
}

std::string id(const model::Value& v) {
  return str(v, "kind") + " " + str(v, "metadata", "namespace") + "/" + str(v, "metadata", "name");
}

bool managed(const model::Value& v) {
  const model::Value* md = v.find("metadata");
  const model::Value* labels = md ? md->find("labels") : nullptr;
  const model::Value* m = labels ? labels->find(model::kManagedByLabel) : nullptr;
  return m && m->is_string() && m->as_string() == model::kManagedByValue;
}

}  // namespace

std::vector<model::Value> OperatorFixture::expected() {
  model::Inventory inv;
  for (const auto& kind : kInputKinds)
    for (auto& obj : list(kind)) inv.add(std::move(obj));
  return model::render_all(inv, model::RenderOptions{}).objects;
}

std::vector<model::Value> OperatorFixture::owned() {
  std::vector<model::Value> out;
  for (const auto& kind : kOwnedKinds)
    for (auto& obj : list(kind))
      if (managed(obj)) out.push_back(std::move(obj));
  return out;
}

std::vector<std::string> OperatorFixture::divergence() {
  std::vector<std::string> out;
  std::set<std::string> wanted;
  for (const model::Value& want : expected()) {
    wanted.insert(id(want));
    auto have = get(str(want, "kind"), str(want, "metadata", "namespace"), str(want, "metadata", "name"));
    if (!have) {
      out.push_back("missing " + id(want));
      continue;
    }
    if (annotation(*have, actors::core::kConfigHashAnnotation) != actors::core::config_hash(want))
      out.push_back("stale " + id(want));
  }
  for (const model::Value& obj : owned())
    if (!wanted.count(id(obj))) out.push_back("leftover " + id(obj));
  return out;
}

}  // namespace e2e
