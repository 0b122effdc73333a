// Fault injection for simcluster's HTTP layer: random 5xx (500/503) and 429
// (with Retry-After) answers, added latency, dropped watch streams and
// forced compaction, so clients can be tested against a misbehaving server.
// Contract: randomness comes from a generator seeded at construction, so a
// given seed and request sequence inject the same faults every run. Faults
// apply only to API paths (/api, /apis); /version, /openapi, health and the
// /sim admin paths are never touched. All members are thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <string>

#include "k8s/sim/api.hpp"
#include "k8s/sim/store.hpp"
#include "model/value.hpp"

namespace k8s::sim {

struct FaultConfig {
  double error_5xx_rate = 0;    // share of API requests answered 500 or 503
  double error_429_rate = 0;    // share answered 429 TooManyRequests
  int retry_after_seconds = 1;  // Retry-After sent with 429 (and 503)
  int latency_ms = 0;           // fixed delay before every API request
  double drop_watch_rate = 0;   // chance a watch stream ends after an event

  bool operator==(const FaultConfig&) const = default;
};

model::Value fault_config_to_json(const FaultConfig& config);
// Throws ApiError 400 on a malformed body or out-of-range value; absent
// fields keep their defaults.
FaultConfig fault_config_from_json(const std::string& body);

class Faults {
 public:
  explicit Faults(FaultConfig config = {}, std::uint64_t seed = 1);

  FaultConfig config() const;
  void set_config(const FaultConfig& config);
  // True for paths faults apply to.
  static bool applies_to(const std::string& path);
  // Sleeps for the configured latency, then returns the injected error
  // response, if any. Does nothing for paths applies_to() rejects.
  std::optional<HttpResponse> before(const HttpRequest& request);
  // Whether a watch stream should end after sending an event.
  bool drop_watch_now();

 private:
  double roll();

  mutable std::mutex mutex_;
  FaultConfig config_;
  std::mt19937_64 rng_;
};

// Serves /sim/faults: GET shows the config, POST/PUT replaces it;
// POST /sim/faults/drop-watches closes every watch; POST
// /sim/faults/compact drops the watch history.
HttpResponse fault_admin(Faults& faults, Store& store, const HttpRequest& request);
bool is_fault_admin_path(const std::string& path);

}  // namespace k8s::sim
