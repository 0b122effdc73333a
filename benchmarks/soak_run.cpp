#include "soak_run.hpp"

#include <atomic>
#include <thread>

namespace soak {

namespace {

void sample_all(std::vector<Replica*>& replicas, PhaseRecord& rec) {
  for (Replica* r : replicas) {
    auto s = r->sample();
    if (!s) continue;
    ProcessRecord& p = rec.processes[r->pid()];
    if (p.replica.empty()) p = ProcessRecord{r->name(), r->started(), {}};
    p.samples.push_back(*s);
  }
}

// Edits at a steady pace until `stop`; the first error ends them.
void edit_loop(SimProcess& sim, EditScript& script, std::chrono::milliseconds interval, std::atomic<bool>& stop,
               PhaseRecord& rec) {
  auto next = Clock::now();
  while (!stop) {
    try {
      apply(sim, script.next());
      ++rec.edits;
    } catch (const std::exception& e) {
      rec.edit_errors.push_back(e.what());
      return;
    }
    next += interval;
    std::this_thread::sleep_until(next);
  }
}

}  // namespace

PhaseRecord run_fault_phase(SimProcess& sim, std::vector<Replica*>& replicas, EditScript& script,
                            const PhaseOptions& options) {
  PhaseRecord rec;
  rec.start = Clock::now();
  auto end = rec.start + options.duration, mid = rec.start + options.duration / 2;
  std::atomic<bool> stop{false};
  std::thread editor([&] { edit_loop(sim, script, options.edit_interval, stop, rec); });
  FaultSchedule schedule(options.seed, kLeaseDuration);
  while (Clock::now() < end) {
    auto gap_end = Clock::now() + schedule.gap();
    while (Clock::now() < gap_end) {
      sample_all(replicas, rec);
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    if (Clock::now() >= end) break;
    schedule.inject(schedule.next(), sim, replicas, Clock::now() >= mid, rec.faults);
    sample_all(replicas, rec);
  }
  stop = true;
  editor.join();
  sim.set_faults({});
  rec.end = Clock::now();
  return rec;
}

}  // namespace soak
