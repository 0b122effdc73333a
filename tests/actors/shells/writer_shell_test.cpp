// The writer actor under CAF's deterministic test coordinator: every API
// completion is a message the test expects in order; backoffs fire only
// when the test advances the clock.
#define CAF_SUITE writer_shell
#include "actors/writer_actor.hpp"
#include "model/object_fields.hpp"
#include "shell_fixture.hpp"

using namespace actors;
using shells::kAlpha;
using shells::owned;

namespace {

using Lines = std::vector<std::string>;

const std::string kSecrets = "/api/v1/namespaces/mon/secrets";

RootOutputPtr output(std::vector<model::Value> desired) {
  auto out = std::make_shared<RootOutput>();
  out->root = kAlpha;
  out->uid = "uid-alpha";
  out->effects.desired = std::make_shared<const actors::core::Desired>(std::move(desired));
  return out;
}

model::Value secret(const std::string& name, const std::string& value) {
  return owned("Secret", name, "data: {agent.yml: " + value + "}\n");
}

model::Value statefulset(const std::string& service_name) {
  return owned("StatefulSet", "alpha",
               "spec: {serviceName: " + service_name +
                   ", selector: {matchLabels: {app: a}}, template: {metadata: {labels: {app: a}}}}\n");
}

struct fixture : shells::api_fixture {
  writer_actor writer;

  fixture() {
    WriterConfig wc;
    wc.client = &client;
    wc.write_status = false;
    wc.emit_events = false;
    wc.backoff = k8s::Backoff{std::chrono::milliseconds(100), std::chrono::milliseconds(1000)};
    writer = spawn_writer(sys, wc);
  }
  ~fixture() override {
    caf::anon_send_exit(writer, caf::exit_reason::user_shutdown);
    run();  // before the client the writer calls is destroyed
  }

  void desire(std::vector<model::Value> objects) {
    inject((desired_atom, RootOutputPtr), from(self).to(writer).with(desired_atom::value, output(std::move(objects))));
  }
  void sync() { inject((synced_atom), from(self).to(writer).with(synced_atom::value)); }
  void expect_done() {
    expect((done_atom, core::RootKey, std::uint64_t, ResultPtr),
           from(_).to(writer).with(done_atom::value, kAlpha, _, _));
  }
  // What an informer would report for the object the API now holds.
  void observe(core::EventType t, const model::Value& obj) {
    auto owners = std::make_shared<const std::set<model::Key>>(std::set<model::Key>{kAlpha});
    inject((observed_atom, EventPtr, KeySet),
           from(self).to(writer).with(observed_atom::value, shells::event(t, obj), KeySet(owners)));
  }
  model::Value last_body() const { return model::parse_json(api->sent.back().body, "request"); }
  WriterStats stats() {
    WriterStats out;
    auto h = self->request(writer, caf::infinite, stats_atom::value);
    consume_messages();
    h.receive([&](const WriterStats& s) { out = s; }, [](caf::error&) { CAF_FAIL("no stats"); });
    return out;
  }
};

}  // namespace

CAF_TEST_FIXTURE_SCOPE(writer_shell_tests, fixture)

CAF_TEST(nothing is written before the initial sync then the desired object is created) {
  desire({secret("alpha-config", "YQ==")});
  CAF_CHECK(api->sent.empty());
  sync();
  expect_done();
  CAF_CHECK_EQUAL(api->lines(), Lines{"POST " + kSecrets});
  CAF_CHECK_EQUAL(stats().writes, 1u);
}

CAF_TEST(an unchanged desired object is skipped) {
  sync();
  desire({secret("alpha-config", "YQ==")});
  expect_done();
  desire({secret("alpha-config", "YQ==")});
  CAF_CHECK_EQUAL(api->sent.size(), 1u);
  CAF_CHECK_EQUAL(stats().skipped, 1u);
}

CAF_TEST(a changed desired object is updated from the version it was planned on) {
  sync();
  desire({secret("alpha-config", "YQ==")});
  expect_done();
  desire({secret("alpha-config", "Yg==")});
  expect_done();
  CAF_CHECK_EQUAL(api->lines(), (Lines{"POST " + kSecrets, "PUT " + kSecrets + "/alpha-config"}));
  CAF_CHECK_EQUAL(model::string_at(last_body(), {"metadata", "resourceVersion"}), "101");
  CAF_CHECK_EQUAL(model::string_at(last_body(), {"data", "agent.yml"}), "Yg==");
}

CAF_TEST(drift that keeps the hash annotation is repaired) {
  sync();
  desire({secret("alpha-config", "YQ==")});
  expect_done();
  model::Value tampered = model::parse_json(api->sent.back().body, "request");
  tampered.find("metadata")->set("resourceVersion", "102");
  tampered.find("data")->set("agent.yml", "ZXZpbA==");
  observe(core::EventType::modified, tampered);
  expect_done();
  CAF_CHECK_EQUAL(api->sent.back().method, "PUT");
  CAF_CHECK_EQUAL(model::string_at(last_body(), {"data", "agent.yml"}), "YQ==");
  CAF_CHECK_EQUAL(model::string_at(last_body(), {"metadata", "resourceVersion"}), "102");
}

