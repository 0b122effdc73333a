// The status.bindings writer's state machine: when it patches (after the
// sync, as leader, for admitted kinds only, once per change), how it
// answers each error class, and that a restart writes nothing while an
// agent has not rendered yet.
#include <catch2/catch.hpp>

#include "actors/core/bindings_machine.hpp"
#include "actors_fixtures.hpp"
#include "model/object_fields.hpp"
#include "model/yaml_emit.hpp"

using namespace actors::core;
using actors_test::doc;
using actors_test::kAlpha;
using model::Value;

namespace {

const MonitorId kWeb{"ServiceMonitor", {"app1", "web"}};

const char* kAdmittingCrd = R"({"spec":{"versions":[{"name":"v1","subresources":{"status":{}},
  "schema":{"openAPIV3Schema":{"properties":{"status":{"x-kubernetes-preserve-unknown-fields":true}}}}}]}})";

CallAnswer bindings_answer(int status, std::string body = "") {
  return CallAnswer{status, k8s::classify(status), std::move(body), status >= 400 ? "failed" : ""};
}

std::vector<BindingsEffect::Type> bindings_types(const BindingsEffects& fx) {
  std::vector<BindingsEffect::Type> out;
  for (const auto& e : fx)
    if (e.type != BindingsEffect::Type::log) out.push_back(e.type);
  return out;
}

Event sm_event(const std::string& rv, const std::string& status_yaml = "{}", EventType t = EventType::added) {
  return make_event(1, 0, t,
                    doc(R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: app1, resourceVersion: ")" +
                        rv +
                        R"(", generation: 2}
status: )" + status_yaml));
}

Event ga_event(EventType t = EventType::added) {
  return make_event(1, 0, t,
                    doc("{apiVersion: monitoring.grafana.com/v1alpha1, kind: GrafanaAgent, "
                        "metadata: {name: alpha, namespace: mon}}"));
}

RootVerdicts bindings_output(bool accepted) {
  RootVerdicts out;
  out.root = kAlpha;
  out.rendered = true;
  out.bindings = {MonitorBinding{kWeb, accepted, "selected by MetricsInstance mon/mi"}};
  return out;
}

struct BindingsMachine {
  BindingsState st;
  BindingsMachine() {
    BindingsEffects start;
    st = make_bindings(BindingsSettings{.now_rfc3339 = [] { return std::string("t1"); }}, start);
    REQUIRE(start.size() == binding_kinds().size());
    CHECK(start[0].type == BindingsEffect::Type::read_crd);
  }
  void admit() {
    for (const std::string& kind : binding_kinds()) on_crd(st, kind, "v1", bindings_answer(200, kAdmittingCrd));
  }
};

using BType = BindingsEffect::Type;

}  // namespace

TEST_CASE("bindings: one patch after the sync for an admitted kind, none for its echo", "[actors][bindings]") {
  BindingsMachine m;
  CHECK(on_bindings_event(m.st, ga_event()).empty());
  CHECK(on_bindings_event(m.st, sm_event("5")).empty());
  CHECK(on_root_verdicts(m.st, bindings_output(true)).empty());  // not synced
  CHECK(bindings_types(on_bindings_synced(m.st)).empty());       // the CRD not read yet
  BindingsEffects fx = on_crd(m.st, "ServiceMonitor", "v1", bindings_answer(200, kAdmittingCrd));
  REQUIRE(bindings_types(fx) == std::vector{BType::patch});
  const BindingsEffect& patch = fx.back();
  CHECK(patch.monitor == kWeb);
  CHECK(model::string_at(patch.body, {"metadata", "resourceVersion"}) == "5");
  // Busy while the call is in flight: a new verdict waits for the answer.
  CHECK(bindings_types(on_root_verdicts(m.st, bindings_output(false))).empty());
  Value written = doc(R"(
kind: ServiceMonitor
metadata: {name: web, namespace: app1, resourceVersion: "6", generation: 2}
)");
  written.set("status", *patch.body.find("status"));
  fx = on_patch_done(m.st, kWeb, bindings_answer(200, model::to_json(written)));
  REQUIRE(bindings_types(fx) == std::vector{BType::patch});  // now the rejection
  CHECK(model::to_json(fx.back().body).find("\"status\":\"False\"") != std::string::npos);
  CHECK(bindings_stats(m.st).written == 1);
}

TEST_CASE("bindings: a refused or missing CRD means no patch of that kind", "[actors][bindings]") {
  BindingsMachine m;
  on_bindings_synced(m.st);
  on_crd(m.st, "ServiceMonitor", "v1", bindings_answer(404));
  on_bindings_event(m.st, sm_event("5"));
  CHECK(bindings_types(on_root_verdicts(m.st, bindings_output(true))).empty());
  BindingsEffects fx = on_crd(m.st, "PodMonitor", "v1", bindings_answer(503));
  CHECK(bindings_types(fx) == std::vector{BType::retry});
  CHECK(bindings_types(on_bindings_retry(m.st, fx.back().monitor)) == std::vector{BType::read_crd});
}

