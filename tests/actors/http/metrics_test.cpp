// OperatorMetrics: names, labels and values in the rendered exposition,
// histograms, removal of an agent's series, concurrent updates, and promtool's
// verdict on the output.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "actors/http/metrics.hpp"
#include "exposition.hpp"
#include "k8s/sim/process.hpp"

using actors::OperatorMetrics;
using actors::ReconcileResult;
using testutil::parse_exposition;

namespace {

void fill(OperatorMetrics& m) {
  m.add_controller("grafanaagent");
  m.observe_reconcile("grafanaagent", ReconcileResult::success, 0.02);
  m.observe_reconcile("grafanaagent", ReconcileResult::error, 0.3);
  m.observe_reconcile("grafanaagent", ReconcileResult::requeue, 0.004);
  m.set_queue_depth("grafanaagent", 3);
  m.count_queue_add("grafanaagent");
  m.observe_queue_wait("grafanaagent", 0.5);
  m.observe_rest_request("GET", "10.0.0.1:6443", 200, 0.01);
  m.observe_rest_request("PATCH", "10.0.0.1:6443", 0, 2.5);
  m.count_journal_event(120);
  m.set_hierarchy_members("monitoring/agent", "MetricsInstance", 2);
  m.count_write("Secret", "create");
  m.set_leader(true);
}

}  // namespace

TEST_CASE("reconcile counters carry controller and result labels", "[http][metrics]") {
  OperatorMetrics m;
  m.add_controller("grafanaagent");
  auto fresh = parse_exposition(m.render());
  CHECK(fresh.value("controller_runtime_reconcile_total", {{"controller", "grafanaagent"}, {"result", "error"}}) == 0);
  CHECK(fresh.value("controller_runtime_reconcile_errors_total", {{"controller", "grafanaagent"}}) == 0);

  m.observe_reconcile("grafanaagent", ReconcileResult::success, 0.1);
  m.observe_reconcile("grafanaagent", ReconcileResult::success, 0.1);
  m.observe_reconcile("grafanaagent", ReconcileResult::error, 0.1);
  m.observe_reconcile("grafanaagent", ReconcileResult::requeue, 0.1);
  auto e = parse_exposition(m.render());
  CHECK(e.types.at("controller_runtime_reconcile_total") == "counter");
  CHECK(e.value("controller_runtime_reconcile_total", {{"controller", "grafanaagent"}, {"result", "success"}}) == 2);
  CHECK(e.value("controller_runtime_reconcile_total", {{"controller", "grafanaagent"}, {"result", "error"}}) == 1);
  CHECK(e.value("controller_runtime_reconcile_total", {{"controller", "grafanaagent"}, {"result", "requeue"}}) == 1);
  CHECK(e.value("controller_runtime_reconcile_errors_total", {{"controller", "grafanaagent"}}) == 1);
  CHECK(e.value("controller_runtime_reconcile_time_seconds_count", {{"controller", "grafanaagent"}}) == 4);
}

TEST_CASE("histograms have cumulative buckets a sum and a count", "[http][metrics]") {
  OperatorMetrics m;
  for (double s : {0.003, 0.04, 0.04, 0.7, 90.0}) m.observe_reconcile("c", ReconcileResult::success, s);
  auto e = parse_exposition(m.render());
  CHECK(e.types.at("controller_runtime_reconcile_time_seconds") == "histogram");
  auto bucket = [&](const char* le) {
    return e.value("controller_runtime_reconcile_time_seconds_bucket", {{"controller", "c"}, {"le", le}});
  };
  CHECK(bucket("0.005") == 1);
  CHECK(bucket("0.05") == 3);
  CHECK(bucket("1") == 4);
  CHECK(bucket("60") == 4);
  CHECK(bucket("+Inf") == 5);
  CHECK(e.value("controller_runtime_reconcile_time_seconds_count", {{"controller", "c"}}) == 5);
  CHECK(e.value("controller_runtime_reconcile_time_seconds_sum", {{"controller", "c"}}).value() == Approx(90.783));

  m.observe_queue_wait("q", 2e-6);
  m.observe_rest_request("GET", "h", 200, 0.003);
  auto e2 = parse_exposition(m.render());
  CHECK(e2.value("workqueue_queue_duration_seconds_bucket", {{"name", "q"}, {"le", "1e-06"}}) == 0);
  CHECK(e2.value("workqueue_queue_duration_seconds_bucket", {{"name", "q"}, {"le", "1e-05"}}) == 1);
  CHECK(e2.value("rest_client_request_duration_seconds_bucket", {{"verb", "GET"}, {"le", "0.002"}}) == 0);
  CHECK(e2.value("rest_client_request_duration_seconds_bucket", {{"verb", "GET"}, {"le", "0.004"}}) == 1);
}

