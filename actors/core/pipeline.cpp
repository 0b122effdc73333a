#include "actors/core/pipeline.hpp"

namespace actors::core {

void Pipeline::ensure_root(const RootKey& key) {
  if (!roots_.count(key)) roots_.emplace(key, make_root(key));
}

void Pipeline::feed(const Event& e) {
  if (!e.object) return;
  last_seq_ = std::max(last_seq_, e.seq);
  if (e.kind == "Endpoints") {
    if (e.type == EventType::deleted)
      endpoints_.erase(object_key(*e.object));
    else
      endpoints_[object_key(*e.object)] = e.object;
    return;
  }
  if (RootLifecycle life = root_lifecycle(e); life.action == RootLifecycle::Action::stop) {
    router_.remove_root(life.key);
    roots_.erase(life.key);
    bindings_.erase(life.key);
    return;
  } else if (life.action == RootLifecycle::Action::ensure) {
    ensure_root(life.key);
  }
  deliver(e, router_.route(e));
}

// In the order the selector actors send: a root's Namespace before its
// first member there, then the event (or its deletion, for a root that no
// longer selects the object), then the relabel's delta.
void Pipeline::deliver(const Event& e, const Routing& r) {
  for (const RootKey& key : r.attach)
    if (auto it = roots_.find(key); it != roots_.end()) apply(it->second, *r.ns_event, Delivery::quiet);
  for (const RootKey& key : r.roots) {
    auto it = roots_.find(key);
    if (it == roots_.end()) continue;
    apply(it->second, r.dropped.count(key) ? *r.as_deleted : e, Delivery::dirty);
    if (auto d = r.deltas.find(key); d != r.deltas.end()) absorb(it->second, d->second);
  }
  for (const RootKey& key : r.quiet)
    if (auto it = roots_.find(key); it != roots_.end()) apply(it->second, e, Delivery::quiet);
}

std::size_t Pipeline::settle(std::size_t max_rounds) {
  std::size_t renders = 0;
  for (std::size_t round = 0; round < max_rounds; ++round) {
    bool any = false;
    for (auto& [key, state] : roots_) {
      if (!state.dirty) continue;
      any = true;
      Effects fx = reconcile(state, opts_);
      if (fx.subscribe) {
        auto subs = std::make_shared<const Subscriptions>(std::move(*fx.subscribe));
        SubscriptionDelta delta = router_.set_subscriptions(key, subs);
        acknowledge(state, std::move(subs), delta);
      } else {
        ++renders;
        if (!fx.root_present)
          bindings_.erase(key);
        else if (fx.rendered && fx.root_valid)
          bindings_[key] = std::move(fx.bindings);
      }
    }
    if (!any) break;
  }
  return renders;
}

std::vector<model::Value> Pipeline::desired() const {
  std::vector<model::Value> out;
  for (const auto& [key, state] : roots_) out.insert(out.end(), state.desired->begin(), state.desired->end());
  return out;
}

}  // namespace actors::core
