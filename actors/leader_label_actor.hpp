// The leader label actor (--leader-pod-label=KEY): a thin shell over
// core::LeaderLabelState (actors/core/leader_label.hpp). The elector tells
// it leadership like the writer; it sets KEY=true on this replica's Pod
// while leading and removes it otherwise, and after gaining the lead
// removes KEY from the namespace's other Pods, so a Service selecting KEY
// sends the agents' target requests to the leader alone.
// Contract: never blocks (answers come back as messages from the client's
// I/O thread); one call at a time; a failed call is retried after `retry`.
#pragma once

#include <chrono>
#include <string>

#include "actors/protocol.hpp"
#include "k8s/client/client.hpp"
#include "model/log.hpp"

namespace actors {

struct LeaderLabelConfig {
  k8s::Client* client = nullptr;
  std::string ns, pod;  // this replica's Pod
  std::string key;      // the label
  std::chrono::milliseconds retry{2000};
  model::Log log = {};  // component leader-election
};

leader_label_actor spawn_leader_label_actor(caf::actor_system& sys, LeaderLabelConfig cfg);

}  // namespace actors
