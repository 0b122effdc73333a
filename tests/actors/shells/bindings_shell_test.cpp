// The status.bindings writer's actor under CAF's deterministic test
// coordinator: it reads each monitor kind's CRD at the start, patches a
// monitor's status subresource once a root's verdict arrives after the
// sync, waits for the next version after a 409, and writes nothing while
// not leading.
#define CAF_SUITE bindings_shell
#include "actors/bindings_actor.hpp"
#include "model/object_fields.hpp"
#include "shell_fixture.hpp"

using namespace actors;

namespace {

using Lines = std::vector<std::string>;
using testutil::ScriptedTransport;

const core::MonitorId kWeb{"ServiceMonitor", {"app1", "web"}};
const std::string kCrds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/";
const std::string kWebPath = "/apis/monitoring.coreos.com/v1/namespaces/app1/servicemonitors/web";

const char* kAdmitting = R"({"spec":{"versions":[{"name":"v1","subresources":{"status":{}},
  "schema":{"openAPIV3Schema":{"properties":{"status":{"x-kubernetes-preserve-unknown-fields":true}}}}}]}})";

std::string monitor_json(const std::string& rv) {
  return R"({"apiVersion":"monitoring.coreos.com/v1","kind":"ServiceMonitor","metadata":{"name":"web",)"
         R"("namespace":"app1","generation":1,"resourceVersion":")" +
         rv + R"("}})";
}

struct fixture : shells::api_fixture {
  bindings_actor bindings;

  void start(bool leader = true) {
    api->script("GET", kCrds + "servicemonitors.monitoring.coreos.com", ScriptedTransport::ok(kAdmitting));
    BindingsConfig bc;
    bc.client = &client;
    bc.settings.leader = leader;
    bc.settings.now_rfc3339 = [] { return std::string("2024-05-01T12:00:00Z"); };
    bc.settings.backoff = k8s::Backoff{std::chrono::milliseconds(100), std::chrono::milliseconds(1000)};
    bc.log = [](const model::LogEntry&) {};
    bindings = spawn_bindings_actor(sys, bc);
    run();  // the actor starts, reads the four CRDs and takes their answers
  }
  ~fixture() override {
    if (bindings) caf::anon_send_exit(bindings, caf::exit_reason::user_shutdown);
    run();  // before the client the actor calls is destroyed
  }
  void send_event(const model::Value& obj) {
    inject((event_atom, EventPtr),
           from(self).to(bindings).with(event_atom::value, shells::event(core::EventType::added, obj)));
  }
  void feed() {
    send_event(
        shells::yaml("{apiVersion: monitoring.grafana.com/v1alpha1, kind: GrafanaAgent, "
                     "metadata: {name: alpha, namespace: mon}}"));
    send_event(model::parse_json(monitor_json("5"), "fixture"));
    inject((synced_atom), from(self).to(bindings).with(synced_atom::value));
    auto v = std::make_shared<core::RootVerdicts>();
    v->root = shells::kAlpha;
    v->rendered = true;
    v->bindings = {core::MonitorBinding{kWeb, true, "selected by MetricsInstance mon/mi"}};
    inject((verdicts_atom, RootVerdictsPtr),
           from(self).to(bindings).with(verdicts_atom::value, RootVerdictsPtr(std::move(v))));
  }
  void expect_patched() {
    expect((patched_atom, core::MonitorId, ResultPtr), from(_).to(bindings).with(patched_atom::value, kWeb, _));
  }
  BindingsStats stats() {
    BindingsStats out;
    auto h = self->request(bindings, caf::infinite, stats_atom::value);
    consume_messages();
    h.receive([&](const BindingsStats& s) { out = s; }, [](caf::error&) { CAF_FAIL("no stats"); });
    return out;
  }
};

}  // namespace

CAF_TEST_FIXTURE_SCOPE(bindings_shell_tests, fixture)

CAF_TEST(the CRDs are read at the start and an admitted monitor is patched once on its status) {
  start();
  CAF_CHECK_EQUAL(api->sent.size(), 4u);
  Lines lines = api->lines();
  CAF_CHECK_EQUAL(lines.at(3), "GET " + kCrds + "servicemonitors.monitoring.coreos.com");
  feed();
  CAF_CHECK_EQUAL(api->last_line(), "PATCH " + kWebPath + "/status");
  model::Value body = model::parse_json(api->sent.back().body, "request");
  CAF_CHECK_EQUAL(model::string_at(body, {"metadata", "resourceVersion"}), "5");
  CAF_CHECK_EQUAL(api->sent.back().content_type, "application/merge-patch+json");
  expect_patched();
  CAF_CHECK_EQUAL(stats().written, 1u);
  CAF_CHECK_EQUAL(api->sent.size(), 5u);
}

CAF_TEST(a conflict waits for the next version of the monitor and patches from it without a GET) {
  start();
  api->script("PATCH", kWebPath + "/status", ScriptedTransport::status(409, "Conflict"));
  feed();
  expect_patched();
  CAF_CHECK_EQUAL(api->last_line(), "PATCH " + kWebPath + "/status");  // nothing more until the watch speaks
  send_event(model::parse_json(monitor_json("9"), "fixture"));
  expect_patched();
  CAF_CHECK_EQUAL(api->lines(), (Lines{"GET " + kCrds + "integrationmonitors.monitoring.grafana.com",
                                       "GET " + kCrds + "podmonitors.monitoring.coreos.com",
                                       "GET " + kCrds + "probes.monitoring.coreos.com",
                                       "GET " + kCrds + "servicemonitors.monitoring.coreos.com",
                                       "PATCH " + kWebPath + "/status", "PATCH " + kWebPath + "/status"}));
  model::Value body = model::parse_json(api->sent.back().body, "request");
  CAF_CHECK_EQUAL(model::string_at(body, {"metadata", "resourceVersion"}), "9");
  CAF_CHECK_EQUAL(stats().conflicts, 1u);
}

CAF_TEST(a follower patches nothing until it leads) {
  start(false);
  feed();
  CAF_CHECK_EQUAL(api->sent.size(), 4u);
  inject((leader_atom, bool), from(self).to(bindings).with(leader_atom::value, true));
  CAF_CHECK_EQUAL(api->last_line(), "PATCH " + kWebPath + "/status");
  expect_patched();
}

CAF_TEST_FIXTURE_SCOPE_END()
