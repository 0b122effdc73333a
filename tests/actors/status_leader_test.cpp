#include <catch2/catch.hpp>

#include "actors/core/leader.hpp"
#include "actors/core/status.hpp"
#include "model/parse.hpp"

using namespace actors::core;
using model::Value;

namespace {

const Value* cond(const Value& status, const std::string& type) {
  const Value* c = find_condition(status, type);
  REQUIRE(c);
  return c;
}

std::string field(const Value* v, const char* name) {
  return v->find(name)->as_string();
}

}  // namespace

TEST_CASE("status reports Reconciled True with counts when all is well", "[actors][status]") {
  StatusInput in;
  in.generation = 3;
  in.counts.metrics_instances = 2;
  in.counts.service_monitors = 5;
  Value st = agent_status(in, Value(), "2024-05-01T12:00:00Z");
  CHECK(st.find("observedGeneration")->as_int() == 3);
  CHECK(field(cond(st, "Reconciled"), "status") == "True");
  CHECK(field(cond(st, "Ready"), "status") == "True");
  CHECK(st.find("counts")->find("serviceMonitors")->as_int() == 5);
  CHECK(st.find("problems") == nullptr);
}

TEST_CASE("status names member problems and the failed write", "[actors][status]") {
  StatusInput in;
  in.problems.push_back({"ServiceMonitor", "shop", "checkout", "spec.endpoints[0].relabelings[0].regex", "bad"});
  Value st = agent_status(in, Value(), "t1");
  CHECK(field(cond(st, "Reconciled"), "reason") == "InvalidMembers");
  const Value& p = st.find("problems")->as_array().at(0);
  CHECK(p.find("name")->as_string() == "checkout");
  CHECK(p.find("message")->as_string() == "spec.endpoints[0].relabelings[0].regex: bad");
  in.write_error = "update StatefulSet monitoring/x: HTTP 422";
  CHECK(field(cond(agent_status(in, Value(), "t1"), "Reconciled"), "reason") == "WriteFailed");
  in.root_valid = false;
  CHECK(field(cond(agent_status(in, Value(), "t1"), "Reconciled"), "reason") == "InvalidSpec");
}

TEST_CASE("status keeps lastTransitionTime while a condition holds", "[actors][status]") {
  StatusInput in;
  Value first = agent_status(in, Value(), "t1");
  Value again = agent_status(in, first, "t2");
  CHECK(again == first);  // byte-identical: the writer skips it
  in.problems.push_back({"Probe", "a", "b", "", "x"});
  Value changed = agent_status(in, first, "t3");
  CHECK(field(cond(changed, "Reconciled"), "lastTransitionTime") == "t3");
  CHECK(field(cond(changed, "Ready"), "lastTransitionTime") == "t1");
}

TEST_CASE("status caps the problem list", "[actors][status]") {
  StatusInput in;
  for (int i = 0; i < 80; ++i) in.problems.push_back({"Probe", "ns", "p" + std::to_string(i), "", "x"});
  Value st = agent_status(in, Value(), "t");
  CHECK(st.find("problems")->size() == kMaxStatusProblems + 1);
  CHECK(st.find("problems")->as_array().back().find("reason")->as_string() == "Truncated");
}

TEST_CASE("warnings keep Reconciled True and come after errors", "[actors][status]") {
  StatusInput in;
  in.problems.push_back({"PodMonitor", "a", "p", "spec.scrapeProtocols", "not supported; ignored", true});
  in.problems.push_back({"ServiceMonitor", "b", "s", "spec.scrapeClass", "not supported; ignored", true});
  Value st = agent_status(in, Value(), "t");
  const Value* rec = cond(st, "Reconciled");
  CHECK(field(rec, "status") == "True");
  CHECK(field(rec, "message") ==
        "all desired objects are applied; 2 resources have fields that are ignored, see status.problems");
  const Value& problems = *st.find("problems");
  REQUIRE(problems.size() == 2);
  CHECK(field(&problems.as_array()[0], "reason") == "FieldIgnored");
  CHECK(field(&problems.as_array()[0], "message") == "spec.scrapeProtocols: not supported; ignored");
  // An error among them: Reconciled False, counted alone, listed first.
  in.problems.push_back({"ServiceMonitor", "c", "s", "spec.endpoints[0].port", "bad"});
  st = agent_status(in, Value(), "t");
  rec = cond(st, "Reconciled");
  CHECK(field(rec, "status") == "False");
  CHECK(field(rec, "reason") == "InvalidMembers");
  CHECK(field(rec, "message") == "1 resource has a problem; see status.problems");
  CHECK(field(&st.find("problems")->as_array()[0], "reason") == "Skipped");
  CHECK(field(&st.find("problems")->as_array()[0], "name") == "s");
  CHECK(field(&st.find("problems")->as_array()[0], "namespace") == "c");
  CHECK(field(&st.find("problems")->as_array()[2], "reason") == "FieldIgnored");
}

