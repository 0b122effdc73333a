// The integrations SD aggregator actor under CAF's deterministic test
// coordinator, with a held scripted transport standing in for the pods:
// Endpoints events set the pods, concurrent polls share one fan-out, the
// freshness window follows the coordinator's clock, failures reach the
// hooks, and a deleted Endpoints empties the answer.
#define CAF_SUITE sd_shell
#include "actors/sd_actor.hpp"
#include "model/log_format.hpp"
#include "shell_fixture.hpp"

using namespace actors;
using namespace std::chrono_literals;

namespace {

model::Value endpoints(const std::string& ips) {
  return shells::yaml(
      "apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: alpha-integrations\n  namespace: mon\n"
      "  labels: {operator.agent.grafana.com/name: alpha, operator.agent.grafana.com/type: integrations}\n"
      "subsets: [{addresses: " +
      ips + ", ports: [{name: http-metrics, port: 8080}]}]");
}

EventPtr endpoints_event(core::EventType t, const std::string& ips) {
  auto ev = std::make_shared<core::Event>(core::make_event(1, 0, t, endpoints(ips)));
  ev->kind = "Endpoints";
  return ev;
}

k8s::Result sd_answer(const std::string& host) {
  k8s::Result r = testutil::ScriptedTransport::ok(R"([{"targets":[")" + host +
                                                  R"(:12345"],"labels":{"job":"integrations/node_exporter"}}])");
  r.content_type = "application/json";
  return r;
}

struct fixture : shells::api_fixture {
  sd_actor sd;
  std::vector<std::string> logs, failures, pod_counts, gone;
  std::vector<double> fanouts;

  fixture() {
    api->hold = true;
    SdConfig cfg{api, 5000ms, 1000ms};
    cfg.log = [this](const model::LogEntry& e) { logs.push_back(model::log_text(e)); };
    cfg.on_failure = [this](const sd::AgentKey& a, const std::string& why) {
      failures.push_back(a.first + "/" + a.second + " " + why);
    };
    cfg.on_fanout = [this](double s) { fanouts.push_back(s); };
    cfg.on_pods = [this](const sd::AgentKey& a, std::size_t n) {
      pod_counts.push_back(a.first + "/" + a.second + " " + std::to_string(n));
    };
    cfg.on_agent_gone = [this](const sd::AgentKey& a) { gone.push_back(a.first + "/" + a.second); };
    sd = spawn_sd_actor(sys, cfg);
    consume_messages();
  }
  ~fixture() override {
    caf::anon_send_exit(sd, caf::exit_reason::user_shutdown);
    consume_messages();
  }
  void send_event(const EventPtr& ev) {
    caf::anon_send(sd, event_atom::value, ev);
    consume_messages();
  }
  // Sends a poll and runs the actor; the answer, if any, is in the handle.
  auto poll(const std::string& agent = "") {
    auto h = self->request(sd, caf::infinite, poll_atom::value, agent);
    consume_messages();
    return h;
  }
  template <class Handle>
  std::string body_of(Handle& h) {
    std::string out = "<none>";
    h.receive([&](const SdAnswerPtr& a) { out = a->body; }, [](caf::error&) { CAF_FAIL("poll failed"); });
    return out;
  }
  void answer_all(const std::function<k8s::Result(const k8s::Request&)>& f) {
    while (!api->held.empty()) api->answer_held(f(api->held.front().req));
    consume_messages();
  }
};

}  // namespace

CAF_TEST_FIXTURE_SCOPE(sd_shell_tests, fixture)

CAF_TEST(concurrent polls share one fan - out and get one merged body) {
  send_event(endpoints_event(core::EventType::added, "[{ip: 10.0.0.1}, {ip: 10.0.0.2}]"));
  auto first = poll();
  auto second = poll("mon/alpha");
  CAF_REQUIRE_EQUAL(api->sent.size(), 2u);  // one request per pod, not per poll
  CAF_CHECK_EQUAL(api->sent[0].path, "http://10.0.0.1:8080/agent/api/v1/metrics/integrations/sd");
  CAF_CHECK_EQUAL(api->sent[0].timeout, 5000ms);
  CAF_CHECK(self->mailbox().empty());  // both polls wait for the pods
  answer_all([](const k8s::Request& r) { return sd_answer(r.path.substr(7, 8)); });
  std::string a = body_of(first), b = body_of(second);
  CAF_CHECK_EQUAL(a, b);  // one agent: the filter changes nothing
  CAF_CHECK(a.find("10.0.0.1:12345") != std::string::npos);
  CAF_CHECK(a.find("10.0.0.2:12345") != std::string::npos);
  CAF_CHECK(a.find("\"__meta_agentoperator_grafanaagent_name\":\"alpha\"") != std::string::npos);
  CAF_CHECK_EQUAL(fanouts.size(), 1u);
  CAF_CHECK(logs.empty());
}

