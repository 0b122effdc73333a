#include "soak_faults.hpp"

#include <algorithm>
#include <thread>

namespace soak {

namespace {

void sleep_ms(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

}  // namespace

const char* fault_name(Fault f) {
  static const char* names[] = {"watch drops", "410 Gone", "5xx", "429", "latency", "kill -9", "SIGSTOP of the leader"};
  return names[static_cast<std::size_t>(f)];
}

FaultSchedule::FaultSchedule(std::uint64_t seed, std::chrono::milliseconds lease_duration)
    : rng_(seed * 7919 + 17), lease_duration_(lease_duration) {
  for (std::size_t i = 0; i < kFaultKinds; ++i) first_round_.push_back(static_cast<Fault>(i));
  std::shuffle(first_round_.begin(), first_round_.end(), rng_);
}

Fault FaultSchedule::next() {
  if (!first_round_.empty()) {
    Fault f = first_round_.back();
    first_round_.pop_back();
    return f;
  }
  return static_cast<Fault>(uniform(0, kFaultKinds - 1));
}

void FaultSchedule::rate_window(SimProcess& sim, const k8s::sim::FaultConfig& config) {
  sim.set_faults(config);
  sleep_ms(uniform(3000, 6000));
  sim.set_faults({});
}

void FaultSchedule::kill_one(std::vector<Replica*>& replicas, bool second_half) {
  std::vector<Replica*> victims = replicas;
  if (second_half) {
    auto oldest = std::min_element(victims.begin(), victims.end(),
                                   [](Replica* a, Replica* b) { return a->started() < b->started(); });
    victims.erase(oldest);
  }
  Replica* victim = victims[static_cast<std::size_t>(uniform(0, static_cast<int>(victims.size()) - 1))];
  victim->kill9();
  sleep_ms(uniform(500, 2000));
  victim->start();
}

// Stops the leader until the other replica holds the Lease (at least one
// lease duration and a second, at most ten seconds more), then resumes it.
bool FaultSchedule::pause_leader(SimProcess& sim, std::vector<Replica*>& replicas) {
  std::string holder = lease_holder(sim);
  auto it = std::find_if(replicas.begin(), replicas.end(), [&](Replica* r) { return r->name() == holder; });
  if (it == replicas.end()) return false;
  (*it)->pause(true);
  auto stopped = Clock::now();
  sleep_ms(static_cast<int>(lease_duration_.count()) + 1000);
  bool taken = false;
  while (!(taken = (lease_holder(sim) != holder && !lease_holder(sim).empty())) &&
         Clock::now() - stopped < lease_duration_ + std::chrono::seconds(10))
    sleep_ms(200);
  (*it)->pause(false);
  return taken;
}

void FaultSchedule::inject(Fault f, SimProcess& sim, std::vector<Replica*>& replicas, bool second_half,
                           FaultCounts& counts) {
  ++counts.injected[static_cast<std::size_t>(f)];
  switch (f) {
    case Fault::drop_watches:
      sim.drop_watches();
      break;
    case Fault::gone_410:
      sim.compact();  // resumed watches now get 410 Gone
      sim.drop_watches();
      break;
    case Fault::errors_5xx:
      rate_window(sim, {.error_5xx_rate = uniform(10, 30) / 100.0});
      break;
    case Fault::throttle_429:
      rate_window(sim, {.error_429_rate = uniform(10, 30) / 100.0});
      break;
    case Fault::latency:
      rate_window(sim, {.latency_ms = uniform(100, 400)});
      break;
    case Fault::kill9:
      kill_one(replicas, second_half);
      break;
    case Fault::pause_leader:
      counts.takeovers += pause_leader(sim, replicas) ? 1 : 0;
      break;
  }
}

}  // namespace soak
