// The kubelet Service actor under CAF's deterministic test coordinator:
// journaled Node events in, API calls out, each answer a message the test
// expects in order; the backoff fires only when the test advances the clock.
#define CAF_SUITE kubelet_shell
#include "actors/kubelet_actor.hpp"
#include "model/log_format.hpp"
#include "model/object_fields.hpp"
#include "shell_fixture.hpp"

using namespace actors;

namespace {

using Lines = std::vector<std::string>;

const core::RootKey kKubelet{"kube-system", "kubelet"};
const std::string kServices = "/api/v1/namespaces/kube-system/services";
const std::string kEndpoints = "/api/v1/namespaces/kube-system/endpoints";
const std::string kSlices = "/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices";
const std::string kEvents = "/api/v1/namespaces/kube-system/events";

model::Value node(const std::string& name, const std::string& ip) {
  std::string addresses = ip.empty() ? "[]" : "[{type: InternalIP, address: " + ip + "}]";
  return shells::yaml("apiVersion: v1\nkind: Node\nmetadata: {name: " + name + ", uid: u-" + name +
                      "}\nstatus: {addresses: " + addresses + "}\n");
}

struct fixture : shells::api_fixture {
  kubelet_actor kubelet;
  std::vector<std::string> logs;

  fixture() {
    KubeletConfig kc;
    kc.client = &client;
    kc.settings.service.ns = "kube-system";
    kc.settings.service.name = "kubelet";
    kc.settings.backoff = k8s::Backoff{std::chrono::milliseconds(100), std::chrono::milliseconds(1000)};
    kc.log = [this](const model::LogEntry& e) { logs.push_back(model::log_text(e)); };
    kubelet = spawn_kubelet_actor(sys, kc);
  }
  ~fixture() override {
    caf::anon_send_exit(kubelet, caf::exit_reason::user_shutdown);
    run();  // before the client the actor calls is destroyed
  }

  void add(const model::Value& n, core::EventType t = core::EventType::added) {
    inject((event_atom, EventPtr), from(self).to(kubelet).with(event_atom::value, shells::event(t, n)));
  }
  void sync() { inject((synced_atom), from(self).to(kubelet).with(synced_atom::value)); }
  void expect_done() {
    expect((done_atom, core::RootKey, std::uint64_t, ResultPtr),
           from(_).to(kubelet).with(done_atom::value, kKubelet, _, _));
  }
  KubeletStats stats() {
    KubeletStats out;
    auto h = self->request(kubelet, caf::infinite, stats_atom::value);
    consume_messages();
    h.receive([&](const KubeletStats& s) { out = s; }, [](caf::error&) { CAF_FAIL("no stats"); });
    return out;
  }
};

}  // namespace

CAF_TEST_FIXTURE_SCOPE(kubelet_shell_tests, fixture)

CAF_TEST(nothing is written before the sync then the three kinds are created one after another) {
  add(node("a", "10.0.0.1"));
  CAF_CHECK(api->sent.empty());
  sync();
  CAF_CHECK_EQUAL(api->lines(), Lines{"POST " + kServices});  // one call at a time: the next after its answer
  expect_done();
  expect_done();
  expect_done();
  CAF_CHECK_EQUAL(api->lines(), (Lines{"POST " + kServices, "POST " + kEndpoints, "POST " + kSlices}));
  CAF_CHECK_EQUAL(stats().writes, 3u);
  CAF_CHECK(!stats().in_flight);
}

CAF_TEST(a server error is retried after the backoff and not before) {
  add(node("a", "10.0.0.1"));
  api->script("POST", kEndpoints, testutil::ScriptedTransport::status(503, "ServiceUnavailable"));
  sync();
  expect_done();
  expect_done();
  CAF_CHECK(stats().retrying);
  advance_time(std::chrono::milliseconds(40));  // the first backoff is 100 ms with jitter, never below half
  CAF_CHECK_EQUAL(consume_messages(), 0u);
  advance_time(std::chrono::milliseconds(2000));
  expect((retry_atom, core::RootKey), from(kubelet).to(kubelet).with(retry_atom::value, kKubelet));
  expect_done();
  expect_done();
  CAF_CHECK_EQUAL(api->lines(),
                  (Lines{"POST " + kServices, "POST " + kEndpoints, "POST " + kEndpoints, "POST " + kSlices}));
}

CAF_TEST(a create that conflicts re - reads the object and updates it) {
  add(node("a", "10.0.0.1"));
  api->script("POST", kEndpoints, testutil::ScriptedTransport::status(409, "AlreadyExists"));
  api->script("GET", kEndpoints + "/kubelet",
              testutil::ScriptedTransport::ok(
                  R"({"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"kubelet","namespace":"kube-system",)"
                  R"("resourceVersion":"7"},"subsets":[]})"));
  sync();
  expect_done();
  expect_done();
  expect((reread_atom, core::RootKey, core::Identity, ResultPtr),
         from(_).to(kubelet).with(reread_atom::value, kKubelet, _, _));
  expect_done();
  expect_done();
  CAF_CHECK_EQUAL(api->lines(), (Lines{"POST " + kServices, "POST " + kEndpoints, "GET " + kEndpoints + "/kubelet",
                                       "PUT " + kEndpoints + "/kubelet", "POST " + kSlices}));
  model::Value put = model::parse_json(api->sent.at(3).body, "request");
  CAF_CHECK_EQUAL(model::string_at(put, {"metadata", "resourceVersion"}), "7");
}

CAF_TEST(a follower writes nothing until it leads) {
  inject((leader_atom, bool), from(self).to(kubelet).with(leader_atom::value, false));
  add(node("a", "10.0.0.1"));
  sync();
  CAF_CHECK(api->sent.empty());
  inject((leader_atom, bool), from(self).to(kubelet).with(leader_atom::value, true));
  expect_done();
  expect_done();
  expect_done();
  CAF_CHECK_EQUAL(api->sent.size(), 3u);
}

CAF_TEST(a Node without an address gets a Warning Event and is logged) {
  add(node("a", "10.0.0.1"));
  add(node("b", ""));
  sync();
  CAF_CHECK_EQUAL(api->sent.size(), 2u);  // the Event, then the first write
  CAF_CHECK_EQUAL(api->sent.at(0).method + " " + api->sent.at(0).path, "POST " + kEvents);
  model::Value ev = model::parse_json(api->sent.at(0).body, "request");
  CAF_CHECK_EQUAL(model::string_at(ev, {"involvedObject", "name"}), "b");
  CAF_CHECK_EQUAL(model::string_at(ev, {"reason"}), "NodeAddressUnknown");
  CAF_CHECK_EQUAL(logs.at(0),
                  "level=warn component=kubelet-service msg=\"skipping a Node without a usable address\" "
                  "object=\"Node b\" field=status.addresses problem=\"no InternalIP or ExternalIP address; the "
                  "Node is left out of the kubelet Service\"");
  expect_done();
  expect_done();
  expect_done();
  CAF_CHECK_EQUAL(stats().skipped, 1u);
}

CAF_TEST_FIXTURE_SCOPE_END()
