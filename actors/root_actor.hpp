// The root actor: one per GrafanaAgent, started by the GrafanaAgent selector when the
// agent first appears and stopped after it is deleted. It folds the events
// the selector actors send into its RootState, coalesces bursts with a Debouncer,
// and on each reconcile either asks every selector actor to replace its
// subscriptions (then reconciles again with the members it gained) or hands
// the rendered objects, problems and counts to the writer.
// Contract: a thin shell over actors/core/root_state.hpp; never blocks;
// renders nothing before the initial sync (synced_atom), then once. Time
// is the actor system's clock, so a test coordinator drives the debounce.
#pragma once

#include <chrono>
#include <functional>
#include <vector>

#include "actors/protocol.hpp"
#include "model/render.hpp"

namespace actors {

struct RootConfig {
  model::RenderOptions render;
  std::chrono::milliseconds debounce{100};
  std::chrono::milliseconds max_wait{1000};
  writer_actor writer;
  // The status.bindings writer, when it runs: it gets every output too.
  bindings_actor bindings;
  // The selector actors a root asks to replace its subscriptions (one per
  // member kind, Secret and ConfigMap); it renders once all have answered.
  std::vector<member_selector_actor> selectors;
  // Called on the actor's thread after every render (tests, replay checks).
  std::function<void(const RootOutput&)> on_render = {};
  // Work-queue view of the roots: a root is queued from its first pending
  // event until its reconcile starts (wait in seconds).
  std::function<void()> on_queued = {};
  std::function<void(double wait_seconds)> on_dequeued = {};
};

// `synced`: the informers' initial lists have all been routed. Before that a
// root only collects events: rendering a half-listed cluster would make the
// writer apply objects it must change again moments later.
root_actor spawn_root(caf::actor_system& sys, const core::RootKey& key, const RootConfig& cfg, bool synced);

}  // namespace actors
