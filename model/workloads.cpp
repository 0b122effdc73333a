// TEMP(helper-workloads): replaced by the full workload renderer.
#include "model/workloads.hpp"
#include "model/codec.hpp"
namespace model {
static Value meta(const GrafanaAgent& a, const std::string& name) {
  return Value::obj({{"name", name}, {"namespace", a.meta.ns}});
}
Value make_config_secret(const GrafanaAgent& a, const std::string& name, const std::string& yml, const RenderOptions&) {
  return Value::obj({{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", meta(a, name)},
                     {"data", Value::obj({{"agent.yml", base64_encode(yml)}})}});
}
Value make_assets_secret(const GrafanaAgent& a, const std::map<std::string, std::string>&, const RenderOptions&) {
  return Value::obj({{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", meta(a, a.meta.name + "-secrets")}});
}
Value make_governing_service(const GrafanaAgent& a, const RenderOptions&) {
  return Value::obj({{"apiVersion", "v1"}, {"kind", "Service"}, {"metadata", meta(a, a.meta.name + "-operated")}});
}
std::vector<Value> make_metrics_statefulsets(const GrafanaAgent& a, const RenderOptions&) {
  return {Value::obj({{"apiVersion", "apps/v1"}, {"kind", "StatefulSet"}, {"metadata", meta(a, a.meta.name)}})};
}
Value make_logs_daemonset(const GrafanaAgent& a, const RenderOptions&) {
  return Value::obj({{"apiVersion", "apps/v1"}, {"kind", "DaemonSet"}, {"metadata", meta(a, a.meta.name + "-logs")}});
}
Value make_integrations_workload(const GrafanaAgent& a, const std::vector<const Integration*>&, bool ds, const RenderOptions&) {
  return Value::obj({{"apiVersion", "apps/v1"}, {"kind", ds ? "DaemonSet" : "Deployment"},
                     {"metadata", meta(a, a.meta.name + (ds ? "-integrations-ds" : "-integrations-deploy"))}});
}
}
