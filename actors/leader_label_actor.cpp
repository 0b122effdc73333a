#include "actors/leader_label_actor.hpp"

#include "actors/api_call.hpp"
#include "actors/core/leader_label.hpp"
#include "k8s/client/retry.hpp"

namespace actors {

namespace {

struct LabelShell {
  LeaderLabelConfig cfg;
  core::LeaderLabelState machine;
  static inline const char* name = "leader-label";
};

using Labeller = leader_label_actor::stateful_pointer<LabelShell>;

const k8s::Resource& pods() {
  return *k8s::resource_for_kind("Pod");
}

auto answer_to(Labeller self, core::LabelCall call) {
  auto me = caf::actor_cast<leader_label_actor>(self);
  return [me, call](k8s::Result r) {
    caf::anon_send(me, label_atom::value, static_cast<int>(call), share_result(std::move(r)));
  };
}

void call_next(Labeller self) {
  LabelShell& st = self->state;
  const core::LabelCall call = core::label_next(st.machine);
  switch (call) {
    case core::LabelCall::none:
      return;
    case core::LabelCall::label_own:
    case core::LabelCall::unlabel_own:
      st.cfg.client->patch(pods(), st.cfg.ns, st.cfg.pod, k8s::PatchType::merge,
                           core::label_patch(st.cfg.key, call == core::LabelCall::label_own), answer_to(self, call));
      return;
    case core::LabelCall::list_labelled: {
      k8s::ListOptions o;
      o.label_selector = st.cfg.key;
      st.cfg.client->list_all(pods(), st.cfg.ns, o, answer_to(self, call));
      return;
    }
  }
}

// Another Pod labelled by an earlier leader: a failure only logs, the next
// gain of the lead sweeps again.
void unlabel_other(Labeller self, const std::string& pod) {
  LabelShell& st = self->state;
  st.cfg.client->patch(pods(), st.cfg.ns, pod, k8s::PatchType::merge, core::label_patch(st.cfg.key, false),
                       [log = st.cfg.log, ns = st.cfg.ns, pod, key = st.cfg.key](k8s::Result r) {
                         if (k8s::classify(r.status) == k8s::ErrorClass::ok || r.status == 404 || !log) return;
                         log(model::log_warn("leader-election", "could not remove the leader label of another Pod")
                                 .object("Pod", ns, pod)
                                 .with("label", key)
                                 .with("status", r.status)
                                 .with("error", r.error));
                       });
  if (st.cfg.log)
    st.cfg.log(model::log_info("leader-election", "removing the leader label another replica left")
                   .object("Pod", st.cfg.ns, pod)
                   .with("label", st.cfg.key));
}

void on_answer(Labeller self, core::LabelCall call, const k8s::Result& r) {
  LabelShell& st = self->state;
  const k8s::ErrorClass c = k8s::classify(r.status);
  core::LabelAnswer a = c == k8s::ErrorClass::ok         ? core::LabelAnswer::ok
                        : c == k8s::ErrorClass::terminal ? core::LabelAnswer::terminal
                                                         : core::LabelAnswer::retry;
  if (a == core::LabelAnswer::ok && call == core::LabelCall::list_labelled) {
    try {
      for (const std::string& pod : core::labelled_others(r.body, st.cfg.key, st.cfg.pod)) unlabel_other(self, pod);
    } catch (const std::exception&) {  // an unreadable list: ask again
      a = core::LabelAnswer::retry;
    }
  }
  if (a != core::LabelAnswer::ok && st.cfg.log)
    st.cfg.log((a == core::LabelAnswer::terminal
                    ? model::log_error("leader-election", "cannot keep the leader label; not retrying")
                    : model::log_warn("leader-election", "leader label call failed; retrying"))
                   .object("Pod", st.cfg.ns, st.cfg.pod)
                   .with("label", st.cfg.key)
                   .with("status", r.status)
                   .with("error", r.error));
  core::label_on_answer(st.machine, call, a);
  if (st.machine.retry_scheduled) self->delayed_send(self, st.cfg.retry, retry_atom::value);
  call_next(self);
}

leader_label_actor::behavior_type label_behavior(Labeller self, LeaderLabelConfig cfg) {
  self->state.cfg = std::move(cfg);
  call_next(self);  // a standby clears what a previous life of its container left
  return {
      [=](leader_atom, bool leading) {
        core::label_on_leader(self->state.machine, leading);
        call_next(self);
      },
      [=](label_atom, int call, const ResultPtr& r) { on_answer(self, static_cast<core::LabelCall>(call), *r); },
      [=](retry_atom) {
        core::label_on_retry(self->state.machine);
        call_next(self);
      },
  };
}

}  // namespace

leader_label_actor spawn_leader_label_actor(caf::actor_system& sys, LeaderLabelConfig cfg) {
  return sys.spawn(label_behavior, std::move(cfg));
}

}  // namespace actors
