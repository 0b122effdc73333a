// Per-monitor status (issue 19) end to end: the controller with
// --monitor-status against simcluster, read back with the real kubectl.
// With a ServiceMonitor CRD whose status.bindings admit our group and
// resource, an accepted monitor, a rejected one (its Secret is missing) and
// an unselected one show the expected entries, and another controller's
// entry stays through our writes. With prometheus-operator's CRDs as
// shipped (their enum admits only monitoring.coreos.com) nothing is
// written to those kinds, and the log says why, while an IntegrationMonitor
// gets its entry with our CRD as shipped. `agent-operator replay --bindings`
// on the run's journal prints the verdicts the live writer wrote.
#include <catch2/catch.hpp>

#include <array>
#include <vector>

#include "../scratch.hpp"
#include "e2e_checks.hpp"
#include "eventually.hpp"
#include "k8s/sim/process.hpp"
#include "model/object_fields.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"
#include "operator_fixture.hpp"

using namespace std::chrono_literals;
using model::Value;

namespace {

const char* kBindingObjects = R"(
apiVersion: v1
kind: Namespace
metadata: {name: mon}
---
apiVersion: v1
kind: Namespace
metadata: {name: app1}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: alpha, namespace: mon}
spec:
  metrics: {instanceSelector: {matchLabels: {agent: alpha}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: alpha-mi, namespace: mon, labels: {agent: alpha}}
spec:
  serviceMonitorSelector: {matchLabels: {team: web}}
  serviceMonitorNamespaceSelector: {}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web-ok, namespace: app1, labels: {team: web}}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: http}]
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web-bad, namespace: app1, labels: {team: web}}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: http, bearerTokenSecret: {name: missing, key: token}}]
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: db, namespace: app1, labels: {team: db}}
spec:
  selector: {matchLabels: {app: db}}
  endpoints: [{port: sql}]
)";

// prometheus-operator's entry, as its Prometheus controller writes it.
const char* kForeignBinding =
    R"({"status":{"bindings":[{"group":"monitoring.coreos.com","resource":"prometheuses","namespace":"monitoring",)"
    R"("name":"k8s","conditions":[{"type":"Accepted","status":"True","lastTransitionTime":"2024-01-01T00:00:00Z",)"
    R"("observedGeneration":1}]}]}})";

// prometheus-operator's ServiceMonitor CRD as the shipped overlay
// with-prometheus-operator-crds installs it: its component
// monitor-bindings adds our group and resource to the enums of
// status.bindings[] (kubectl's built-in kustomize renders it).
std::string admitting_sm_crd(e2e::OperatorFixture& f) {
  auto r = f.kubectl({"kustomize", e2e::source_dir() + "/deploy/overlays/with-prometheus-operator-crds"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  for (auto& doc : model::parse_documents(r.out, "kustomize"))
    if (model::string_at(doc.value, {"metadata", "name"}) == "servicemonitors.monitoring.coreos.com")
      return model::to_yaml(doc.value);
  FAIL("the overlay has no ServiceMonitor CRD");
  return "";
}

// An IntegrationMonitor and a MetricsInstance of alpha that selects it.
const char* kIntegrationObjects = R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: alpha-integrations, namespace: mon, labels: {agent: alpha}}
spec:
  integrationMonitorSelector: {matchLabels: {team: infra}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: IntegrationMonitor
metadata: {name: infra, namespace: mon, labels: {team: infra}}
spec:
  selector: {matchLabels: {monitor: infra}}
)";

// status.bindings of a monitor, as kubectl prints it.
Value bindings_of(e2e::OperatorFixture& f, const std::string& resource, const std::string& ns,
                  const std::string& name) {
  auto r = f.kubectl({"get", resource, name, "-n", ns, "-o", "yaml"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  Value obj = model::parse_documents(r.out, "kubectl").at(0).value;
  const Value* b = model::find_path(obj, {"status", "bindings"});
  return b ? *b : Value::array();
}

Value monitor_bindings(e2e::OperatorFixture& f, const std::string& name) {
  return bindings_of(f, "servicemonitor", "app1", name);
}

const Value* binding_entry(const Value& list, const std::string& group) {
  for (const Value& e : list.as_array())
    if (model::string_at(e, {"group"}) == group) return &e;
  return nullptr;
}

std::string accepted_field(const Value& e, const char* field) {
  return model::string_at(e.find("conditions")->as_array().at(0), {field});
}

// What `agent-operator replay --bindings` prints for one entry of ours.
std::string replay_line(const std::string& kind, const std::string& ns, const std::string& name, const Value& e) {
  std::string status = accepted_field(e, "status"), reason = accepted_field(e, "reason"),
              message = accepted_field(e, "message");
  return kind + " " + ns + "/" + name + ": GrafanaAgent " + model::string_at(e, {"namespace"}) + "/" +
         model::string_at(e, {"name"}) + " Accepted=" + status + (reason.empty() ? "" : " (" + reason + ")") +
         (message.empty() ? "" : ": " + message) + "\n";
}

e2e::FixtureOptions bindings_options() {
  e2e::FixtureOptions o;
  o.load_examples = false;
  o.start_operator = false;
  o.integrations_sd = false;
  o.monitor_status = true;
  return o;
}

}  // namespace

TEST_CASE("kubectl shows who uses each ServiceMonitor, rejections, and keeps other controllers' entries",
          "[e2e][bindings]") {
  e2e::OperatorFixture f(bindings_options());
  f.apply_yaml(admitting_sm_crd(f));
  f.apply_yaml(kBindingObjects);
  auto r = f.kubectl({"patch", "servicemonitor", "web-ok", "-n", "app1", "--subresource=status", "--type=merge", "-p",
                      kForeignBinding});
  INFO(r.err);
  REQUIRE(r.code == 0);
  f.start_operator();
  REQUIRE(f.wait_converged(30s));

  Value ok = monitor_bindings(f, "web-ok");
  REQUIRE(ok.size() == 2);
  CHECK(model::to_json(ok.as_array()[0]) ==
        model::to_json(
            model::parse_json(kForeignBinding).find("status")->find("bindings")->as_array()[0]));  // first, untouched
  const Value* ours = binding_entry(ok, "monitoring.grafana.com");
  REQUIRE(ours);
  CHECK(model::string_at(*ours, {"resource"}) == "grafanaagents");
  CHECK(model::string_at(*ours, {"namespace"}) == "mon");
  CHECK(model::string_at(*ours, {"name"}) == "alpha");
  CHECK(accepted_field(*ours, "type") == "Accepted");
  CHECK(accepted_field(*ours, "status") == "True");
  CHECK(accepted_field(*ours, "message") == "selected by MetricsInstance mon/alpha-mi");
  CHECK(accepted_field(*ours, "lastTransitionTime") == "2024-05-01T12:00:00Z");

  Value bad = monitor_bindings(f, "web-bad");
  REQUIRE(bad.size() == 1);
  CHECK(accepted_field(bad.as_array()[0], "status") == "False");
  CHECK(accepted_field(bad.as_array()[0], "reason") == "InvalidConfiguration");
  CHECK(accepted_field(bad.as_array()[0], "message").find("missing") != std::string::npos);

  CHECK(monitor_bindings(f, "db").size() == 0);  // not selected: no entry

  // A restart writes nothing when nothing changed.
  f.stop_operator();
  f.start_operator();
  REQUIRE(f.wait_converged(30s));
  REQUIRE(f.controller().stats().bindings);
  CHECK(f.controller().stats().bindings->patches == 0);

  // Unselected: our entry goes, prometheus-operator's stays.
  f.apply_yaml(R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web-ok, namespace: app1, labels: {team: none}}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: http}]
)");
  bool gone = testutil::eventually([&] { return monitor_bindings(f, "web-ok").size() == 1; }, 10s);
  CHECK(gone);
  Value left = monitor_bindings(f, "web-ok");
  CHECK(binding_entry(left, "monitoring.coreos.com"));
  CHECK_FALSE(binding_entry(left, "monitoring.grafana.com"));
}

