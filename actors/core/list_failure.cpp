#include "actors/core/list_failure.hpp"

namespace actors::core {

namespace {

// The groups whose kinds come from CRDs the operator ships or expects.
bool custom_group(std::string_view group) {
  return group == "monitoring.grafana.com" || group == "monitoring.coreos.com";
}

std::string crd_name(const ListedResource& r) {
  return std::string(r.plural) + "." + std::string(r.group);
}

std::string where_to_get(std::string_view group) {
  if (group == "monitoring.coreos.com")
    return "apply deploy/prometheus-operator-crds where prometheus-operator is absent (deploy/README.md)";
  return "apply deploy/crds (deploy/README.md)";
}

}  // namespace

std::string list_failure_cause(const ListedResource& r, int status) {
  std::string what = r.group.empty() ? std::string(r.plural) : crd_name(r);
  switch (status) {
    case 0:
      return "the API server is unreachable";
    case 401:
      return "the API server rejected the credentials";
    case 403:
      return "RBAC does not allow listing and watching " + what + " (see deploy/operator)";
    case 404:
      if (custom_group(r.group)) return "the CRD " + what + " is not installed: " + where_to_get(r.group);
      return "the API server does not serve " + what;
    default:
      return "";
  }
}

model::LogEntry list_failure_entry(const std::string& kind, const ListedResource& r, int status,
                                   const std::string& error) {
  std::string cause = list_failure_cause(r, status);
  if (status == 404 && custom_group(r.group))
    return model::log_warn("informer", "CRD not installed; retrying")
        .with("kind", kind)
        .with("crd", crd_name(r))
        .with("status", status)
        .with("hint", where_to_get(r.group));
  model::LogEntry e = model::log_warn("informer", "list or watch failed; retrying")
                          .with("kind", kind)
                          .with("status", status)
                          .with("error", error);
  if (!cause.empty()) e.with("cause", cause);
  return e;
}

}  // namespace actors::core
