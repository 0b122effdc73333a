// The controller core run synchronously: router plus one RootState per
// GrafanaAgent, fed events in seq order and settled to a fixpoint. The CAF
// actors run the same functions asynchronously; the replay command and the
// tests run this. At a fixpoint each root's store holds everything its
// hierarchy selects or references, so its desired objects equal a render
// over the whole cluster (tests check exactly that).
// Contract: deterministic; feed() never renders; settle() reconciles dirty
// roots (acknowledging subscription changes with the router) until none is
// dirty, and returns how many renders it ran.
#pragma once

#include <cstddef>
#include <map>
#include <vector>

#include "actors/core/root_state.hpp"
#include "actors/core/router.hpp"

namespace actors::core {

class Pipeline {
 public:
  explicit Pipeline(model::RenderOptions opts = {}) : opts_(std::move(opts)) {}

  void feed(const Event& e);
  std::size_t settle(std::size_t max_rounds = 32);

  const std::map<RootKey, RootState>& roots() const { return roots_; }
  const Router& router() const { return router_; }
  Router& router() { return router_; }
  // Every root's desired objects, concatenated in root order.
  std::vector<model::Value> desired() const;
  std::uint64_t last_seq() const { return last_seq_; }
  // The Endpoints of the integrations Services as last journaled: what the
  // integrations SD aggregator knew (replay --integrations-sd shows it).
  const std::map<model::Key, ObjectPtr>& endpoints() const { return endpoints_; }
  // Each root's verdicts on its monitors from its last valid render, as
  // the status.bindings writer holds them (an invalid root keeps its last
  // ones; a deleted root has none); replay --bindings prints them.
  const std::map<RootKey, RootBindings>& bindings() const { return bindings_; }

 private:
  void ensure_root(const RootKey& key);
  void deliver(const Event& e, const Routing& r);

  model::RenderOptions opts_;
  Router router_;
  std::map<RootKey, RootState> roots_;
  std::map<model::Key, ObjectPtr> endpoints_;
  std::map<RootKey, RootBindings> bindings_;
  std::uint64_t last_seq_ = 0;
};

}  // namespace actors::core
