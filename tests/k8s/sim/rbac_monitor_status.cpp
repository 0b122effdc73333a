#include "rbac_monitor_status.hpp"

#include <string>

#include "golden_util.hpp"
#include "model/object_fields.hpp"

namespace rbac_monitor_status {

namespace {

using model::Value;

const char* const kUpstreamCrds[] = {"monitoring.coreos.com_servicemonitors.yaml",
                                     "monitoring.coreos.com_podmonitors.yaml", "monitoring.coreos.com_probes.yaml"};

// Adds `value` to the enum of status.bindings[].<field> in every version.
void admit(Value& crd, const char* field, const char* value) {
  for (Value& version : crd.find("spec")->find("versions")->as_array()) {
    const Value* items = model::find_path(version, {"schema", "openAPIV3Schema", "properties", "status", "properties",
                                                    "bindings", "items", "properties"});
    Value* e = items ? const_cast<Value*>(items)->find(field) : nullptr;
    e = e ? e->find("enum") : nullptr;
    if (e) e->push(value);
  }
}

struct Expected {
  const char *group, *plural, *ns, *name, *status;
};

// One monitor of each kind the examples' MetricsInstance selects, and the
// invalid ServiceMonitor deploy_rbac_test seeds (bad regex: rejected).
const Expected kExpected[] = {
    {"monitoring.coreos.com", "servicemonitors", "shop", "checkout", "True"},
    {"monitoring.coreos.com", "podmonitors", "monitoring", "grafana-agents", "True"},
    {"monitoring.coreos.com", "probes", "monitoring", "public-sites", "True"},
    {"monitoring.grafana.com", "integrationmonitors", "monitoring", "infra", "True"},
    {"monitoring.coreos.com", "servicemonitors", "shop", "broken", "False"},
};

// The Accepted status of grafana-agent's entry ("" when there is none).
std::string our_status(const Value& monitor) {
  const Value* bindings = model::find_path(monitor, {"status", "bindings"});
  if (!bindings || !bindings->is_array()) return "";
  for (const Value& e : bindings->as_array()) {
    if (model::string_at(e, {"group"}) != "monitoring.grafana.com" ||
        model::string_at(e, {"resource"}) != "grafanaagents" || model::string_at(e, {"namespace"}) != "monitoring" ||
        model::string_at(e, {"name"}) != "grafana-agent")
      continue;
    const Value* conds = e.find("conditions");
    if (conds && conds->is_array() && !conds->as_array().empty())
      return model::string_at(conds->as_array()[0], {"status"});
  }
  return "";
}

}  // namespace

void seed(testutil::SimRbac& s) {
  for (const char* file : kUpstreamCrds)
    for (Value& crd :
         testutil::read_manifest(testutil::source_path(std::string("deploy/prometheus-operator-crds/") + file))) {
      if (!crd.is_object()) continue;
      admit(crd, "group", "monitoring.grafana.com");
      admit(crd, "resource", "grafanaagents");
      s.apply(std::move(crd));
    }
}

bool converged(testutil::SimRbac& s) {
  for (const Expected& m : kExpected) {
    auto obj = s.get(m.group, m.plural, m.ns, m.name);
    if (!obj || our_status(*obj) != m.status) return false;
  }
  return true;
}

}  // namespace rbac_monitor_status
