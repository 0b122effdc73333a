#include <catch2/catch.hpp>

#include "actors/core/list_failure.hpp"

using namespace actors::core;

// A 404 from a custom resource's list means its CRD is missing, not that
// the API server is unreachable; the line says which CRD and where to get it.
TEST_CASE("an informer's failed list names the likely cause", "[actors][log]") {
  ListedResource monitors{"monitoring.coreos.com", "servicemonitors"};
  ListedResource agents{"monitoring.grafana.com", "grafanaagents"};
  ListedResource secrets{"", "secrets"};

  model::LogEntry missing = list_failure_entry("ServiceMonitor", monitors, 404, "the server could not find it");
  CHECK(missing.msg == "CRD not installed; retrying");
  CHECK(missing.level == model::LogLevel::warn);
  CHECK(missing.value("crd") == "servicemonitors.monitoring.coreos.com");
  CHECK(missing.value("hint").find("deploy/prometheus-operator-crds") != std::string::npos);
  CHECK(list_failure_cause(agents, 404) ==
        "the CRD grafanaagents.monitoring.grafana.com is not installed: apply deploy/crds (deploy/README.md)");

  model::LogEntry unreachable = list_failure_entry("Secret", secrets, 0, "Couldn't connect to server");
  CHECK(unreachable.msg == "list or watch failed; retrying");
  CHECK(unreachable.value("cause") == "the API server is unreachable");
  CHECK(unreachable.value("error") == "Couldn't connect to server");
  CHECK(list_failure_cause(secrets, 404) == "the API server does not serve secrets");
  CHECK(list_failure_cause(agents, 403).rfind("RBAC does not allow listing and watching grafanaagents.", 0) == 0);
  CHECK(list_failure_cause(secrets, 401) == "the API server rejected the credentials");
  model::LogEntry other = list_failure_entry("Secret", secrets, 500, "boom");
  CHECK(other.value("cause").empty());
  for (const auto& f : other.fields) CHECK(f.key != "cause");
}
