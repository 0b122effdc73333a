// What the operator tells its user, end to end against simcluster: the
// writer's log lines (created, the reason of a drift update, no drift for
// the echo of its own writes), the Events on the GrafanaAgent (failing
// resources named, spec.paused as Normal Events) and how reconciles with
// spec errors are counted on /metrics.
#include <algorithm>
#include <catch2/catch.hpp>

#include "../actors/http/exposition.hpp"
#include "../eventually.hpp"
#include "actors/http/metrics.hpp"
#include "e2e_checks.hpp"
#include "model/object_fields.hpp"
#include "model/parse.hpp"

using e2e::OperatorFixture;
using e2e::require_converged;

namespace {

std::size_t count_lines(const OperatorFixture& f, std::initializer_list<std::string_view> parts) {
  auto logs = f.log();
  return std::count_if(logs.begin(), logs.end(), [&](const std::string& l) {
    return std::all_of(parts.begin(), parts.end(), [&](std::string_view p) { return l.find(p) != l.npos; });
  });
}

void merge_patch(OperatorFixture& f, const std::string& kind, const std::string& ns, const std::string& name,
                 const std::string& json) {
  std::vector<std::string> warnings;
  f.cluster().patch(f.type(kind), ns, name, k8s::sim::PatchType::merge, model::parse_json(json),
                    k8s::sim::Subresource::main, {}, warnings);
}

std::vector<model::Value> events_with(OperatorFixture& f, const std::string& reason) {
  std::vector<model::Value> out;
  for (const auto& e : f.list("Event", "monitoring"))
    if (model::string_at(e, {"reason"}) == reason) out.push_back(e);
  return out;
}

const char* kBadRegexMonitor = R"(apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: broken
  namespace: shop
  labels: {instance: primary}
spec:
  selector:
    matchLabels: {app: broken}
  endpoints:
  - port: http
    relabelings:
    - sourceLabels: [__name__]
      regex: "(unclosed"
      action: drop
)";

}  // namespace

TEST_CASE("the writer's log lines say what happened, and no drift for the operator's own writes", "[e2e][log]") {
  OperatorFixture f;
  require_converged(f);
  for (const auto& l : f.log()) UNSCOPED_INFO("log: " << l);
  CHECK(count_lines(f, {"component=writer", "msg=created", "object=\"StatefulSet monitoring/grafana-agent\""}) == 1);
  CHECK(count_lines(f, {"component=writer", "msg=created", "reason="}) == 0);  // not "create ...: not found"
  CHECK(count_lines(f, {"component=writer", "not found"}) == 0);

  // A change of ours: the update says why, and its echo is no drift.
  merge_patch(f, "GrafanaAgent", "monitoring", "grafana-agent", R"({"spec":{"logLevel":"debug"}})");
  require_converged(f);
  CHECK(count_lines(f, {"msg=updated", "reason=\"config hash changed\""}) >= 1);
  CHECK(count_lines(f, {"drift"}) == 0);

  // Someone else's change: the field and both values.
  merge_patch(f, "StatefulSet", "monitoring", "grafana-agent", R"({"spec":{"replicas":7}})");
  require_converged(f);
  CHECK(count_lines(f, {"msg=updated", "object=\"StatefulSet monitoring/grafana-agent\"",
                        "reason=\"drift: spec.replicas changed by someone else (want 1, have 7)\""}) == 1);
  // Someone else's delete: restored, and said so.
  f.remove("Service", "monitoring", "grafana-agent-operated");
  require_converged(f);
  CHECK(count_lines(f, {"msg=created", "object=\"Service monitoring/grafana-agent-operated\"",
                        "reason=\"deleted by someone else\""}) == 1);
  for (const auto& l : f.log()) UNSCOPED_INFO("log: " << l);
  CHECK(count_lines(f, {"drift"}) == 1);
}

TEST_CASE("Events name the failing resources and spec.paused, and spec errors are no reconcile errors",
          "[e2e][events][metrics]") {
  actors::OperatorMetrics metrics;  // outlives the fixture's controller
  OperatorFixture f({.start_operator = false});
  actors::ControllerOptions co;
  co.root.debounce = std::chrono::milliseconds(20);
  co.writer.now_rfc3339 = [] { return std::string("2024-05-01T12:00:00Z"); };
  co.metrics = &metrics;
  f.start_operator(co);
  require_converged(f);
  f.apply_yaml(kBadRegexMonitor);
  require_converged(f);
  auto warnings = events_with(f, "InvalidMembers");
  REQUIRE(warnings.size() == 1);
  CHECK(model::string_at(warnings[0], {"type"}) == "Warning");
  std::string message = model::string_at(warnings[0], {"message"});
  CHECK(message.rfind("1 resource has problems: ServiceMonitor shop/broken: spec.endpoints[0].relabelings[0]", 0) == 0);

  auto m = testutil::parse_exposition(metrics.render());
  auto result = [&](const char* r) {
    return m.value("controller_runtime_reconcile_total", {{"controller", "grafanaagent"}, {"result", r}}).value_or(-1);
  };
  CHECK(result("success") >= 2);
  CHECK(result("error") == 0);  // the broken monitor is the user's to fix, reported above
  CHECK(m.value("controller_runtime_reconcile_errors_total", {{"controller", "grafanaagent"}}) == 0);

  merge_patch(f, "GrafanaAgent", "monitoring", "grafana-agent", R"({"spec":{"paused":true}})");
  REQUIRE(testutil::eventually([&] { return !events_with(f, "Paused").empty(); }));
  REQUIRE(f.wait_idle());
  auto paused = events_with(f, "Paused");
  REQUIRE(paused.size() == 1);
  CHECK(model::string_at(paused[0], {"type"}) == "Normal");
  CHECK(model::string_at(paused[0], {"involvedObject", "name"}) == "grafana-agent");
  // Other changes while paused raise no second one.
  merge_patch(f, "GrafanaAgent", "monitoring", "grafana-agent", R"({"metadata":{"labels":{"touched":"yes"}}})");
  REQUIRE(f.wait_idle());
  CHECK(events_with(f, "Paused").size() == 1);

  merge_patch(f, "GrafanaAgent", "monitoring", "grafana-agent", R"({"spec":{"paused":false}})");
  REQUIRE(testutil::eventually([&] { return !events_with(f, "Resumed").empty(); }));
  CHECK(model::string_at(events_with(f, "Resumed")[0], {"type"}) == "Normal");
  require_converged(f);
  CHECK(events_with(f, "Paused").size() == 1);
}
