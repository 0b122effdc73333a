// The selector actor: owns the routing index of every member kind (label
// selectors per kind, Secret/ConfigMap references by name, Namespace
// labels) and the root actors. Each journaled event goes to exactly the
// roots whose old or new subscriptions match it; a Namespace relabel hands
// affected roots the members they gain or lose; objects owned by a root go
// to the writer. Roots ask it (request/response) to replace their
// subscriptions and receive the current versions of what they gain.
// Contract: processes events in journal order; routing cost grows with the
// number of interested roots, not with the number of roots
// (core::Router). Forwards synced_atom to the writer after every event
// before it, and tells the journal which ConfigMaps to redact.
#pragma once

#include "actors/root_actor.hpp"

namespace actors {

struct RouterConfig {
  RootConfig root;  // how to start root actors
  caf::actor writer;
};

caf::actor spawn_router(caf::actor_system& sys, RouterConfig cfg);

// router -> journal wiring happens after both exist.
using journal_atom = caf::atom_constant<caf::atom("journal")>;

struct RouterStats {
  std::uint64_t events = 0, deliveries = 0, roots = 0, examined = 0;
};

}  // namespace actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(actors::RouterStats)