CAF_TEST(polls within the freshness window are served without asking the pods) {
  send_event(endpoints_event(core::EventType::added, "[{ip: 10.0.0.1}]"));
  auto first = poll();
  answer_all([](const k8s::Request&) { return sd_answer("n1"); });
  body_of(first);
  advance_time(900ms);
  auto cached = poll();
  CAF_CHECK_EQUAL(api->sent.size(), 1u);
  CAF_CHECK(body_of(cached).find("n1:12345") != std::string::npos);
  advance_time(200ms);  // 1.1 s after the merge: stale
  auto fresh = poll();
  CAF_CHECK_EQUAL(api->sent.size(), 2u);
  answer_all([](const k8s::Request&) { return sd_answer("n2"); });
  CAF_CHECK(body_of(fresh).find("n2:12345") != std::string::npos);
}

CAF_TEST(a failing pod is counted and logged once and never fails the poll) {
  send_event(endpoints_event(core::EventType::added, "[{ip: 10.0.0.1}, {ip: 10.0.0.2}]"));
  for (int round = 0; round < 2; ++round) {
    auto h = poll();
    answer_all([](const k8s::Request& r) {
      return r.path.find("10.0.0.2") != std::string::npos ? testutil::ScriptedTransport::status(500) : sd_answer("n1");
    });
    std::string body = body_of(h);
    CAF_CHECK(body.find("n1:12345") != std::string::npos);
    advance_time(2s);
  }
  CAF_CHECK_EQUAL(failures, (std::vector<std::string>{"mon/alpha status", "mon/alpha status"}));
  CAF_REQUIRE_EQUAL(logs.size(), 1u);  // once per change of the pod's state
  CAF_CHECK_EQUAL(logs[0],
                  "level=warn component=integrations-sd msg=\"pod answer failed\" object=\"GrafanaAgent mon/alpha\" "
                  "pod=10.0.0.2:8080 reason=status error=\"HTTP status 500\"");
}

CAF_TEST(a pod the transport never answers is timed out at the fan - out deadline) {
  send_event(endpoints_event(core::EventType::added, "[{ip: 10.0.0.1}, {ip: 10.0.0.2}]"));
  auto h = poll();
  CAF_REQUIRE_EQUAL(api->held.size(), 2u);
  api->answer_held(sd_answer("n1"));  // 10.0.0.1 answers, 10.0.0.2 never does
  consume_messages();
  CAF_CHECK(self->mailbox().empty());
  advance_time(5000ms);  // the pods' timeout: not yet the deadline
  consume_messages();
  CAF_CHECK(self->mailbox().empty());
  advance_time(actors::kSdDeadlineSlack);
  consume_messages();
  CAF_CHECK(body_of(h).find("n1:12345") != std::string::npos);
  CAF_CHECK_EQUAL(failures, (std::vector<std::string>{"mon/alpha timeout"}));
  CAF_REQUIRE_EQUAL(logs.size(), 1u);
  CAF_CHECK_EQUAL(logs[0],
                  "level=warn component=integrations-sd msg=\"pod answer failed\" object=\"GrafanaAgent mon/alpha\" "
                  "pod=10.0.0.2:8080 reason=timeout error=\"no answer by the fan-out's deadline\"");
  api->answer_held(sd_answer("late"));  // too late: not part of any fan-out now
  consume_messages();
  CAF_CHECK_EQUAL(failures.size(), 1u);
}

CAF_TEST(a deleted Endpoints leaves nothing to ask and nothing to serve) {
  send_event(endpoints_event(core::EventType::added, "[{ip: 10.0.0.1}]"));
  auto h = poll();
  answer_all([](const k8s::Request&) { return sd_answer("n1"); });
  body_of(h);
  send_event(endpoints_event(core::EventType::deleted, "[{ip: 10.0.0.1}]"));
  auto after = poll();
  CAF_CHECK_EQUAL(api->sent.size(), 1u);
  CAF_CHECK_EQUAL(body_of(after), "[]");
  auto st = self->request(sd, caf::infinite, stats_atom::value);
  consume_messages();
  st.receive([](const SdStats& s) { CAF_CHECK_EQUAL(s.pods, 0u); }, [](caf::error&) { CAF_FAIL("no stats"); });
  // The metrics hooks: a count while the Endpoints exist, then gone (the
  // operator removes the agent's series), not a count of zero.
  CAF_CHECK_EQUAL(pod_counts, std::vector<std::string>{"mon/alpha 1"});
  CAF_CHECK_EQUAL(gone, std::vector<std::string>{"mon/alpha"});
}

CAF_TEST_FIXTURE_SCOPE_END()
