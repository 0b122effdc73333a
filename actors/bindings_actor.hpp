// The status.bindings writer's actor (issue 19): a thin shell over
// core::BindingsState (actors/core/bindings_machine.hpp). Roots send it
// their outputs, the journal the events of the monitor kinds and of
// GrafanaAgents, the elector leadership; it reads each monitor kind's CRD
// once, merge-patches monitors' status subresource and keeps the backoff
// timers.
// Contract: never blocks (answers arrive on the client's I/O thread and
// come back as messages); every call goes through the client, so its QPS
// limits apply; writes only after the initial sync, while leading and
// while the fence holds.
#pragma once

#include <functional>
#include <string>

#include "actors/protocol.hpp"
#include "k8s/client/client.hpp"
#include "model/log.hpp"

namespace actors {

struct BindingsConfig {
  k8s::Client* client = nullptr;
  core::BindingsSettings settings;
  model::Log log = {};
  // Metrics hook, on the actor's thread: each patch's HTTP status.
  std::function<void(const std::string& kind, int status)> on_write = {};
};

bindings_actor spawn_bindings_actor(caf::actor_system& sys, BindingsConfig cfg);

}  // namespace actors
