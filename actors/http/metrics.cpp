#include "actors/http/metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <map>
#include <mutex>
#include <vector>

namespace actors {

namespace {

using prometheus::Counter;
using prometheus::Family;
using prometheus::Gauge;
using prometheus::Histogram;

Histogram::BucketBoundaries exponential(double start, double factor, int count) {
  Histogram::BucketBoundaries out;
  for (double b = start; count-- > 0; b *= factor) out.push_back(b);
  return out;
}

// Recent controller-runtime reconcile buckets: fine below one second, coarse
// up to a minute, where slow API servers put reconciles.
Histogram::BucketBoundaries reconcile_buckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5,
          1.75,  2.0,  2.5,   3.0,  3.5, 4.0,  4.5, 5,    6,   7,    8,   9,    10,  15,  20,  25,  30,  40,  50,   60};
}

std::string code_label(int code) {
  return code == 0 ? "<error>" : std::to_string(code);
}

}  // namespace

const char* to_string(ReconcileResult r) {
  switch (r) {
    case ReconcileResult::success:
      return "success";
    case ReconcileResult::error:
      return "error";
    case ReconcileResult::requeue:
      return "requeue";
  }
  return "unknown";
}

struct OperatorMetrics::Impl {
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();

  Family<Counter>& counter(const std::string& name, const std::string& help) {
    return prometheus::BuildCounter().Name(name).Help(help).Register(*registry);
  }
  Family<Gauge>& gauge(const std::string& name, const std::string& help) {
    return prometheus::BuildGauge().Name(name).Help(help).Register(*registry);
  }
  Family<Histogram>& histogram(const std::string& name, const std::string& help) {
    return prometheus::BuildHistogram().Name(name).Help(help).Register(*registry);
  }

  Family<Counter>& reconcile_total =
      counter("controller_runtime_reconcile_total", "Total number of reconciliations per controller");
  Family<Counter>& reconcile_errors =
      counter("controller_runtime_reconcile_errors_total", "Total number of reconciliation errors per controller");
  Family<Histogram>& reconcile_time =
      histogram("controller_runtime_reconcile_time_seconds", "Length of time per reconciliation per controller");
  Family<Gauge>& queue_depth = gauge("workqueue_depth", "Current depth of workqueue");
  Family<Histogram>& queue_duration = histogram(
      "workqueue_queue_duration_seconds", "How long in seconds an item stays in workqueue before being requested");
  Family<Counter>& queue_adds = counter("workqueue_adds_total", "Total number of adds handled by workqueue");
  Family<Counter>& rest_requests = counter("rest_client_requests_total",
                                           "Number of HTTP requests to the Kubernetes API, partitioned by status code, "
                                           "method and host");
  Family<Histogram>& rest_duration =
      histogram("rest_client_request_duration_seconds", "Request latency in seconds to the Kubernetes API by verb");
  Counter& journal_events = counter("agent_operator_journal_events_total", "Events appended to the journal").Add({});
  Counter& journal_bytes =
      counter("agent_operator_journal_bytes_total", "Bytes appended to the journal, newlines included").Add({});
  Family<Gauge>& hierarchy_members =
      gauge("agent_operator_hierarchy_members", "Resources in a GrafanaAgent's hierarchy by kind");
  Family<Counter>& writes = counter("agent_operator_writes_total", "Writes of owned objects by kind and action");
  Family<Counter>& sd_failures =
      counter("agent_operator_integrations_sd_pod_failures_total",
              "Integrations pod SD requests that failed, by GrafanaAgent and reason (transport, timeout, status, "
              "content_type, malformed, too_large)");
  Family<Gauge>& sd_pods =
      gauge("agent_operator_integrations_sd_pods", "Ready integrations pods the SD aggregator asks, by GrafanaAgent");
  Histogram& sd_fanout =
      histogram("agent_operator_integrations_sd_fanout_seconds",
                "How long one fan-out over every integrations pod took, until its last answer")
          .Add({}, Histogram::BucketBoundaries{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30});
  Family<Gauge>& kubelet_nodes =
      gauge("agent_operator_kubelet_nodes",
            "Nodes in the kubelet Service's Endpoints (state=listed) and left out for want of an address "
            "(state=skipped), as of the leader's last plan");
  Gauge& leader =
      gauge("agent_operator_leader", "1 while this replica holds the leader lease and reconciles, else 0").Add({});

  // Guards agent_series: the hierarchy gauges each agent owns.
  std::mutex mu;
  std::map<std::string, std::map<std::string, Gauge*>> agent_series;
};

OperatorMetrics::OperatorMetrics() : impl_(std::make_unique<Impl>()) {}
OperatorMetrics::~OperatorMetrics() = default;

void OperatorMetrics::add_controller(const std::string& controller) {
  for (auto r : {ReconcileResult::success, ReconcileResult::error, ReconcileResult::requeue})
    impl_->reconcile_total.Add({{"controller", controller}, {"result", to_string(r)}});
  impl_->reconcile_errors.Add({{"controller", controller}});
}