CAF_TEST(a conflict re - reads the object and plans again) {
  sync();
  desire({secret("alpha-config", "YQ==")});
  expect_done();
  model::Value current = model::parse_json(api->sent.back().body, "request");
  current.find("metadata")->set("resourceVersion", "150");
  api->script("PUT", "/alpha-config", testutil::ScriptedTransport::status(409, "Conflict"));
  api->script("GET", "/alpha-config", testutil::ScriptedTransport::ok(model::to_json(current)));
  desire({secret("alpha-config", "Yg==")});
  expect_done();
  expect((reread_atom, core::RootKey, core::Identity, ResultPtr),
         from(_).to(writer).with(reread_atom::value, kAlpha, _, _));
  expect_done();
  CAF_CHECK_EQUAL(api->lines(), (Lines{"POST " + kSecrets, "PUT " + kSecrets + "/alpha-config",
                                       "GET " + kSecrets + "/alpha-config", "PUT " + kSecrets + "/alpha-config"}));
  CAF_CHECK_EQUAL(model::string_at(last_body(), {"metadata", "resourceVersion"}), "150");
  CAF_CHECK_EQUAL(stats().errors, 1u);
}

CAF_TEST(a server error is retried after the backoff and not before) {
  sync();
  api->script("POST", kSecrets, testutil::ScriptedTransport::status(503, "ServiceUnavailable"));
  desire({secret("alpha-config", "YQ==")});
  expect_done();
  CAF_CHECK_EQUAL(api->sent.size(), 1u);
  CAF_CHECK_EQUAL(stats().retrying, 1u);
  advance_time(std::chrono::milliseconds(40));  // the first backoff is 100 ms with jitter, never below half
  CAF_CHECK_EQUAL(consume_messages(), 0u);
  CAF_CHECK_EQUAL(api->sent.size(), 1u);
  advance_time(std::chrono::milliseconds(2000));
  expect((retry_atom, core::RootKey), from(writer).to(writer).with(retry_atom::value, kAlpha));
  expect_done();
  CAF_CHECK_EQUAL(api->lines(), (Lines{"POST " + kSecrets, "POST " + kSecrets}));
  CAF_CHECK_EQUAL(stats().writes, 1u);
}

CAF_TEST(a terminal error is not retried) {
  sync();
  api->script("POST", kSecrets, testutil::ScriptedTransport::status(422, "Invalid"));
  desire({secret("alpha-config", "YQ==")});
  expect_done();
  advance_time(std::chrono::minutes(5));
  CAF_CHECK_EQUAL(consume_messages(), 0u);
  CAF_CHECK_EQUAL(api->sent.size(), 1u);
  CAF_CHECK_EQUAL(stats().retrying, 0u);
}

CAF_TEST(an immutable field change deletes then creates) {
  sync();
  desire({statefulset("alpha-operated")});
  expect_done();
  desire({statefulset("alpha-other")});
  expect_done();
  expect_done();
  const std::string sts = "/apis/apps/v1/namespaces/mon/statefulsets";
  CAF_CHECK_EQUAL(api->lines(), (Lines{"POST " + sts, "DELETE " + sts + "/alpha", "POST " + sts}));
}

CAF_TEST(an owned object no longer desired is pruned) {
  sync();
  desire({secret("alpha-config", "YQ=="), secret("alpha-config-1", "YQ==")});
  expect_done();
  expect_done();
  desire({secret("alpha-config", "YQ==")});
  expect_done();
  CAF_CHECK_EQUAL(api->last_line(), "DELETE " + kSecrets + "/alpha-config-1");
}

CAF_TEST(a deleted owned object is restored once its owner is confirmed) {
  sync();
  desire({secret("alpha-config", "YQ==")});
  expect_done();
  model::Value held = model::parse_json(api->sent.back().body, "request");
  api->script("GET", "/grafanaagents/alpha",
              testutil::ScriptedTransport::ok(R"({"metadata":{"name":"alpha","namespace":"mon","uid":"uid-alpha"}})"));
  observe(core::EventType::deleted, held);
  expect((owner_atom, core::RootKey, std::string, ResultPtr), from(_).to(writer).with(owner_atom::value, kAlpha, _, _));
  expect_done();
  CAF_CHECK_EQUAL(api->last_line(), "POST " + kSecrets);
}

CAF_TEST(nothing is restored when the owner is gone) {
  sync();
  desire({secret("alpha-config", "YQ==")});
  expect_done();
  observe(core::EventType::deleted, model::parse_json(api->sent.back().body, "request"));
  expect((owner_atom, core::RootKey, std::string, ResultPtr), from(_).to(writer).with(owner_atom::value, kAlpha, _, _));
  CAF_CHECK_EQUAL(api->last_line(), "GET /apis/monitoring.grafana.com/v1alpha1/namespaces/mon/grafanaagents/alpha");
  CAF_CHECK_EQUAL(stats().roots, 0u);
}

CAF_TEST(a follower writes nothing until it leads) {
  inject((leader_atom, bool), from(self).to(writer).with(leader_atom::value, false));
  sync();
  desire({secret("alpha-config", "YQ==")});
  CAF_CHECK(api->sent.empty());
  inject((leader_atom, bool), from(self).to(writer).with(leader_atom::value, true));
  expect_done();
  CAF_CHECK_EQUAL(api->lines(), Lines{"POST " + kSecrets});
}

CAF_TEST_FIXTURE_SCOPE_END()
