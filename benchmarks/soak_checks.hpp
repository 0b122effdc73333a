// The chaos soak's checks on a cluster and its replicas, each returning
// the problems it found (empty = passed): owned objects against a
// reference, every scripted edit in place and reflected in the outputs,
// a journal's replay against the owned objects, and RSS and open file
// descriptors of a process between the halves of its life.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "soak_cluster.hpp"
#include "soak_script.hpp"

namespace soak {

// The operator's owned objects and its inputs, as the cluster holds them.
std::vector<model::Value> owned_objects(SimProcess& sim);
std::vector<model::Value> input_objects(SimProcess& sim);

// render_all over the cluster's inputs is what it holds (divergence()).
bool converged(SimProcess& sim);
// Waits until no replica has written (Lease renewals aside) for `quiet`
// and `settled` holds; false after `timeout`.
bool wait_quiescent(SimProcess& sim, const std::function<bool()>& settled, std::chrono::seconds quiet,
                    std::chrono::seconds timeout);

// Differences of two comparable_content maps, "ID: reason" lines.
std::vector<std::string> compare_content(const std::map<std::string, std::string>& got,
                                         const std::map<std::string, std::string>& reference);
// Lost updates: each object the script left is in the cluster as the
// script last set it, each one it deleted is gone, and the owned objects
// are what the current inputs render to.
std::vector<std::string> lost_updates(SimProcess& sim, const EditScript& script);
// `agent-operator replay JOURNAL` against the owned objects (config hashes).
std::vector<std::string> replay_differs(const std::string& journal, const std::vector<model::Value>& owned);

struct Growth {
  long rss_first_kib = 0, rss_second_kib = 0, fds_first = 0, fds_second = 0;
  std::vector<std::string> problems;
};
// Median RSS and fds of the first and second half of a process's samples
// (the first `warmup` excluded); growth past the limits is a problem.
Growth compare_halves(const std::vector<ProcSample>& samples, std::chrono::seconds warmup);

}  // namespace soak