void OperatorMetrics::observe_reconcile(const std::string& controller, ReconcileResult result, double seconds) {
  impl_->reconcile_total.Add({{"controller", controller}, {"result", to_string(result)}}).Increment();
  if (result == ReconcileResult::error) impl_->reconcile_errors.Add({{"controller", controller}}).Increment();
  static const Histogram::BucketBoundaries buckets = reconcile_buckets();
  impl_->reconcile_time.Add({{"controller", controller}}, buckets).Observe(seconds);
}

void OperatorMetrics::set_queue_depth(const std::string& queue, double depth) {
  impl_->queue_depth.Add({{"name", queue}}).Set(depth);
}

void OperatorMetrics::count_queue_add(const std::string& queue) {
  impl_->queue_adds.Add({{"name", queue}}).Increment();
}

void OperatorMetrics::observe_queue_wait(const std::string& queue, double seconds) {
  // client-go's workqueue buckets: 10ns to 10s by powers of ten, written out
  // because repeated multiplication would render as 1.0000000000000001e-05.
  static const Histogram::BucketBoundaries buckets = {1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10};
  impl_->queue_duration.Add({{"name", queue}}, buckets).Observe(seconds);
}

void OperatorMetrics::observe_rest_request(const std::string& method, const std::string& host, int code,
                                           double seconds) {
  impl_->rest_requests.Add({{"code", code_label(code)}, {"method", method}, {"host", host}}).Increment();
  // client-go's buckets: 1ms doubling to 512ms (exact: each step scales by 2).
  static const Histogram::BucketBoundaries buckets = exponential(0.001, 2, 10);
  impl_->rest_duration.Add({{"verb", method}}, buckets).Observe(seconds);
}

void OperatorMetrics::count_journal_event(std::size_t bytes) {
  impl_->journal_events.Increment();
  impl_->journal_bytes.Increment(static_cast<double>(bytes));
}

void OperatorMetrics::set_hierarchy_members(const std::string& agent, const std::string& kind, double count) {
  std::lock_guard lock(impl_->mu);
  Gauge*& g = impl_->agent_series[agent][kind];
  if (!g) g = &impl_->hierarchy_members.Add({{"agent", agent}, {"kind", kind}});
  g->Set(count);
}

void OperatorMetrics::remove_agent(const std::string& agent) {
  std::lock_guard lock(impl_->mu);
  auto it = impl_->agent_series.find(agent);
  if (it == impl_->agent_series.end()) return;
  for (auto& [kind, gauge] : it->second) impl_->hierarchy_members.Remove(gauge);
  impl_->agent_series.erase(it);
}

void OperatorMetrics::count_write(const std::string& kind, const std::string& action) {
  impl_->writes.Add({{"kind", kind}, {"action", action}}).Increment();
}

void OperatorMetrics::count_integrations_sd_failure(const std::string& agent, const std::string& reason) {
  impl_->sd_failures.Add({{"grafanaagent", agent}, {"reason", reason}}).Increment();
}

void OperatorMetrics::set_integrations_sd_pods(const std::string& agent, double pods) {
  impl_->sd_pods.Add({{"grafanaagent", agent}}).Set(pods);
}

void OperatorMetrics::forget_integrations_sd_agent(const std::string& agent) {
  prometheus::Labels labels{{"grafanaagent", agent}};
  if (impl_->sd_pods.Has(labels)) impl_->sd_pods.Remove(&impl_->sd_pods.Add(labels));
  for (const char* reason : {"transport", "timeout", "status", "content_type", "malformed", "too_large"}) {
    prometheus::Labels with{{"grafanaagent", agent}, {"reason", reason}};
    if (impl_->sd_failures.Has(with)) impl_->sd_failures.Remove(&impl_->sd_failures.Add(with));
  }
}

void OperatorMetrics::observe_integrations_sd_fanout(double seconds) {
  impl_->sd_fanout.Observe(seconds);
}

void OperatorMetrics::set_kubelet_nodes(double listed, double skipped) {
  impl_->kubelet_nodes.Add({{"state", "listed"}}).Set(listed);
  impl_->kubelet_nodes.Add({{"state", "skipped"}}).Set(skipped);
}

void OperatorMetrics::set_leader(bool leader) {
  impl_->leader.Set(leader ? 1 : 0);
}

void OperatorMetrics::set_build_info(const model::BuildInfo& info) {
  impl_
      ->gauge(model::build_info_metric_name("agent-operator"),
              "A metric with a constant '1' value labeled by version and revision from which agent-operator was "
              "built.")
      .Add({{"version", info.version}, {"revision", info.revision}})
      .Set(1);
}

std::string OperatorMetrics::render() const {
  return prometheus::TextSerializer{}.Serialize(impl_->registry->Collect());
}

}  // namespace actors