TEST_CASE("work queue REST client journal write and leader metrics", "[http][metrics]") {
  OperatorMetrics m;
  fill(m);
  m.set_queue_depth("grafanaagent", 1);
  m.count_queue_add("grafanaagent");
  m.count_journal_event(30);
  m.count_write("Secret", "create");
  m.count_write("StatefulSet", "update");
  auto e = parse_exposition(m.render());
  CHECK(e.types.at("workqueue_depth") == "gauge");
  CHECK(e.value("workqueue_depth", {{"name", "grafanaagent"}}) == 1);
  CHECK(e.value("workqueue_adds_total", {{"name", "grafanaagent"}}) == 2);
  CHECK(e.value("rest_client_requests_total", {{"code", "200"}, {"method", "GET"}, {"host", "10.0.0.1:6443"}}) == 1);
  CHECK(e.value("rest_client_requests_total", {{"code", "<error>"}, {"method", "PATCH"}, {"host", "10.0.0.1:6443"}}) ==
        1);
  CHECK(e.value("agent_operator_journal_events_total") == 2);
  CHECK(e.value("agent_operator_journal_bytes_total") == 150);
  CHECK(e.value("agent_operator_writes_total", {{"kind", "Secret"}, {"action", "create"}}) == 2);
  CHECK(e.value("agent_operator_writes_total", {{"kind", "StatefulSet"}, {"action", "update"}}) == 1);
  CHECK(e.value("agent_operator_leader") == 1);
  m.set_leader(false);
  CHECK(parse_exposition(m.render()).value("agent_operator_leader") == 0);
}

TEST_CASE("the kubelet Service's listed and skipped Nodes", "[http][metrics][kubelet]") {
  OperatorMetrics m;
  m.set_kubelet_nodes(3, 1);
  auto e = parse_exposition(m.render());
  CHECK(e.value("agent_operator_kubelet_nodes", {{"state", "listed"}}) == 3);
  CHECK(e.value("agent_operator_kubelet_nodes", {{"state", "skipped"}}) == 1);
  m.set_kubelet_nodes(4, 0);
  e = parse_exposition(m.render());
  CHECK(e.value("agent_operator_kubelet_nodes", {{"state", "listed"}}) == 4);
  CHECK(e.value("agent_operator_kubelet_nodes", {{"state", "skipped"}}) == 0);
}

