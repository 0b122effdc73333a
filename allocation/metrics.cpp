// AllocatorMetrics: prometheus-cpp families under upstream's metric names.
#include "allocation/metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <mutex>
#include <unordered_map>

namespace allocation {

namespace {

// Go client's default buckets, which upstream's histograms use.
const prometheus::Histogram::BucketBoundaries kDefaultBuckets = {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10};

// Gauges keyed by one label value; series whose key disappears are removed
// so a departed collector or job stops being exported.
class GaugeSet {
 public:
  explicit GaugeSet(prometheus::Family<prometheus::Gauge>& family) : family_(family) {}

  // Sets every (key, value) of `values` and removes the rest.
  void replace(const std::unordered_map<std::string, double>& values, const std::string& label,
               const prometheus::Labels& extra) {
    for (auto it = gauges_.begin(); it != gauges_.end();) {
      if (values.count(it->first)) {
        ++it;
        continue;
      }
      family_.Remove(it->second);
      it = gauges_.erase(it);
    }
    for (const auto& [key, value] : values) {
      auto& g = gauges_[key];
      if (!g) {
        prometheus::Labels labels = extra;
        labels[label] = key;
        g = &family_.Add(labels);
      }
      g->Set(value);
    }
  }

 private:
  prometheus::Family<prometheus::Gauge>& family_;
  std::unordered_map<std::string, prometheus::Gauge*> gauges_;
};

}  // namespace

struct AllocatorMetrics::Impl {
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  prometheus::Family<prometheus::Gauge>& per_collector = prometheus::BuildGauge()
                                                             .Name("opentelemetry_allocator_targets_per_collector")
                                                             .Help("The number of targets for each collector.")
                                                             .Register(*registry);
  prometheus::Family<prometheus::Gauge>& allocatable =
      prometheus::BuildGauge()
          .Name("opentelemetry_allocator_collectors_allocatable")
          .Help("Number of collectors the allocator is able to allocate to.")
          .Register(*registry);
  prometheus::Family<prometheus::Histogram>& time_to_allocate = prometheus::BuildHistogram()
                                                                    .Name("opentelemetry_allocator_time_to_allocate")
                                                                    .Help("The time it takes to allocate")
                                                                    .Register(*registry);
  prometheus::Family<prometheus::Gauge>& unassigned = prometheus::BuildGauge()
                                                          .Name("opentelemetry_allocator_targets_unassigned")
                                                          .Help("Number of targets that could not be assigned.")
                                                          .Register(*registry);
  prometheus::Family<prometheus::Gauge>& per_job = prometheus::BuildGauge()
                                                       .Name("opentelemetry_allocator_targets")
                                                       .Help("Number of targets discovered.")
                                                       .Register(*registry);
  prometheus::Family<prometheus::Gauge>& invalid =
      prometheus::BuildGauge()
          .Name("opentelemetry_allocator_targets_invalid")
          .Help("Targets the last allocation dropped because Prometheus would refuse them (no valid address).")
          .Register(*registry);
  // Ours, after Prometheus's prometheus_config_last_reload_* pair.
  prometheus::Family<prometheus::Counter>& reloads =
      prometheus::BuildCounter()
          .Name("opentelemetry_allocator_config_reloads_total")
          .Help("Config file reloads, by result (success, failure: the previous config kept serving).")
          .Register(*registry);
  prometheus::Family<prometheus::Gauge>& last_reload =
      prometheus::BuildGauge()
          .Name("opentelemetry_allocator_config_last_reload_successful")
          .Help("Whether the last config reload was applied (1) or rejected (0); 1 before any reload.")
          .Register(*registry);
  prometheus::Family<prometheus::Gauge>& last_success =
      prometheus::BuildGauge()
          .Name("opentelemetry_allocator_config_last_reload_success_timestamp_seconds")
          .Help("When the config in use was applied (Unix seconds); 0 before any reload.")
          .Register(*registry);
  prometheus::Family<prometheus::Gauge>& discovered = prometheus::BuildGauge()
                                                          .Name("opentelemetry_allocator_collectors_discovered")
                                                          .Help("Number of collectors discovered.")
                                                          .Register(*registry);
  prometheus::Family<prometheus::Counter>& events = prometheus::BuildCounter()
                                                        .Name("opentelemetry_allocator_events")
                                                        .Help("Number of events in the channel.")
                                                        .Register(*registry);
  prometheus::Family<prometheus::Histogram>& http_duration = prometheus::BuildHistogram()
                                                                 .Name("opentelemetry_allocator_http_duration_seconds")
                                                                 .Help("Duration of received HTTP requests.")
                                                                 .Register(*registry);
  // Fixed routes are registered up front so a request needs no lock.
  std::unordered_map<std::string_view, prometheus::Histogram*> routes;
  prometheus::Gauge& unassigned_gauge = unassigned.Add({});
  prometheus::Gauge& discovered_gauge = discovered.Add({});
  prometheus::Gauge& invalid_gauge = invalid.Add({});
  prometheus::Counter& reload_success = reloads.Add({{"result", "success"}});
  prometheus::Counter& reload_failure = reloads.Add({{"result", "failure"}});
  prometheus::Gauge& last_reload_gauge = last_reload.Add({});
  prometheus::Gauge& last_success_gauge = last_success.Add({});
  std::mutex observe_mutex;  // observe_allocation's bookkeeping below
  GaugeSet collector_gauges{per_collector};
  GaugeSet job_gauges{per_job};
  GaugeSet allocatable_gauges{allocatable};
};

AllocatorMetrics::AllocatorMetrics(std::initializer_list<std::string_view> routes) : impl_(std::make_unique<Impl>()) {
  impl_->last_reload_gauge.Set(1);
  for (auto path : routes)
    impl_->routes[path] = &impl_->http_duration.Add({{"path", std::string(path)}}, kDefaultBuckets);
}
AllocatorMetrics::~AllocatorMetrics() = default;

void AllocatorMetrics::observe_allocation(const Allocator& a) {
  const std::string strategy(a.strategy_name());
  std::unordered_map<std::string, double> loads, jobs;
  std::size_t eligible = 0;
  for (std::uint32_t c = 0; c < a.collectors().size(); ++c) {
    if (!a.eligible(c)) continue;
    ++eligible;
    loads[a.collectors()[c].name] = static_cast<double>(a.load(c));
  }
  for (Name job : a.jobs()) jobs[std::string(job.text())] = static_cast<double>(a.job_size(job));
  std::lock_guard lock(impl_->observe_mutex);
  impl_->collector_gauges.replace(loads, "collector_name", {{"strategy", strategy}});
  impl_->job_gauges.replace(jobs, "job_name", {});
  impl_->allocatable_gauges.replace({{strategy, static_cast<double>(eligible)}}, "strategy", {});
  impl_->unassigned_gauge.Set(static_cast<double>(a.unassigned()));
  impl_->discovered_gauge.Set(static_cast<double>(a.collectors().size()));
}

void AllocatorMetrics::set_invalid_targets(std::size_t n) {
  impl_->invalid_gauge.Set(static_cast<double>(n));
}

void AllocatorMetrics::record_config_reload(bool success, double unix_seconds) {
  (success ? impl_->reload_success : impl_->reload_failure).Increment();
  impl_->last_reload_gauge.Set(success ? 1 : 0);
  if (success) impl_->last_success_gauge.Set(unix_seconds);
}

void AllocatorMetrics::observe_time_to_allocate(std::string_view method, std::string_view strategy, double seconds) {
  impl_->time_to_allocate.Add({{"method", std::string(method)}, {"strategy", std::string(strategy)}}, kDefaultBuckets)
      .Observe(seconds);
}

void AllocatorMetrics::count_event(std::string_view source) {
  impl_->events.Add({{"source", std::string(source)}}).Increment();
}

void AllocatorMetrics::observe_http(std::string_view path, double seconds) {
  if (auto it = impl_->routes.find(path); it != impl_->routes.end()) return it->second->Observe(seconds);
  impl_->http_duration.Add({{"path", std::string(path)}}, kDefaultBuckets).Observe(seconds);
}

void AllocatorMetrics::set_build_info(const model::BuildInfo& info) {
  prometheus::BuildGauge()
      .Name(model::build_info_metric_name("target-allocator"))
      .Help(
          "A metric with a constant '1' value labeled by version and revision from which target-allocator was "
          "built.")
      .Register(*impl_->registry)
      .Add({{"version", info.version}, {"revision", info.revision}})
      .Set(1);
}

std::string AllocatorMetrics::render() const {
  return prometheus::TextSerializer().Serialize(impl_->registry->Collect());
}

}  // namespace allocation