TEST_CASE("workloads without ready replicas make Ready False", "[actors][status]") {
  std::vector<Value> observed = {
      model::parse_json(
          R"({"kind":"StatefulSet","metadata":{"name":"a"},"spec":{"replicas":2},"status":{"readyReplicas":1}})"),
      model::parse_json(
          R"({"kind":"DaemonSet","metadata":{"name":"d"},"status":{"desiredNumberScheduled":3,"numberReady":3}})"),
      model::parse_json(R"({"kind":"Secret","metadata":{"name":"s"}})")};
  std::vector<const Value*> pointers;
  for (const Value& o : observed) pointers.push_back(&o);
  CHECK(workloads_not_ready(pointers) == "StatefulSet a 1/2 ready");
  StatusInput in;
  in.not_ready = workloads_not_ready(pointers);
  CHECK(field(cond(agent_status(in, Value(), "t"), "Ready"), "status") == "False");
}

TEST_CASE("a candidate creates a missing lease and takes an expired one", "[actors][leader]") {
  LeaderConfig me{"b", "default", "lock", std::chrono::milliseconds(15000)};
  LeaseObservation seen;
  auto d = decide_lease(me, std::nullopt, seen, 1000, "now");
  CHECK(d.step == LeaseStep::create);
  CHECK(d.lease.find("spec")->find("holderIdentity")->as_string() == "b");
  Value held = model::parse_json(
      R"({"metadata":{"name":"lock","resourceVersion":"7"},"spec":{"holderIdentity":"a","renewTime":"r1","leaseDurationSeconds":15,"leaseTransitions":2}})");
  CHECK(decide_lease(me, held, seen, 1000, "now").step == LeaseStep::wait);
  CHECK(decide_lease(me, held, seen, 15999, "now").step == LeaseStep::wait);
  auto take = decide_lease(me, held, seen, 16000, "now");
  CHECK(take.step == LeaseStep::acquire);
  CHECK(take.lease.find("spec")->find("leaseTransitions")->as_int() == 3);
  CHECK(take.lease.find("metadata")->find("resourceVersion")->as_string() == "7");
}

TEST_CASE("a renewed lease is never taken and the holder renews", "[actors][leader]") {
  LeaderConfig me{"b", "default", "lock", std::chrono::milliseconds(15000)};
  LeaseObservation seen;
  Value held = model::parse_json(R"({"spec":{"holderIdentity":"a","renewTime":"r1","leaseDurationSeconds":15}})");
  decide_lease(me, held, seen, 1000, "now");
  Value renewed = model::parse_json(R"({"spec":{"holderIdentity":"a","renewTime":"r2","leaseDurationSeconds":15}})");
  CHECK(decide_lease(me, renewed, seen, 14000, "now").step == LeaseStep::wait);
  CHECK(decide_lease(me, renewed, seen, 28000, "now").step == LeaseStep::wait);  // seen changed at 14000
  Value mine = model::parse_json(R"({"spec":{"holderIdentity":"b","renewTime":"r3","acquireTime":"a0"}})");
  auto d = decide_lease(me, mine, seen, 30000, "now");
  CHECK(d.step == LeaseStep::renew);
  CHECK(d.lease.find("spec")->find("acquireTime")->as_string() == "a0");
  CHECK(d.lease.find("spec")->find("renewTime")->as_string() == "now");
}

TEST_CASE("lease times are written as metav1 MicroTime in UTC", "[actors][leader]") {
  CHECK(micro_time(0) == "1970-01-01T00:00:00.000000Z");
  CHECK(micro_time(1714564800123) == "2024-05-01T12:00:00.123000Z");
  CHECK(micro_time(1709251199999) == "2024-02-29T23:59:59.999000Z");
}

TEST_CASE("the failure Event's message lists failing resources and fits in 1 KiB", "[actors][status][events]") {
  StatusInput in;
  in.root_valid = false;
  in.problems.push_back({"GrafanaAgent", "mon", "alpha", "spec.metrics.shards", "must be positive"});
  CHECK(failure_event_message(in, "InvalidSpec", "ignored") ==
        "invalid spec: GrafanaAgent mon/alpha: spec.metrics.shards: must be positive");
  // WriteFailed names its write already; only cut to size.
  CHECK(failure_event_message(in, "WriteFailed", "create StatefulSet mon/alpha: HTTP 422") ==
        "create StatefulSet mon/alpha: HTTP 422");
  std::string long_error(3000, 'x');
  CHECK(failure_event_message(in, "WriteFailed", long_error).size() == kMaxEventMessage);
  // One problem longer than the limit, in multi-byte UTF-8: cut between
  // characters, and the count of the rest kept.
  StatusInput members;
  std::string wide;
  for (int i = 0; i < 600; ++i) wide += "\xc3\xa9";  // é
  members.problems.push_back({"Probe", "a", "p1", "spec.x", wide});
  members.problems.push_back({"Probe", "a", "p2", "spec.x", "short"});
  std::string m = failure_event_message(members, "InvalidMembers", "2 resources have problems; see status.problems");
  CHECK(m.size() <= kMaxEventMessage);
  CHECK(m.rfind("2 resources have problems: Probe a/p1: spec.x: ", 0) == 0);
  CHECK(m.find("...; and 1 more in status.problems") != std::string::npos);
  std::string before_dots = m.substr(0, m.find("..."));
  CHECK((static_cast<unsigned char>(before_dots.back()) & 0xC0) != 0xC0);  // no sequence left open
  CHECK(before_dots.back() == '\xa9');
}