TEST_CASE("bindings: 409 waits for a newer version and replans from it, 5xx retries the call, 422 waits",
          "[actors][bindings]") {
  BindingsMachine m;
  m.admit();
  on_bindings_event(m.st, sm_event("5"));
  on_bindings_synced(m.st);
  REQUIRE(bindings_types(on_root_verdicts(m.st, bindings_output(true))) == std::vector{BType::patch});
  CHECK(bindings_types(on_patch_done(m.st, kWeb, bindings_answer(409))).empty());  // no GET: the watch brings it
  CHECK(bindings_stats(m.st).conflicts == 1);
  // The version the refused patch carried, delivered again (a relist), is
  // still stale; the next one is planned from.
  CHECK(bindings_types(on_bindings_event(m.st, sm_event("5", "{}", EventType::modified))).empty());
  BindingsEffects fx = on_bindings_event(m.st, sm_event("7", "{}", EventType::modified));
  REQUIRE(bindings_types(fx) == std::vector{BType::patch});
  CHECK(model::string_at(fx.back().body, {"metadata", "resourceVersion"}) == "7");
  fx = on_patch_done(m.st, kWeb, bindings_answer(503));
  REQUIRE(bindings_types(fx) == std::vector{BType::retry});
  CHECK(bindings_types(on_bindings_retry(m.st, kWeb)) == std::vector{BType::patch});
  fx = on_patch_done(m.st, kWeb, bindings_answer(422));
  CHECK(bindings_types(fx).empty());
  CHECK(bindings_stats(m.st).errors == 1);
  // The monitor's next change plans again.
  CHECK(bindings_types(on_bindings_event(m.st, sm_event("8", "{}", EventType::modified))) == std::vector{BType::patch});
}

TEST_CASE("bindings: a 409 whose newer version arrived during the call replans at once", "[actors][bindings]") {
  BindingsMachine m;
  m.admit();
  on_bindings_event(m.st, sm_event("5"));
  on_bindings_synced(m.st);
  REQUIRE(bindings_types(on_root_verdicts(m.st, bindings_output(true))) == std::vector{BType::patch});
  CHECK(bindings_types(on_bindings_event(m.st, sm_event("6", "{}", EventType::modified))).empty());  // in flight
  BindingsEffects fx = on_patch_done(m.st, kWeb, bindings_answer(409));
  REQUIRE(bindings_types(fx) == std::vector{BType::patch});
  CHECK(model::string_at(fx.back().body, {"metadata", "resourceVersion"}) == "6");
}

TEST_CASE("bindings: a restart keeps an entry while its agent has not rendered, then removes it if unselected",
          "[actors][bindings]") {
  BindingsMachine m;
  m.admit();
  const char* ours =
      R"({bindings: [{group: monitoring.grafana.com, resource: grafanaagents, namespace: mon, name: alpha,
          conditions: [{type: Accepted, status: "True", lastTransitionTime: t0}]}]})";
  on_bindings_event(m.st, ga_event());
  on_bindings_event(m.st, sm_event("5", ours));
  CHECK(bindings_types(on_bindings_synced(m.st)).empty());
  RootVerdicts none;
  none.root = kAlpha;
  none.rendered = true;
  BindingsEffects fx = on_root_verdicts(m.st, none);
  REQUIRE(bindings_types(fx) == std::vector{BType::patch});
  CHECK(*model::find_path(fx.back().body, {"status", "bindings"}) == Value::array());
}

TEST_CASE("bindings: a deleted agent's entries go, and nothing is written while not leading", "[actors][bindings]") {
  BindingsMachine m;
  m.admit();
  on_bindings_synced(m.st);
  on_bindings_leader(m.st, false);
  on_bindings_event(m.st, ga_event());
  on_bindings_event(m.st, sm_event("5"));
  CHECK(bindings_types(on_root_verdicts(m.st, bindings_output(true))).empty());
  BindingsEffects fx = on_bindings_leader(m.st, true);
  REQUIRE(bindings_types(fx) == std::vector{BType::patch});
  Value written = *sm_event("6").object;
  written.set("status", *fx.back().body.find("status"));
  CHECK(bindings_types(on_patch_done(m.st, kWeb, bindings_answer(200, model::to_json(written)))).empty());
  RootVerdicts gone;
  gone.root = kAlpha;
  gone.root_present = false;
  on_bindings_event(m.st, ga_event(EventType::deleted));
  fx = on_root_verdicts(m.st, gone);
  REQUIRE(bindings_types(fx) == std::vector{BType::patch});
  CHECK(*model::find_path(fx.back().body, {"status", "bindings"}) == Value::array());
}
