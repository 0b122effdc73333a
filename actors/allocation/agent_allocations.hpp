// The operator's target allocation for GrafanaAgents with
// shardingStrategy consistent or node (issue 19). Per such agent, one
// allocation pipeline (journal and allocation actor around
// allocation::runtime::State, as the target-allocator binary runs it) and
// one sources actor whose Reflectors run the agent's kubernetes_sd watches
// on the operator's client. Under consistent the shards are static
// collectors "0".."N-1"; under node they are the metrics DaemonSet's pods,
// which the same sources actor watches (the config's collector_selector).
// Contract: on_render() takes every root output (any thread, never
// blocks): such an agent's new allocator config starts its pipeline or
// is journaled as a reload; a root that is gone, or renders without one,
// stops it. An invalid or paused root leaves it as it is, so running agents
// keep their targets. Each pipeline journals its inputs to
// <journal_dir>/allocation-<ns>-<name>.jsonl when journal_dir is set
// (replayable with `target-allocator replay`). lookup() (any thread) gives
// the last published answer for a shard and job, lock-free after a map
// lookup; answers are the target allocator's per-collector bodies, and the
// snapshot lists every target's placement (/debug/targets).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "actors/allocation/allocation_actor.hpp"
#include "actors/allocation/sources_actor.hpp"
#include "actors/core/writer_machine.hpp"
#include "allocation/runtime/placements.hpp"
#include "allocation/targets_body.hpp"
#include "k8s/client/client.hpp"
#include "model/log.hpp"

namespace actors {

struct AgentAllocationsConfig {
  k8s::Client* client = nullptr;  // the kubernetes_sd watches; outlives this object
  std::string journal_dir;        // "" = journal nothing
  model::Log log;                 // components discovery, allocation, config
};

// One shard's targets of one job: the body served, with its entity tags
// (chunks shared between publishes, see allocation/targets_body.hpp).
using ShardTargets = std::shared_ptr<const allocation::TargetsBody>;

// What the operator serves for one agent, replaced whole on each publish.
struct AgentTargets {
  std::vector<std::string> shards;  // the collectors: "0".."N-1", or the node pods
  // (job, shard) -> answer, for the jobs that have targets; any other job
  // of the agent has none ("[]").
  std::map<std::pair<std::string, std::string>, ShardTargets> answers;
  // Every target with its shard and the reallocation that last placed it
  // (seq in the agent's allocation journal), unsorted.
  std::shared_ptr<const allocation::runtime::Placements> placements;
};

struct AgentLookup {
  std::shared_ptr<const AgentTargets> targets;  // null before the first allocation
  std::string service_account;                  // whose tokens may read them
};

class AgentAllocations {
 public:
  AgentAllocations(caf::actor_system& sys, AgentAllocationsConfig cfg);
  ~AgentAllocations();
  AgentAllocations(const AgentAllocations&) = delete;
  AgentAllocations& operator=(const AgentAllocations&) = delete;

  void on_render(const core::RootOutput& out);
  // The agent's last published targets and who may read them.
  // nullopt when the agent has no consistent or node allocation.
  std::optional<AgentLookup> lookup(const std::string& ns, const std::string& name) const;
  // Stops every pipeline and waits for its actors (idempotent).
  void stop();
  std::size_t agents() const;

 private:
  struct Agent;
  void start_agent(const core::RootKey& key, const core::Effects& fx);
  static std::vector<caf::actor> actors_of(const Agent& a);
  void stop_agent(Agent& a);
  caf::actor_system& sys_;
  AgentAllocationsConfig cfg_;
  mutable std::mutex mu_;
  std::map<core::RootKey, std::shared_ptr<Agent>> agents_;
  bool stopped_ = false;
};

}  // namespace actors
