// Performs one planned write (core::Action) with the API client: create,
// update (fenced by the resourceVersion the plan put in the body) or delete
// with background propagation. The writer and the kubelet Service
// controller share it.
// Contract: the callback always runs once, on the client's I/O thread; a
// kind the client has no API path for answers 422 at once.
#pragma once

#include "actors/core/writer_plan.hpp"
#include "k8s/client/client.hpp"

namespace actors {

void send_action(k8s::Client& client, const core::Action& a, k8s::Callback cb);

}  // namespace actors
