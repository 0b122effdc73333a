#include "actors/bindings_actor.hpp"

#include "actors/api_call.hpp"
#include "model/yaml_emit.hpp"

namespace actors {

namespace {

struct BindingsShell {
  BindingsConfig cfg;
  core::BindingsState machine;
};

using Bindings = bindings_actor::stateful_pointer<BindingsShell>;

void perform_bindings(Bindings self, core::BindingsEffects effects);

void patch_bindings(Bindings self, const core::BindingsEffect& fx) {
  auto me = caf::actor_cast<bindings_actor>(self);
  const auto& [kind, key] = fx.monitor;
  self->state.cfg.client->patch(
      *k8s::resource_for_kind(kind), key.first, key.second, k8s::PatchType::merge, model::to_json(fx.body),
      [me, id = fx.monitor](k8s::Result r) { caf::anon_send(me, patched_atom::value, id, share_result(std::move(r))); },
      "status");
}

// CRDs are named <plural>.<group>.
void read_monitor_crd(Bindings self, const std::string& kind) {
  auto me = caf::actor_cast<bindings_actor>(self);
  const k8s::Resource* res = k8s::resource_for_kind(kind);
  self->state.cfg.client->get(
      *k8s::resource_for_kind("CustomResourceDefinition"), "", res->plural + "." + res->group,
      [me, kind](k8s::Result r) { caf::anon_send(me, crd_atom::value, kind, share_result(std::move(r))); });
}

void perform_bindings(Bindings self, core::BindingsEffects effects) {
  for (const core::BindingsEffect& fx : effects) {
    using T = core::BindingsEffect::Type;
    switch (fx.type) {
      case T::patch:
        patch_bindings(self, fx);
        break;
      case T::retry:
        self->delayed_send(self, fx.delay, again_atom::value, fx.monitor);
        break;
      case T::read_crd:
        read_monitor_crd(self, fx.monitor.first);
        break;
      case T::log:
        self->state.cfg.log(fx.entry);
        break;
    }
  }
}

bindings_actor::behavior_type bindings_behavior(Bindings self, BindingsConfig cfg) {
  core::BindingsEffects start;
  self->state.machine = core::make_bindings(cfg.settings, start);
  self->state.cfg = std::move(cfg);
  perform_bindings(self, std::move(start));
  auto& m = self->state.machine;
  return {
      [=, &m](event_atom, const EventPtr& e) { perform_bindings(self, core::on_bindings_event(m, *e)); },
      [=, &m](synced_atom) { perform_bindings(self, core::on_bindings_synced(m)); },
      [=, &m](verdicts_atom, const RootVerdictsPtr& v) { perform_bindings(self, core::on_root_verdicts(m, *v)); },
      [=, &m](leader_atom, bool leading) { perform_bindings(self, core::on_bindings_leader(m, leading)); },
      [=, &m](patched_atom, const core::MonitorId& id, const ResultPtr& r) {
        if (self->state.cfg.on_write) self->state.cfg.on_write(id.first, r->status);
        perform_bindings(self, core::on_patch_done(m, id, answer_of(*r)));
      },
      [=, &m](again_atom, const core::MonitorId& id) { perform_bindings(self, core::on_bindings_retry(m, id)); },
      [=, &m](crd_atom, const std::string& kind, const ResultPtr& r) {
        perform_bindings(self, core::on_crd(m, kind, k8s::resource_for_kind(kind)->version, answer_of(*r)));
      },
      [=, &m](stats_atom) { return core::bindings_stats(m); },
  };
}

}  // namespace

bindings_actor spawn_bindings_actor(caf::actor_system& sys, BindingsConfig cfg) {
  return sys.spawn(bindings_behavior, std::move(cfg));
}

}  // namespace actors
