// The chaos soak's seeded fault schedule and its injection: watch drops,
// 410 Gone (compaction, then drops), windows of 5xx, 429 and latency,
// kill -9 of a replica and its restart, and SIGSTOP of the leader past its
// lease, then SIGCONT. The first round injects every kind once in a seeded
// order; later faults are drawn at random.
// Contract: inject() blocks for the fault's duration and leaves the
// cluster fault-free and every replica running and resumed. In the soak's
// second half the replica whose process is oldest is never killed, so one
// process lives through both halves (the RSS and fd check compares them).
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "soak_cluster.hpp"

namespace soak {

enum class Fault { drop_watches, gone_410, errors_5xx, throttle_429, latency, kill9, pause_leader };
inline constexpr std::size_t kFaultKinds = 7;
const char* fault_name(Fault f);

struct FaultCounts {
  std::array<int, kFaultKinds> injected{};
  int takeovers = 0;  // pauses during which the other replica took the Lease
};

class FaultSchedule {
 public:
  FaultSchedule(std::uint64_t seed, std::chrono::milliseconds lease_duration);
  Fault next();
  std::chrono::milliseconds gap() { return std::chrono::milliseconds(uniform(1000, 3000)); }
  // Injects `f`; `second_half` protects the oldest process from kill -9.
  void inject(Fault f, SimProcess& sim, std::vector<Replica*>& replicas, bool second_half, FaultCounts& counts);

 private:
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  void rate_window(SimProcess& sim, const k8s::sim::FaultConfig& config);
  void kill_one(std::vector<Replica*>& replicas, bool second_half);
  bool pause_leader(SimProcess& sim, std::vector<Replica*>& replicas);

  std::mt19937_64 rng_;
  std::chrono::milliseconds lease_duration_;
  std::vector<Fault> first_round_;
};

}  // namespace soak
