// The kubelet Service controller's actor (-kubelet-service=NS/NAME): a thin
// shell over core::KubeletState (actors/core/kubelet_machine.hpp). The
// journal sends it Node events and the events of its own Service,
// Endpoints and EndpointSlices; it performs the machine's writes, re-reads
// and Events with the API client and keeps the backoff timer.
// Contract: never blocks (answers arrive on the client's I/O thread and
// come back as messages); writes only after the initial sync, while the
// leader (leader_atom from the elector) and while the fence holds.
#pragma once

#include <functional>
#include <string>

#include "actors/protocol.hpp"
#include "k8s/client/client.hpp"
#include "model/log.hpp"

namespace actors {

struct KubeletConfig {
  k8s::Client* client = nullptr;
  core::KubeletSettings settings;
  model::Log log = {};
  // Metrics hooks, on the actor's thread: each write's kind, action and
  // HTTP status (0 = transport error), as WriterConfig::on_write; and the
  // Nodes listed and skipped after each plan.
  std::function<void(const std::string&, const std::string&, int)> on_write = {};
  std::function<void(std::size_t addresses, std::size_t skipped)> on_nodes = {};
};

kubelet_actor spawn_kubelet_actor(caf::actor_system& sys, KubeletConfig cfg);

}  // namespace actors
