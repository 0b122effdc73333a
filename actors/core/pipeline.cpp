#include "actors/core/pipeline.hpp"

namespace actors::core {

void Pipeline::ensure_root(const RootKey& key) {
  if (roots_.count(key)) return;
  RootState s = make_root(key);
  for (const ObjectPtr& ns : router_.namespaces())
    apply(s, Event{last_seq_, 0, "Namespace", EventType::resync, ns}, Delivery::quiet);
  roots_.emplace(key, std::move(s));
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
    return;
  } else if (life.action == RootLifecycle::Action::ensure) {
    ensure_root(life.key);
  }
  Routing r = router_.route(e);
  for (const RootKey& key : r.roots) {
    auto it = roots_.find(key);
    if (it == roots_.end()) continue;
    apply(it->second, e, Delivery::dirty);
    if (auto d = r.deltas.find(key); d != r.deltas.end()) absorb(it->second, d->second);
  }
  if (!r.broadcast) return;
  for (auto& [key, state] : roots_)
    if (!r.roots.count(key)) apply(state, e, Delivery::quiet);
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
        SubscriptionDelta delta = router_.set_subscriptions(key, *fx.subscribe);
        acknowledge(state, std::move(*fx.subscribe), delta);
      } else {
        ++renders;
      }
    }
    if (!any) break;
  }
  return renders;
}

std::vector<model::Value> Pipeline::desired() const {
  std::vector<model::Value> out;
  for (const auto& [key, state] : roots_) out.insert(out.end(), state.desired.begin(), state.desired.end());
  return out;
}

}  // namespace actors::core
