#include "actors/kubelet_actor.hpp"

#include "actors/api_call.hpp"
#include "model/yaml_emit.hpp"

namespace actors {

namespace {

struct KubeletShell {
  KubeletConfig cfg;
  core::KubeletState machine;
  std::size_t addresses = SIZE_MAX, skipped = SIZE_MAX;  // as last given to on_nodes
  static inline const char* name = "kubelet-service";
};

using Kubelet = kubelet_actor::stateful_pointer<KubeletShell>;

void call(Kubelet self, const core::WriterEffect& fx) {
  auto me = caf::actor_cast<kubelet_actor>(self);
  send_action(*self->state.cfg.client, fx.action, [me, key = fx.root, batch = fx.batch](k8s::Result r) {
    caf::anon_send(me, done_atom::value, key, batch, share_result(std::move(r)));
  });
}

void reread(Kubelet self, const core::WriterEffect& fx) {
  auto me = caf::actor_cast<kubelet_actor>(self);
  const auto& [kind, ns, name] = fx.id;
  self->state.cfg.client->get(*k8s::resource_for_kind(kind), ns, name, [me, key = fx.root, id = fx.id](k8s::Result r) {
    caf::anon_send(me, reread_atom::value, key, id, share_result(std::move(r)));
  });
}

// A repeat of the same problem's Event (same name) is a 409: nothing to do.
void emit_event(Kubelet self, const core::WriterEffect& fx) {
  auto on_write = self->state.cfg.on_write;
  std::string ns = model::string_at(fx.body, {"metadata", "namespace"});
  self->state.cfg.client->create(*k8s::resource_for_kind("Event"), ns, model::to_json(fx.body),
                                 [on_write](k8s::Result r) {
                                   if (on_write) on_write("Event", "event", r.status);
                                 });
}

void report_nodes(Kubelet self) {
  KubeletShell& st = self->state;
  const core::KubeletStats& s = st.machine.stats;
  if (!st.cfg.on_nodes || (s.addresses == st.addresses && s.skipped == st.skipped)) return;
  st.addresses = s.addresses;
  st.skipped = s.skipped;
  st.cfg.on_nodes(s.addresses, s.skipped);
}

void perform(Kubelet self, core::WriterEffects effects) {
  const KubeletConfig& cfg = self->state.cfg;
  for (const core::WriterEffect& fx : effects) {
    using T = core::WriterEffect::Type;
    switch (fx.type) {
      case T::call:
        call(self, fx);
        break;
      case T::reread:
        reread(self, fx);
        break;
      case T::retry:
        self->delayed_send(self, fx.delay, retry_atom::value, fx.root);
        break;
      case T::event:
        emit_event(self, fx);
        break;
      case T::wrote:
        if (cfg.on_write) cfg.on_write(fx.action.kind, core::action_name(fx.action.type), fx.status);
        break;
      case T::log:
        if (cfg.log) cfg.log(fx.entry);
        break;
      case T::status_patch:  // the machine has no status to patch, no owner to confirm
      case T::confirm_owner:
      case T::reconciled:  // and no GrafanaAgent reconcile to count
        break;
    }
  }
  report_nodes(self);
}

kubelet_actor::behavior_type kubelet_behavior(Kubelet self, KubeletConfig cfg) {
  self->state.machine = core::make_kubelet(cfg.settings);
  self->state.cfg = std::move(cfg);
  auto& m = self->state.machine;
  return {
      [=, &m](event_atom, const EventPtr& e) { perform(self, core::on_kubelet_event(m, *e)); },
      [=, &m](synced_atom) { perform(self, core::on_kubelet_synced(m)); },
      [=, &m](leader_atom, bool leading) { perform(self, core::on_kubelet_leader(m, leading)); },
      [=, &m](done_atom, const core::RootKey&, std::uint64_t batch, const ResultPtr& r) {
        perform(self, core::on_kubelet_call_done(m, batch, answer_of(*r)));
      },
      [=, &m](reread_atom, const core::RootKey&, const core::Identity& id, const ResultPtr& r) {
        perform(self, core::on_kubelet_reread(m, id, answer_of(*r)));
      },
      [=, &m](retry_atom, const core::RootKey&) { perform(self, core::on_kubelet_retry(m)); },
      [=, &m](stats_atom) { return core::kubelet_stats(m); },
  };
}

}  // namespace

kubelet_actor spawn_kubelet_actor(caf::actor_system& sys, KubeletConfig cfg) {
  return sys.spawn(kubelet_behavior, std::move(cfg));
}

}  // namespace actors
