#include "actors/elector_actor.hpp"

#include <chrono>

#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace actors {

namespace {

using lease_atom = caf::atom_constant<caf::atom("lease")>;
using wrote_atom = caf::atom_constant<caf::atom("wrote")>;
using released_atom = caf::atom_constant<caf::atom("released")>;

struct ElectorState {
  ElectorConfig cfg;
  core::LeaseObservation seen;
  bool leading = false;
  std::int64_t last_renew_ms = 0;
  std::int64_t renew_sent_ms = 0;     // when the write in flight was sent
  std::optional<model::Value> lease;  // as last read or written (its resourceVersion)
  bool releasing = false;             // shutting down: no more rounds
  caf::response_promise release_reply;
};

using Elector = caf::stateful_actor<ElectorState>;

std::int64_t wall_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

k8s::Callback reply_to(Elector* self, caf::atom_value tag) {
  caf::actor me = caf::actor_cast<caf::actor>(self);
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

std::int64_t mono_ms(Elector* self) {
  return self->state.cfg.fence->now();
}

void set_leading(Elector* self, bool leading) {
  auto& st = self->state;
  if (!leading) st.cfg.fence->revoke();
  if (st.leading == leading) {
    if (leading) self->send(st.cfg.writer, leader_atom::value, true);  // lifts a fence the writer hit
    return;
  }
  st.leading = leading;
  if (st.cfg.log)
    st.cfg.log(std::string(leading ? "became leader as " : "lost leadership as ") + st.cfg.leader.identity);
  self->send(st.cfg.writer, leader_atom::value, leading);
  if (st.cfg.on_change) st.cfg.on_change(leading);
}

void check_deadline(Elector* self) {
  auto& st = self->state;
  if (st.leading && mono_ms(self) - st.last_renew_ms > st.cfg.leader.renew_deadline.count()) set_leading(self, false);
}

void on_lease(Elector* self, const k8s::Result& r) {
  auto& st = self->state;
  std::optional<model::Value> lease;
  if (st.releasing) return;
  if (r.ok()) {
    try {
      lease = model::parse_json(r.body, "lease");
    } catch (const model::ParseError&) {
      return check_deadline(self);
    }
  } else if (r.status != 404) {
    return check_deadline(self);
  }
  st.lease = lease;
  auto d = core::decide_lease(st.cfg.leader, lease, st.seen, mono_ms(self), core::micro_time(wall_ms()));
  st.renew_sent_ms = mono_ms(self);
  const k8s::Resource& res = *k8s::resource_for_kind("Lease");
  const auto& lc = st.cfg.leader;
  switch (d.step) {
    case core::LeaseStep::wait:
      return set_leading(self, false);
    case core::LeaseStep::create:
      return st.cfg.client->create(res, lc.ns, model::to_json(d.lease), reply_to(self, wrote_atom::value));
    case core::LeaseStep::acquire:
    case core::LeaseStep::renew:
      return st.cfg.client->update(res, lc.ns, lc.name, model::to_json(d.lease), reply_to(self, wrote_atom::value));
  }
}

void on_wrote(Elector* self, const k8s::Result& r) {
  auto& st = self->state;
  if (st.releasing) return;
  if (!r.ok()) return check_deadline(self);
  try {
    st.lease = model::parse_json(r.body, "lease");
  } catch (const model::ParseError&) {
    st.lease.reset();  // released on shutdown only after the next read
  }
  st.last_renew_ms = st.renew_sent_ms;
  st.cfg.fence->renewed(st.renew_sent_ms);
  set_leading(self, true);
}

// Steps down first (the writer stops before the Lease is handed back), then
// PUTs the released Lease; the promise is kept until the API answers.
caf::result<bool> release(Elector* self) {
  auto& st = self->state;
  st.releasing = true;
  bool was_leading = st.leading;
  set_leading(self, false);
  std::optional<model::Value> out;
  if (was_leading && st.lease) out = core::release_lease(st.cfg.leader, *st.lease, core::micro_time(wall_ms()));
  if (!out) return false;
  const auto& lc = st.cfg.leader;
  st.release_reply = self->make_response_promise();
  st.cfg.client->update(*k8s::resource_for_kind("Lease"), lc.ns, lc.name, model::to_json(*out),
                        reply_to(self, released_atom::value));
  return st.release_reply;
}

caf::behavior elector_behavior(Elector* self, ElectorConfig cfg) {
  self->state.cfg = std::move(cfg);
  if (!self->state.cfg.fence)
    self->state.cfg.fence = std::make_shared<core::LeaseFence>(self->state.cfg.leader.renew_deadline);
  self->send(self, tick_atom::value);
  return {
      [=](tick_atom) {
        if (self->state.releasing) return;
        const auto& lc = self->state.cfg.leader;
        self->state.cfg.client->get(*k8s::resource_for_kind("Lease"), lc.ns, lc.name,
                                    reply_to(self, lease_atom::value));
        self->delayed_send(self, lc.retry_period, tick_atom::value);
      },
      [=](lease_atom, ResultPtr r) { on_lease(self, *r); },
      [=](wrote_atom, ResultPtr r) { on_wrote(self, *r); },
      [=](release_atom) -> caf::result<bool> { return release(self); },
      [=](released_atom, ResultPtr r) {
        if (self->state.cfg.log)
          self->state.cfg.log(r->ok()
                                  ? "released the Lease"
                                  : "could not release the Lease: HTTP " + std::to_string(r->status) + " " + r->error);
        self->state.release_reply.deliver(r->ok());
      },
      [=](stats_atom) -> bool { return self->state.leading; },
  };
}

}  // namespace

caf::actor spawn_elector(caf::actor_system& sys, ElectorConfig cfg) {
  return sys.spawn(elector_behavior, std::move(cfg));
}

}  // namespace actors
