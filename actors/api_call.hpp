// Performs one planned write (core::Action) with the API client: create,
// update (fenced by the resourceVersion the plan put in the body) or delete
// with background propagation. The writer and the kubelet Service
// controller share it.
// Contract: the callback always runs once, on the client's I/O thread; a
// kind the client has no API path for answers 422 at once.
#pragma once

#include <memory>

#include "actors/core/writer_machine.hpp"
#include "actors/core/writer_plan.hpp"
#include "k8s/client/client.hpp"

namespace actors {

void send_action(k8s::Client& client, const core::Action& a, k8s::Callback cb);

// What the pure machines need of an API answer.
core::CallAnswer answer_of(const k8s::Result& r);

// An answer made shareable, so a message can carry it without copying.
std::shared_ptr<const k8s::Result> share_result(k8s::Result r);

}  // namespace actors
