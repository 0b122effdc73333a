#include "actors/writer_actor.hpp"

#include "actors/writer_internal.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace actors::writer {

namespace {

void plan_root(Actor self, const core::RootKey& key);

}  // namespace

bool fence_holds(Actor self) {
  State& st = self->state;
  if (!st.cfg.fence || st.cfg.fence->holds()) return true;
  if (st.leader && st.cfg.log)
    st.cfg.log("not writing: the Lease was last renewed " + std::to_string(st.cfg.fence->age_ms()) +
               " ms ago, beyond the renew deadline; waiting for the elector");
  st.leader = false;
  ++st.stats.fenced;
  return false;
}

namespace {

// resourceVersions are opaque to clients, but every API server (and
// simcluster) issues increasing integers; 0 when it is not one.
std::uint64_t numeric_rv(const model::Value& obj) {
  std::string rv = core::str_at(obj, {"metadata", "resourceVersion"});
  if (rv.empty() || rv.find_first_not_of("0123456789") != std::string::npos || rv.size() > 19) return 0;
  return std::stoull(rv);
}

// Completions arrive on the client's I/O thread; hand them to the actor.
k8s::Callback completion(Actor self, const core::RootKey& key, std::uint64_t batch) {
  writer_actor me = caf::actor_cast<writer_actor>(self);
  return [me, key, batch](k8s::Result r) {
    caf::anon_send(me, done_atom::value, key, batch, ResultPtr(std::make_shared<const k8s::Result>(std::move(r))));
  };
}

void call(Actor self, const core::RootKey& key, RootWrites& rw, const core::Action& a) {
  k8s::Client& client = *self->state.cfg.client;
  const k8s::Resource* res = k8s::resource_for_kind(a.kind);
  auto cb = completion(self, key, rw.batch);
  if (!res) {
    k8s::Result r;
    r.status = 422;
    r.error = "the operator does not know the API path of kind " + a.kind;
    cb(std::move(r));
    return;
  }
  switch (a.type) {
    case core::ActionType::create:
      client.create(*res, a.ns, model::to_json(a.object), std::move(cb));
      break;
    case core::ActionType::update:  // carries the resourceVersion it was planned from
      client.update(*res, a.ns, a.name, model::to_json(a.object), std::move(cb));
      break;
    case core::ActionType::recreate:  // split into remove + create by run_next
    case core::ActionType::remove:
      client.remove(*res, a.ns, a.name, k8s::Propagation::background, std::move(cb));
      break;
  }
}

void finish_batch(Actor self, const core::RootKey& key, RootWrites& rw, bool ok) {
  rw.in_flight = false;
  rw.queue.clear();
  ++rw.batch;  // completions of the old batch are ignored from now on
  if (ok) {
    rw.attempt = 0;
    rw.write_error.clear();
  }
  report_status(self, key, rw);
  if (rw.replan && !rw.retry_scheduled) {
    rw.replan = false;
    plan_root(self, key);
  }
}

void run_next(Actor self, const core::RootKey& key, RootWrites& rw) {
  if (rw.queue.empty()) return finish_batch(self, key, rw, true);
  if (!fence_holds(self)) {  // the rest of the batch waits for a confirmed leadership
    rw.queue.clear();
    rw.in_flight = false;
    ++rw.batch;
    return;
  }
  core::Action& a = rw.queue.front();
  if (a.type == core::ActionType::recreate) {
    // An immutable field changed: delete, then create from scratch.
    core::Action create = a;
    create.type = core::ActionType::create;
    a.type = core::ActionType::remove;
    rw.queue.insert(rw.queue.begin() + 1, std::move(create));
  }
  call(self, key, rw, rw.queue.front());  // the insert may have moved the queue: `a` can dangle
}

void schedule_retry(Actor self, const core::RootKey& key, RootWrites& rw) {
  if (rw.retry_scheduled) return;
  rw.retry_scheduled = true;
  k8s::SplitMix64 rnd(rw.batch * 7919 + rw.attempt);
  auto delay = self->state.cfg.backoff.delay(rw.attempt++, rnd);
  self->delayed_send(self, delay, retry_atom::value, key);
}

// 409 or 404: the observed copy is stale. Re-read the object, then replan.
void refresh(Actor self, const core::RootKey& key, RootWrites& rw, const core::Action& a) {
  const k8s::Resource* res = k8s::resource_for_kind(a.kind);
  writer_actor me = caf::actor_cast<writer_actor>(self);
  ObjectKey id{a.kind, a.ns, a.name};
  auto rkey = key;
  self->state.cfg.client->get(*res, a.ns, a.name, [me, rkey, id](k8s::Result r) {
    caf::anon_send(me, reread_atom::value, rkey, id, ResultPtr(std::make_shared<const k8s::Result>(std::move(r))));
  });
  rw.in_flight = true;  // until the re-read lands
}

void on_failure(Actor self, const core::RootKey& key, RootWrites& rw, const core::Action& a, const k8s::Result& r) {
  ++self->state.stats.errors;
  std::string what = std::string(core::action_name(a.type)) + " " + describe(a.kind, a.ns, a.name);
  std::string error = what + ": HTTP " + std::to_string(r.status) + (r.error.empty() ? "" : ": " + r.error);
  if (self->state.cfg.log) self->state.cfg.log("failed " + error + " (" + k8s::error_class_name(r.error_class()) + ")");
  // A conflict is routine (someone else wrote first): re-read, not an error to report.
  if (r.error_class() != k8s::ErrorClass::retry_reconcile) rw.write_error = error;
  switch (r.error_class()) {
    case k8s::ErrorClass::retry_reconcile:
      // Always re-read (a stale copy would conflict forever); after three
      // conflicts in a row the replan waits for a backoff.
      rw.queue.clear();
      rw.replan = rw.attempt++ < 3;
      rw.backoff_after_reread = !rw.replan;
      return refresh(self, key, rw, a);
    case k8s::ErrorClass::retry_call:
      finish_batch(self, key, rw, false);
      return schedule_retry(self, key, rw);
    default:  // terminal: report, do not loop
      finish_batch(self, key, rw, false);
  }
}

void on_done(Actor self, const core::RootKey& key, std::uint64_t batch, const k8s::Result& r) {
  auto it = self->state.roots.find(key);
  if (it == self->state.roots.end() || it->second.batch != batch || it->second.queue.empty()) return;
  RootWrites& rw = it->second;
  core::Action a = rw.queue.front();
  rw.queue.erase(rw.queue.begin());
  if (self->state.cfg.on_write) self->state.cfg.on_write(a.kind, core::action_name(a.type), r.status);
  if (!r.ok()) return on_failure(self, key, rw, a, r);
  ++self->state.stats.writes;
  ObjectKey id{a.kind, a.ns, a.name};
  if (a.type == core::ActionType::remove) {
    rw.observed.erase(id);
  } else {
    try {
      rw.observed[id] = model::parse_json(r.body, "response");
    } catch (const model::ParseError&) {
      rw.observed[id] = a.object;
    }
    rw.written_rv[id] = numeric_rv(rw.observed[id]);
    rw.written[id] = core::without_server_fields(rw.observed[id]);
  }
  if (self->state.cfg.log)
    self->state.cfg.log(std::string(core::action_name(a.type)) + " " + describe(a.kind, a.ns, a.name) + ": " +
                        a.reason);
  run_next(self, key, rw);
}

void plan_root(Actor self, const core::RootKey& key) {
  State& st = self->state;
  RootWrites& rw = st.roots[key];
  if (!rw.out || !st.synced || !st.leader || rw.retry_scheduled || !fence_holds(self)) return;
  if (rw.in_flight) {
    rw.replan = true;
    return;
  }
  const core::Effects& fx = rw.out->effects;
  if (!fx.root_present) return;
  if (fx.paused) return report_status(self, key, rw);
  std::vector<model::Value> observed;
  for (const auto& [id, obj] : rw.observed) observed.push_back(obj);
  core::PlanInput in{key, rw.out->uid, &fx.desired, &observed, fx.root_valid, &rw.written, &fx.held};
  core::Plan plan = core::plan_writes(in);
  ++st.stats.plans;
  st.stats.skipped += plan.unchanged;
  if (plan.empty()) return finish_batch(self, key, rw, true);
  rw.queue = std::move(plan.actions);
  rw.in_flight = true;
  run_next(self, key, rw);
}

// An owned object disappeared. Its GrafanaAgent may be being deleted (the
// garbage collector removes dependents, and informers can report that
// before the agent's own deletion): confirm the owner still exists before
// re-creating anything, or the writer would resurrect orphans.
void confirm_owner(Actor self, const core::RootKey& key) {
  writer_actor me = caf::actor_cast<writer_actor>(self);
  self->state.cfg.client->get(*k8s::resource_for_kind("GrafanaAgent"), key.first, key.second, [me, key](k8s::Result r) {
    caf::anon_send(me, owner_atom::value, key, ResultPtr(std::make_shared<const k8s::Result>(std::move(r))));
  });
}

void on_owner(Actor self, const core::RootKey& key, const k8s::Result& r) {
  auto it = self->state.roots.find(key);
  if (it == self->state.roots.end()) return;
  std::string uid;
  if (r.ok()) {
    try {
      model::Value ga = model::parse_json(r.body, "GrafanaAgent");
      uid = core::str_at(ga, {"metadata", "uid"});
    } catch (const model::ParseError&) {
    }
  }
  bool gone = r.status == 404 || (r.ok() && it->second.out && uid != it->second.out->uid);
  if (gone) {
    if (it->second.out && !it->second.out->uid.empty()) self->state.deleted_uids.insert(it->second.out->uid);
    self->state.roots.erase(it);
    return;
  }
  plan_root(self, key);  // the owner lives (or the read failed): restore what was deleted
}

void on_observed(Actor self, const EventPtr& e, const KeySet& owners) {
  ObjectKey id = core::identity(*e->object);
  id = {e->kind, std::get<1>(id), std::get<2>(id)};
  for (const core::RootKey& key : *owners) {
    RootWrites& rw = self->state.roots[key];
    if (e->type != core::EventType::deleted) {
      // An event from before our own write would plan that write again.
      auto w = rw.written_rv.find(id);
      if (w != rw.written_rv.end() && numeric_rv(*e->object) < w->second) continue;
      rw.observed[id] = *e->object;
      plan_root(self, key);
    } else if (rw.observed.erase(id) && rw.out && self->state.synced && self->state.leader) {
      confirm_owner(self, key);
    }
  }
}

void on_reread(Actor self, const core::RootKey& key, ObjectKey id, const k8s::Result& r) {
  auto it = self->state.roots.find(key);
  if (it == self->state.roots.end()) return;
  RootWrites& rw = it->second;
  if (r.ok()) {
    try {
      rw.observed[id] = model::parse_json(r.body, "response");
    } catch (const model::ParseError&) {
    }
  } else if (r.status == 404) {
    rw.observed.erase(id);
  }
  rw.in_flight = false;
  finish_batch(self, key, rw, false);
  if (rw.backoff_after_reread) {
    rw.backoff_after_reread = false;
    schedule_retry(self, key, rw);
  }
}

writer_actor::behavior_type writer_behavior(Actor self, WriterConfig cfg) {
  self->state.cfg = std::move(cfg);
  self->state.leader = self->state.cfg.leader;
  auto plan_all = [self] {
    for (auto& [key, rw] : self->state.roots) plan_root(self, key);
  };
  return {
      [=](desired_atom, RootOutputPtr out) {
        core::RootKey key = out->root;
        if (!out->uid.empty() && self->state.deleted_uids.count(out->uid)) return;
        if (!out->effects.root_present) {
          self->state.roots.erase(key);  // the API server's GC removes what it owned
          return;
        }
        self->state.roots[key].out = std::move(out);
        plan_root(self, key);
      },
      [=](observed_atom, const EventPtr& e, const KeySet& owners) { on_observed(self, e, owners); },
      [=](owner_atom, const core::RootKey& key, const ResultPtr& r) { on_owner(self, key, *r); },
      [=](status_atom, const core::RootKey& key) {
        auto it = self->state.roots.find(key);
        if (it == self->state.roots.end()) return;
        it->second.written_status = model::Value();
        if (!it->second.retry_scheduled) schedule_retry(self, key, it->second);
      },
      [=](gone_atom, const EventPtr& e) {
        const model::Value* md = e->object->find("metadata");
        const model::Value* uid = md ? md->find("uid") : nullptr;
        if (uid && uid->is_string()) self->state.deleted_uids.insert(uid->as_string());
        self->state.roots.erase(core::object_key(*e->object));
      },
      [=](reread_atom, const core::RootKey& key, const ObjectKey& id, const ResultPtr& r) {
        on_reread(self, key, id, *r);
      },
      [=](done_atom, const core::RootKey& key, std::uint64_t batch, const ResultPtr& r) {
        on_done(self, key, batch, *r);
      },
      [=](retry_atom, const core::RootKey& key) {
        auto it = self->state.roots.find(key);
        if (it == self->state.roots.end()) return;
        it->second.retry_scheduled = false;
        plan_root(self, key);
      },
      [=](synced_atom) {
        // Every selector has forwarded what the informers listed.
        if (++self->state.synced_seen < self->state.cfg.sync_sources) return;
        self->state.synced = true;
        plan_all();
      },
      [=](leader_atom, bool leader) {
        bool was = self->state.leader;
        self->state.leader = leader;
        if (leader && !was) plan_all();  // the elector re-confirms on every renew
      },
      [=](stats_atom) -> WriterStats {
        WriterStats s = self->state.stats;
        s.synced = self->state.synced;
        s.leader = self->state.leader;
        s.roots = self->state.roots.size();
        for (const auto& [key, rw] : self->state.roots) {
          s.in_flight += rw.in_flight ? 1 : 0;
          s.retrying += rw.retry_scheduled ? 1 : 0;
        }
        return s;
      },
  };
}

}  // namespace

}  // namespace actors::writer

namespace actors {

writer_actor spawn_writer(caf::actor_system& sys, WriterConfig cfg) {
  return sys.spawn(writer::writer_behavior, std::move(cfg));
}

}  // namespace actors
