// The target allocator's HTTP server: /scrape_configs, /jobs,
// /jobs/{job}/targets[?collector_id=], /metrics, /livez and /readyz.
// Contract: publish() turns the allocator's current state into an immutable
// Snapshot (every body prebuilt; per-collector bodies come from a
// ResponseCache, so unchanged ones are shared, not rebuilt) and swaps it in
// through an atomic shared_ptr, so request threads never lock and never see
// a half-built state. publish() must be called from one thread at a time.
// /readyz answers 503 until the first publish(); with require_leadership it
// also answers 503 while set_leading(false) (active/standby: a Service then
// routes only to the leader). Sockets use TCP_NODELAY.
// /metrics renders metrics() (publish() updates its allocation gauges; the
// caller records allocation times and events; every request is timed).
#pragma once

#include <memory>
#include <string>

#include "allocation/allocator.hpp"
#include "allocation/metrics.hpp"
#include "allocation/responses.hpp"
#include "model/value.hpp"

namespace allocation {

struct ServerOptions {
  std::string host = "0.0.0.0";
  int port = 8080;                  // 0 picks a free port
  bool require_leadership = false;  // --leader-elect: Ready only while leading
};

class AllocationServer {
 public:
  explicit AllocationServer(ServerOptions options);
  ~AllocationServer();
  AllocationServer(const AllocationServer&) = delete;
  AllocationServer& operator=(const AllocationServer&) = delete;

  // Publishes the allocation of `a` and the scrape configs (a list).
  void publish(const Allocator& a, const model::Value& scrape_configs);
  // Binds and serves on a background thread; returns the bound port.
  // Throws std::runtime_error when the address cannot be bound.
  int start();
  // Stops serving and joins the thread (also done by the destructor).
  void stop();
  int port() const { return port_; }
  // Leadership as the elector last saw it; any thread, takes effect at once.
  void set_leading(bool leading);
  AllocatorMetrics& metrics();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  ServerOptions options_;
  int port_ = -1;
};

}  // namespace allocation
