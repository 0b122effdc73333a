// The chaos soak's fault phase: the edit script applied at a steady pace
// on one thread while the fault schedule runs on the caller's, sampling
// each replica process's RSS and open fds between faults.
// Contract: returns with the faults off and every replica running and
// resumed; the script is only used by the edit thread until then.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "soak_cluster.hpp"
#include "soak_faults.hpp"
#include "soak_script.hpp"

namespace soak {

struct ProcessRecord {
  std::string replica;
  Clock::time_point started;
  std::vector<ProcSample> samples;
};

struct PhaseRecord {
  FaultCounts faults;
  std::size_t edits = 0;
  std::vector<std::string> edit_errors;
  std::map<pid_t, ProcessRecord> processes;
  Clock::time_point start, end;
};

struct PhaseOptions {
  std::chrono::seconds duration{120};
  std::chrono::milliseconds edit_interval{250};
  std::uint64_t seed = 1;
};

PhaseRecord run_fault_phase(SimProcess& sim, std::vector<Replica*>& replicas, EditScript& script,
                            const PhaseOptions& options);

}  // namespace soak
