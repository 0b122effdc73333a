#include "actors/elector_actor.hpp"

#include <chrono>

#include "k8s/lease/round.hpp"
#include "model/yaml_emit.hpp"

namespace actors {

namespace {

struct ElectorState {
  ElectorConfig cfg;
  k8s::lease::RoundState round;
  bool leading = false;    // as last reported to the writer
  bool releasing = false;  // shutting down: no more rounds
  caf::typed_response_promise<bool> release_reply;
};

using Elector = elector_actor::stateful_pointer<ElectorState>;

std::int64_t system_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::int64_t wall_ms(Elector self) {
  return self->state.cfg.wall_ms();
}

k8s::Callback reply_to(Elector self, caf::atom_value tag) {
  elector_actor me = caf::actor_cast<elector_actor>(self);
  return [me, tag](k8s::Result r) {
    auto p = ResultPtr(std::make_shared<const k8s::Result>(std::move(r)));
    if (tag == lease_atom::value)
      caf::anon_send(me, lease_atom::value, p);
    else if (tag == wrote_atom::value)
      caf::anon_send(me, wrote_atom::value, p);
    else
      caf::anon_send(me, released_atom::value, p);
  };
}

std::int64_t mono_ms(Elector self) {
  return self->state.cfg.fence->now();
}

// Reports the round's verdict: to the fence, the writer and the hooks.
// `renewed`: this round's write succeeded.
void report(Elector self, bool renewed) {
  auto& st = self->state;
  bool leading = st.round.leading;
  if (!leading) st.cfg.fence->revoke();
  auto tell = [&](bool value) {
    if (st.cfg.writer) self->send(st.cfg.writer, leader_atom::value, value);
    for (const leader_sink_actor& sink : st.cfg.leader_sinks) self->send(sink, leader_atom::value, value);
  };
  if (st.leading == leading) {
    if (leading && renewed) tell(true);  // lifts a fence the writer hit
    return;
  }
  st.leading = leading;
  st.cfg.log(model::log_info("leader-election", leading ? "became leader" : "lost leadership")
                 .object("Lease", st.cfg.leader.ns, st.cfg.leader.name)
                 .with("identity", st.cfg.leader.identity));
  tell(leading);
  if (st.cfg.on_change) st.cfg.on_change(leading);
}

void on_lease(Elector self, const k8s::Result& r) {
  auto& st = self->state;
  if (st.releasing) return;
  auto step = k8s::lease::after_read(st.cfg.leader, st.round, r.status, r.body, mono_ms(self), wall_ms(self));
  const k8s::Resource& res = *k8s::resource_for_kind("Lease");
  const auto& lc = st.cfg.leader;
  switch (step.write) {
    case k8s::lease::LeaseWrite::none:
      return report(self, false);
    case k8s::lease::LeaseWrite::create:
      return st.cfg.client->create(res, lc.ns, model::to_json(step.body), reply_to(self, wrote_atom::value));
    case k8s::lease::LeaseWrite::update:
      return st.cfg.client->update(res, lc.ns, lc.name, model::to_json(step.body), reply_to(self, wrote_atom::value));
  }
}

void on_wrote(Elector self, const k8s::Result& r) {
  auto& st = self->state;
  if (st.releasing) return;
  k8s::lease::after_write(st.cfg.leader, st.round, r.ok(), r.body, mono_ms(self));
  if (r.ok()) st.cfg.fence->renewed(st.round.last_renew_ms);
  report(self, r.ok());
}

// Steps down first (the writer stops before the Lease is handed back), then
// PUTs the released Lease; the promise is kept until the API answers.
caf::result<bool> release(Elector self) {
  auto& st = self->state;
  st.releasing = true;
  std::optional<model::Value> out = k8s::lease::step_down(st.cfg.leader, st.round, wall_ms(self));
  report(self, false);
  if (!out) return false;
  const auto& lc = st.cfg.leader;
  st.release_reply = self->make_response_promise<bool>();
  st.cfg.client->update(*k8s::resource_for_kind("Lease"), lc.ns, lc.name, model::to_json(*out),
                        reply_to(self, released_atom::value));
  return st.release_reply;
}

elector_actor::behavior_type elector_behavior(Elector self, ElectorConfig cfg) {
  self->state.cfg = std::move(cfg);
  if (!self->state.cfg.fence)
    self->state.cfg.fence = std::make_shared<core::LeaseFence>(self->state.cfg.leader.renew_deadline);
  if (!self->state.cfg.wall_ms) self->state.cfg.wall_ms = system_ms;
  self->send(self, tick_atom::value);
  return {
      [=](tick_atom) {
        if (self->state.releasing) return;
        const auto& lc = self->state.cfg.leader;
        self->state.cfg.client->get(*k8s::resource_for_kind("Lease"), lc.ns, lc.name,
                                    reply_to(self, lease_atom::value));
        self->delayed_send(self, lc.retry_period, tick_atom::value);
      },
      [=](lease_atom, const ResultPtr& r) { on_lease(self, *r); },
      [=](wrote_atom, const ResultPtr& r) { on_wrote(self, *r); },
      [=](release_atom) -> caf::result<bool> { return release(self); },
      [=](released_atom, const ResultPtr& r) {
        const auto& lc = self->state.cfg.leader;
        if (r->ok())
          self->state.cfg.log(model::log_info("leader-election", "released the Lease").object("Lease", lc.ns, lc.name));
        else
          self->state.cfg.log(model::log_warn("leader-election", "could not release the Lease")
                                  .object("Lease", lc.ns, lc.name)
                                  .with("status", r->status)
                                  .with("error", r->error));
        self->state.release_reply.deliver(r->ok());
      },
      [=](stats_atom) -> bool { return self->state.leading; },
  };
}

}  // namespace

elector_actor spawn_elector(caf::actor_system& sys, ElectorConfig cfg) {
  return sys.spawn(elector_behavior, std::move(cfg));
}

}  // namespace actors
