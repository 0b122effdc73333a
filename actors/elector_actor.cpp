#include "actors/elector_actor.hpp"

#include <chrono>

#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace actors {

namespace {

using lease_atom = caf::atom_constant<caf::atom("lease")>;
using wrote_atom = caf::atom_constant<caf::atom("wrote")>;

struct ElectorState {
  ElectorConfig cfg;
  core::LeaseObservation seen;
  bool leading = false;
  std::int64_t last_renew_ms = 0;
};

using Elector = caf::stateful_actor<ElectorState>;

std::int64_t mono_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

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
    else
      caf::anon_send(me, wrote_atom::value, p);
  };
}

void set_leading(Elector* self, bool leading) {
  auto& st = self->state;
  if (st.leading == leading) return;
  st.leading = leading;
  if (st.cfg.log)
    st.cfg.log(std::string(leading ? "became leader as " : "lost leadership as ") + st.cfg.leader.identity);
  self->send(st.cfg.writer, leader_atom::value, leading);
  if (st.cfg.on_change) st.cfg.on_change(leading);
}

void check_deadline(Elector* self) {
  auto& st = self->state;
  if (st.leading && mono_ms() - st.last_renew_ms > st.cfg.leader.renew_deadline.count()) set_leading(self, false);
}

void on_lease(Elector* self, const k8s::Result& r) {
  auto& st = self->state;
  std::optional<model::Value> lease;
  if (r.ok()) {
    try {
      lease = model::parse_json(r.body, "lease");
    } catch (const model::ParseError&) {
      return check_deadline(self);
    }
  } else if (r.status != 404) {
    return check_deadline(self);
  }
  auto d = core::decide_lease(st.cfg.leader, lease, st.seen, mono_ms(), core::micro_time(wall_ms()));
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

caf::behavior elector_behavior(Elector* self, ElectorConfig cfg) {
  self->state.cfg = std::move(cfg);
  self->send(self, tick_atom::value);
  return {
      [=](tick_atom) {
        const auto& lc = self->state.cfg.leader;
        self->state.cfg.client->get(*k8s::resource_for_kind("Lease"), lc.ns, lc.name,
                                    reply_to(self, lease_atom::value));
        self->delayed_send(self, lc.retry_period, tick_atom::value);
      },
      [=](lease_atom, ResultPtr r) { on_lease(self, *r); },
      [=](wrote_atom, ResultPtr r) {
        if (r->ok()) {
          self->state.last_renew_ms = mono_ms();
          set_leading(self, true);
        } else {
          check_deadline(self);
        }
      },
      [=](stats_atom) -> bool { return self->state.leading; },
  };
}

}  // namespace

caf::actor spawn_elector(caf::actor_system& sys, ElectorConfig cfg) {
  return sys.spawn(elector_behavior, std::move(cfg));
}

}  // namespace actors
