// The selector actors. A member selector runs per secondary kind (each
// member kind, Secret, ConfigMap, and one for the owned workload kinds); the
// GrafanaAgent selector starts and stops the root actors. Each holds the
// objects of its kinds in its own core::Router (index, every root's
// subscriptions for those kinds, and the Namespace labels, since every
// selector sees every Namespace event). A change goes to exactly the roots
// whose old or new subscriptions match it; a Namespace relabel hands
// affected roots the members of this selector's kinds they gain or lose;
// objects owned by a root go to the writer. Roots ask every member selector
// (request/response) to replace their subscriptions and combine the answers.
// Contract: each selector processes its events in journal order; routing
// cost grows with the number of interested roots, not with the number of
// roots. A Namespace event goes to the roots holding members of this
// selector's kinds in that namespace, and a root's first member of those
// kinds in a namespace comes with that Namespace (core::Router). Every
// selector forwards synced_atom to the writer; the GrafanaAgent selector
// also forwards it to the roots.
#pragma once

#include <chrono>
#include <set>
#include <string>

#include "actors/root_actor.hpp"

namespace actors {

struct MemberSelectorConfig {
  std::set<std::string> kinds;  // the kinds this selector owns (Namespace is implied)
  writer_actor writer;
  // How long a deleted Secret/ConfigMap that roots reference stays in use:
  // after it, this selector ingests the deletion's grace expiry event
  // (core::grace_expiry) through the journal.
  std::chrono::milliseconds grace{0};
};

struct AgentSelectorConfig {
  RootConfig root;  // how to start root actors
  writer_actor writer;
};

member_selector_actor spawn_member_selector(caf::actor_system& sys, MemberSelectorConfig cfg);
agent_selector_actor spawn_agent_selector(caf::actor_system& sys, AgentSelectorConfig cfg);

}  // namespace actors
