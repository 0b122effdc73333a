// The status writer for monitors' `status.bindings` (issue 19), as pure
// functions in the writer's style: it merges every root's verdicts on each
// monitor (core/bindings.hpp), folds the monitors and GrafanaAgents the
// journal delivers, and plans one merge patch per monitor whose entries of
// ours differ from what was read. The shell (actors/bindings_actor.cpp)
// performs the effects and keeps the timers.
// Contract: no patch before the journal's initial sync, while not the
// leader, once the Lease fence no longer holds, or for a kind whose
// installed CRD does not admit our entries (read once per kind:
// crd_admits_bindings). One call per monitor at a time. Answers follow the
// client's three error classes: retry_call retries the same monitor after
// a backoff; retry_reconcile (409: someone changed it since it was read)
// waits for the journal to deliver another version of it and plans again
// from that one (no GET, so the operator needs no `get` on the monitors);
// terminal is logged and waits for the monitor's next change. An agent
// that exists but has not rendered since the start keeps its entry as
// read, so a restart writes nothing when nothing changed. Deterministic
// for a given input sequence and clock.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "actors/core/bindings.hpp"
#include "actors/core/event.hpp"
#include "actors/core/lease_fence.hpp"
#include "actors/core/writer_machine.hpp"
#include "k8s/client/retry.hpp"
#include "model/log.hpp"

namespace actors::core {

struct BindingsSettings {
  bool leader = true;  // false: wait for on_leader
  std::shared_ptr<LeaseFence> fence;
  std::function<std::string()> now_rfc3339;  // lastTransitionTime of a new verdict
  k8s::Backoff backoff;
};

struct BindingsStats {
  std::uint64_t patches = 0, written = 0, conflicts = 0, errors = 0, fenced = 0;
  std::size_t monitors = 0, in_flight = 0, retrying = 0;
  bool synced = false, leader = false;
};

struct BindingsEffect {
  enum class Type {
    patch,     // merge-patch `body` into `monitor`'s status subresource
    retry,     // on_retry(`monitor`) after `delay`
    read_crd,  // GET the CRD of `monitor.first`, answer with on_crd
    log,       // `entry`
  };
  Type type;
  MonitorId monitor;
  model::Value body;
  std::chrono::milliseconds delay{0};
  model::LogEntry entry;
};
using BindingsEffects = std::vector<BindingsEffect>;

struct MonitorWrites {
  ObservedMonitor seen;
  std::uint64_t rv = 0;  // seen.resource_version as a number
  bool present = false;  // seen in an event or answer, not deleted
  bool in_flight = false, retry_scheduled = false;
  unsigned attempt = 0;
  std::string sent_rv;        // the resourceVersion the last patch carried
  std::string conflicted_rv;  // after a 409: sent_rv, until another version is seen
};

enum class Admission { unknown, admitted, refused };

struct BindingsState {
  BindingsSettings settings;
  std::map<MonitorId, std::map<RootKey, MonitorBinding>> verdicts;  // every root's, by monitor
  std::map<RootKey, std::set<MonitorId>> reported;                  // roots that rendered, and their monitors
  std::set<RootKey> agents;                                         // GrafanaAgents that exist
  std::map<MonitorId, MonitorWrites> monitors;
  std::map<std::string, Admission> kinds;
  std::set<MonitorId> dirty;
  bool synced = false, leader = true;
  BindingsStats stats;
};

// Starts with a read_crd effect per binding kind.
BindingsState make_bindings(BindingsSettings settings, BindingsEffects& start);

// What the bindings writer reads of a root's output (RootOutput, Effects):
// sent on its own so the writer's retained outputs never carry verdicts and
// the bindings actor never gets a copy of the desired objects.
struct RootVerdicts {
  RootKey root;
  bool root_present = true, rendered = false, root_valid = true;
  RootBindings bindings;
};
using RootVerdictsPtr = std::shared_ptr<const RootVerdicts>;
// Takes the verdicts out of `fx` (its bindings are left empty).
RootVerdicts take_verdicts(const RootKey& root, Effects& fx);

// A root's verdicts replace its previous ones (a gone root's are dropped;
// an invalid root's last ones stay, as its workloads do).
BindingsEffects on_root_verdicts(BindingsState& st, const RootVerdicts& in);
// A journaled event of a monitor kind or of a GrafanaAgent.
BindingsEffects on_bindings_event(BindingsState& st, const Event& e);
BindingsEffects on_bindings_synced(BindingsState& st);
BindingsEffects on_bindings_leader(BindingsState& st, bool leading);
// The CRD of `kind` as read (status 404: not installed).
BindingsEffects on_crd(BindingsState& st, const std::string& kind, const std::string& version, const CallAnswer& a);
BindingsEffects on_patch_done(BindingsState& st, const MonitorId& id, const CallAnswer& a);
BindingsEffects on_bindings_retry(BindingsState& st, const MonitorId& id);
BindingsStats bindings_stats(const BindingsState& st);

}  // namespace actors::core
