// The target allocator's Prometheus metrics, under upstream's names
// (opentelemetry_allocator_*), kept in a prometheus-cpp registry and
// rendered in the text exposition format for GET /metrics.
// Contract: every method is thread-safe (prometheus-cpp families lock), so
// the publisher thread can record while request threads render. Part of
// ao_allocation_server (prometheus-cpp), not of the I/O-free core.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "allocation/allocator.hpp"
#include "model/build_info.hpp"

namespace allocation {

class AllocatorMetrics {
 public:
  // `routes`: paths observe_http() will see (others work too, but lock).
  explicit AllocatorMetrics(std::initializer_list<std::string_view> routes = {});
  ~AllocatorMetrics();
  AllocatorMetrics(const AllocatorMetrics&) = delete;
  AllocatorMetrics& operator=(const AllocatorMetrics&) = delete;

  // Sets the gauges from the allocator's current state: targets per
  // collector and per job, allocatable and discovered collectors, and
  // unassigned targets. Series of collectors and jobs that are gone are
  // removed.
  void observe_allocation(const Allocator& a);
  // Targets the last allocation dropped as Prometheus would (no or an
  // invalid address, a bad interval, timeout or label value).
  void set_invalid_targets(std::size_t n);
  // A config reload that was applied (success) or rejected; the first
  // config counts as neither.
  void record_config_reload(bool success, double unix_seconds);
  // One allocation step ("SetTargets" or "SetCollectors", as upstream).
  void observe_time_to_allocate(std::string_view method, std::string_view strategy, double seconds);
  // One discovery or config event from `source`.
  void count_event(std::string_view source);
  // One HTTP request on route `path` (the route pattern, not the raw path).
  void observe_http(std::string_view path, double seconds);
  // target_allocator_build_info{version,revision} 1 (the program's name,
  // as agent_operator_build_info; upstream's allocator has no such gauge).
  // Call once, before serving; until then the family is absent.
  void set_build_info(const model::BuildInfo& info);
  // The text exposition format (version 0.0.4).
  std::string render() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace allocation