TEST_CASE("remove_agent drops only that agent's hierarchy series", "[http][metrics]") {
  OperatorMetrics m;
  m.set_hierarchy_members("monitoring/a", "MetricsInstance", 2);
  m.set_hierarchy_members("monitoring/a", "ServiceMonitor", 7);
  m.set_hierarchy_members("monitoring/b", "MetricsInstance", 1);
  m.set_hierarchy_members("monitoring/a", "ServiceMonitor", 5);
  auto before = parse_exposition(m.render());
  CHECK(before.count("agent_operator_hierarchy_members") == 3);
  CHECK(before.value("agent_operator_hierarchy_members", {{"agent", "monitoring/a"}, {"kind", "ServiceMonitor"}}) == 5);

  m.remove_agent("monitoring/a");
  m.remove_agent("monitoring/unknown");
  auto after = parse_exposition(m.render());
  CHECK(after.count("agent_operator_hierarchy_members") == 1);
  CHECK(after.value("agent_operator_hierarchy_members", {{"agent", "monitoring/b"}, {"kind", "MetricsInstance"}}) == 1);
  CHECK_FALSE(
      after.value("agent_operator_hierarchy_members", {{"agent", "monitoring/a"}, {"kind", "MetricsInstance"}}));

  m.set_hierarchy_members("monitoring/a", "PodMonitor", 4);
  CHECK(parse_exposition(m.render())
            .value("agent_operator_hierarchy_members", {{"agent", "monitoring/a"}, {"kind", "PodMonitor"}}) == 4);
}

TEST_CASE("label values are escaped in the exposition", "[http][metrics]") {
  OperatorMetrics m;
  m.count_write("Secret", "a \"quoted\" \\ action\nwith newline");
  auto e = parse_exposition(m.render());
  CHECK(e.value("agent_operator_writes_total",
                {{"kind", "Secret"}, {"action", "a \"quoted\" \\ action\nwith newline"}}) == 1);
}

TEST_CASE("concurrent updates from several threads are all counted", "[http][metrics]") {
  OperatorMetrics m;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&m, t] {
      std::string agent = "ns/agent-" + std::to_string(t % 2);
      for (int i = 0; i < 2000; ++i) {
        m.observe_reconcile("c", ReconcileResult::success, 0.001);
        m.count_journal_event(1);
        m.set_hierarchy_members(agent, "MetricsInstance", i);
        if (i % 100 == 0) m.remove_agent(agent);
        if (i % 500 == 0) (void)m.render();
      }
    });
  for (auto& th : threads) th.join();
  auto e = parse_exposition(m.render());
  CHECK(e.value("controller_runtime_reconcile_total", {{"controller", "c"}, {"result", "success"}}) == 8000);
  CHECK(e.value("agent_operator_journal_events_total") == 8000);
  CHECK(e.value("agent_operator_journal_bytes_total") == 8000);
  CHECK(e.count("agent_operator_hierarchy_members") == 2);
}

TEST_CASE("promtool check metrics accepts the exposition", "[http][metrics][promtool]") {
  const char* promtool = "/usr/bin/promtool";
  if (!std::filesystem::exists(promtool)) {
    WARN("promtool not installed: skipping");
    return;
  }
  OperatorMetrics m;
  fill(m);
  std::string text = m.render();
  REQUIRE(!text.empty());
  auto r = k8s::sim::run({promtool, "check", "metrics"}, text);
  INFO(text);
  INFO(r.out + r.err);
  CHECK(r.code == 0);
  CHECK(r.out.empty());
  CHECK(r.err.empty());  // lint problems go to stderr
}

TEST_CASE("a departed agent's integrations SD series are removed, others stay", "[http][metrics]") {
  OperatorMetrics m;
  m.set_integrations_sd_pods("mon/a", 3);
  m.set_integrations_sd_pods("mon/b", 2);
  m.count_integrations_sd_failure("mon/a", "timeout");
  m.count_integrations_sd_failure("mon/a", "malformed");
  m.count_integrations_sd_failure("mon/b", "timeout");
  m.forget_integrations_sd_agent("mon/a");
  m.forget_integrations_sd_agent("mon/never-seen");
  std::string text = m.render();
  CHECK(text.find("grafanaagent=\"mon/a\"") == std::string::npos);
  auto e = parse_exposition(text);
  CHECK(e.value("agent_operator_integrations_sd_pods", {{"grafanaagent", "mon/b"}}) == 2);
  CHECK(e.value("agent_operator_integrations_sd_pod_failures_total",
                {{"grafanaagent", "mon/b"}, {"reason", "timeout"}}) == 1);
}