TEST_CASE(
    "with the CRDs as shipped an IntegrationMonitor gets our entry and ServiceMonitors none, and the log says why",
    "[e2e][bindings]") {
  e2e::OperatorFixture f(bindings_options());
  f.apply_yaml(kBindingObjects);
  f.apply_yaml(kIntegrationObjects);
  f.start_operator();
  REQUIRE(f.wait_converged(30s));
  CHECK(monitor_bindings(f, "web-ok").size() == 0);
  bool said = false;
  for (const std::string& line : f.log())
    said = said || (line.find("not writing status.bindings of ServiceMonitor objects") != std::string::npos &&
                    line.find("group") != std::string::npos);
  CHECK(said);

  // Our IntegrationMonitor CRD has the status subresource and a bindings
  // schema that admits our group and resource.
  Value im = bindings_of(f, "integrationmonitor", "mon", "infra");
  REQUIRE(im.size() == 1);
  const Value& ours = im.as_array()[0];
  CHECK(model::string_at(ours, {"group"}) == "monitoring.grafana.com");
  CHECK(model::string_at(ours, {"resource"}) == "grafanaagents");
  CHECK(model::string_at(ours, {"namespace"}) == "mon");
  CHECK(model::string_at(ours, {"name"}) == "alpha");
  CHECK(accepted_field(ours, "type") == "Accepted");
  CHECK(accepted_field(ours, "status") == "True");
  CHECK(accepted_field(ours, "message") == "selected by MetricsInstance mon/alpha-integrations");
  REQUIRE(f.controller().stats().bindings);
  CHECK(f.controller().stats().bindings->patches == 1);  // the IntegrationMonitor's, no other
}

TEST_CASE("agent-operator replay --bindings prints the verdicts the live writer wrote", "[e2e][bindings][replay]") {
  testutil::TempDir dir("ao-bindings-replay");
  e2e::FixtureOptions o = bindings_options();
  o.journal_path = dir.file("journal.jsonl");
  e2e::OperatorFixture f(o);
  f.apply_yaml(admitting_sm_crd(f));
  f.apply_yaml(kBindingObjects);
  f.apply_yaml(kIntegrationObjects);
  f.start_operator();
  REQUIRE(f.wait_converged(30s));
  // The entries as written, one per monitor here (a single agent).
  std::string want;
  for (const auto& [resource, kind, ns, name] :
       std::vector<std::array<std::string, 4>>{{"integrationmonitor", "IntegrationMonitor", "mon", "infra"},
                                               {"servicemonitor", "ServiceMonitor", "app1", "web-bad"},
                                               {"servicemonitor", "ServiceMonitor", "app1", "web-ok"}}) {
    Value entries = bindings_of(f, resource, ns, name);
    REQUIRE(entries.size() == 1);
    want += replay_line(kind, ns, name, entries.as_array()[0]);
  }
  f.stop_operator();
  auto r = k8s::sim::run({std::string(AO_BIN_DIR) + "/agent-operator", "replay", o.journal_path, "--bindings"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out == want);
  CHECK(want.find("Accepted=False (InvalidConfiguration)") != std::string::npos);  // web-bad
}
