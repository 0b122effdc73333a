#include "actors/core/writer_machine.hpp"

#include <algorithm>
#include <utility>

#include "actors/core/status.hpp"
#include "model/object_fields.hpp"
#include "model/parse.hpp"
#include "model/sha256.hpp"

namespace actors::core {

namespace {

struct Ctx {
  WriterState& st;
  WriterEffects fx;

  WriterEffect& add(WriterEffect::Type t, const RootKey& root) {
    fx.push_back(WriterEffect{t, root});
    return fx.back();
  }
  void log(model::LogEntry e) { add(WriterEffect::Type::log, {}).entry = std::move(e); }
};

// Counts the open reconcile of `rw`, once.
void settle(Ctx& c, const RootKey& key, RootWrites& rw, ReconcileOutcome outcome) {
  if (!rw.reconcile_open) return;
  rw.reconcile_open = false;
  WriterEffect& fx = c.add(WriterEffect::Type::reconciled, key);
  fx.outcome = outcome;
  fx.seconds = rw.out ? rw.out->render_seconds : 0;
}

// "created", "updated", "recreated", "deleted".
std::string done_name(ActionType t) {
  std::string name = action_name(t);
  return name.back() == 'e' ? name + "d" : name + "ed";
}

// A conflict is routine, a call that will be retried a warning, and a
// terminal error one the GrafanaAgent's status reports.
model::LogLevel failure_level(k8s::ErrorClass c) {
  if (c == k8s::ErrorClass::retry_reconcile) return model::LogLevel::info;
  return c == k8s::ErrorClass::retry_call ? model::LogLevel::warn : model::LogLevel::error;
}

model::LogEntry write_entry(model::LogLevel level, std::string msg, const RootKey& root, const Action& a) {
  return model::LogEntry(level, "writer", std::move(msg))
      .object(a.kind, a.ns, a.name)
      .with("grafanaagent", root.first + "/" + root.second);
}

// False, and the writer stands down until on_leader, when a fence is set
// and the last Lease renew is older than the renew deadline.
bool fence_holds(Ctx& c) {
  const auto& fence = c.st.settings.fence;
  if (!fence || fence->holds()) return true;
  if (c.st.leader && fence->closed())
    c.log(model::log_info("writer", "not writing: the operator is stopping"));
  else if (c.st.leader)
    c.log(model::log_warn("writer",
                          "not writing: the Lease was last renewed beyond the renew deadline; waiting for the elector")
              .with("lease_age_ms", fence->age_ms()));
  c.st.leader = false;
  ++c.st.stats.fenced;
  return false;
}

StatusInput status_input(const RootWrites& rw) {
  const Effects& fx = rw.out->effects;
  StatusInput in;
  in.generation = rw.out->generation;
  in.root_valid = fx.root_valid;
  in.paused = fx.paused;
  in.counts = fx.counts;
  in.problems = fx.problems;
  in.write_error = rw.write_error;
  std::vector<const model::Value*> observed;
  observed.reserve(rw.observed.size());
  for (const auto& [id, obj] : rw.observed) observed.push_back(obj.get());
  in.not_ready = workloads_not_ready(observed);
  return in;
}

// An Event on the GrafanaAgent. Its name is derived from what it says and
// the generation, so the same news is reported once: a repeat (by this
// replica after a failed status patch, or by a new leader) is a 409.
model::Value agent_event(const RootKey& key, const RootOutput& out, const std::string& type, const std::string& reason,
                         const std::string& message, const std::string& now) {
  std::string digest = model::sha256_hex(reason + "\n" + message + "\n" + std::to_string(out.generation));
  return model::Value::obj(
      {{"apiVersion", "v1"},
       {"kind", "Event"},
       {"metadata", model::Value::obj({{"name", key.second + "." + digest.substr(0, 16)}, {"namespace", key.first}})},
       {"involvedObject", model::Value::obj({{"apiVersion", "monitoring.grafana.com/v1alpha1"},
                                             {"kind", "GrafanaAgent"},
                                             {"namespace", key.first},
                                             {"name", key.second},
                                             {"uid", out.uid}})},
       {"reason", reason},
       {"message", message},
       {"type", type},
       {"count", 1},
       {"source", model::Value::obj({{"component", "agent-operator"}})},
       {"firstTimestamp", now},
       {"lastTimestamp", now}});
}

void add_event(Ctx& c, const RootKey& key, model::Value event) {
  c.add(WriterEffect::Type::event, key).body = std::move(event);
  ++c.st.stats.events;
}

// A Normal Event when spec.paused turns true (Paused) or false again
// (Resumed), judged from the status we last wrote or read, so a new leader
// that finds the status already saying Paused raises none.
void report_pause(Ctx& c, const RootKey& key, RootWrites& rw, const model::Value& base, const std::string& now) {
  const model::Value* before = find_condition(base, "Reconciled");
  bool was_paused = before && model::string_at(*before, {"reason"}) == "Paused";
  bool paused = rw.out->effects.paused;
  if (paused == was_paused) return;
  if (paused)
    add_event(c, key,
              agent_event(key, *rw.out, "Normal", "Paused", "spec.paused is true: nothing is applied or pruned", now));
  else
    add_event(c, key, agent_event(key, *rw.out, "Normal", "Resumed", "spec.paused is false: applying again", now));
}

// A Warning Event when Reconciled is False for a failure; its message
// names the failing resources (failure_event_message).
void report_failure(Ctx& c, const RootKey& key, RootWrites& rw, const model::Value& status, const std::string& now) {
  const model::Value* rec = find_condition(status, "Reconciled");
  if (!rec || model::string_at(*rec, {"status"}) != "False") return;
  std::string reason = model::string_at(*rec, {"reason"});
  if (reason == "Paused") return;  // a Normal Event (report_pause)
  std::string message = failure_event_message(status_input(rw), reason, model::string_at(*rec, {"message"}));
  std::string signature = reason + "|" + message;
  if (signature == rw.last_event) return;
  rw.last_event = signature;
  add_event(c, key, agent_event(key, *rw.out, "Warning", reason, message, now));
}

// After a batch: the status patch and the Events it calls for.
void report_status(Ctx& c, const RootKey& key, RootWrites& rw) {
  WriterState& st = c.st;
  if (!rw.out || !rw.out->effects.root_present || !st.settings.write_status || !st.leader || !fence_holds(c)) return;
  if (rw.status_tag) {
    rw.status_waiting = true;
    return;
  }
  const model::Value& base = rw.written_status.is_null() ? rw.out->previous_status : rw.written_status;
  std::string now = st.settings.now_rfc3339 ? st.settings.now_rfc3339() : "";
  model::Value status = agent_status(status_input(rw), base, now);
  if (status == rw.written_status || status == rw.out->previous_status) return;
  model::Value before = base;
  rw.written_status = status;
  model::Value patch = model::Value::obj({{"status", status}});
  // A merge patch keeps what it omits: problems that are fixed must be
  // deleted explicitly, or they stay beside Reconciled=True.
  if (!status.find("problems")) patch.find("status")->set("problems", model::Value());
  WriterEffect& fx = c.add(WriterEffect::Type::status_patch, key);
  fx.body = std::move(patch);
  fx.batch = rw.status_tag = ++st.batches;
  ++st.stats.status_writes;
  if (!st.settings.emit_events) return;
  report_pause(c, key, rw, before, now);
  report_failure(c, key, rw, status, now);
}

void plan_root(Ctx& c, const RootKey& key);

void finish_batch(Ctx& c, const RootKey& key, RootWrites& rw, bool ok) {
  rw.in_flight = false;
  rw.queue.clear();
  rw.batch = ++c.st.batches;  // answers of the old batch are ignored from now on
  if (ok) {
    rw.attempt = 0;
    rw.write_error.clear();
    settle(c, key, rw, ReconcileOutcome::success);
  }
  report_status(c, key, rw);
  if (rw.replan && !rw.retry_scheduled) {
    rw.replan = false;
    plan_root(c, key);
  }
}

void run_next(Ctx& c, const RootKey& key, RootWrites& rw) {
  if (rw.queue.empty()) return finish_batch(c, key, rw, true);
  if (!fence_holds(c)) {  // the rest of the batch waits for a confirmed leadership
    rw.queue.clear();
    rw.in_flight = false;
    rw.batch = ++c.st.batches;
    return;
  }
  if (rw.queue.front().type == ActionType::recreate) {
    // An immutable field changed: delete, then create from scratch.
    Action create = rw.queue.front();
    create.type = ActionType::create;
    rw.queue.front().type = ActionType::remove;
    rw.queue.insert(rw.queue.begin() + 1, std::move(create));
  }
  WriterEffect& call = c.add(WriterEffect::Type::call, key);
  call.batch = rw.batch;
  call.action = rw.queue.front();
}

void schedule_retry(Ctx& c, const RootKey& key, RootWrites& rw) {
  if (rw.retry_scheduled) return;
  rw.retry_scheduled = true;
  WriterEffect& r = c.add(WriterEffect::Type::retry, key);
  r.batch = rw.batch;
  r.attempt = rw.attempt++;
  k8s::SplitMix64 rnd(r.batch * 7919 + r.attempt);  // deterministic jitter: replays see the same delays
  r.delay = c.st.settings.backoff.delay(r.attempt, rnd);
}

void on_failure(Ctx& c, const RootKey& key, RootWrites& rw, const Action& a, const CallAnswer& r) {
  ++c.st.stats.errors;
  std::string what = std::string(action_name(a.type)) + " " + model::describe_object(a.kind, a.ns, a.name);
  std::string error = what + ": HTTP " + std::to_string(r.status) + (r.error.empty() ? "" : ": " + r.error);
  c.log(write_entry(failure_level(r.error_class), "write failed", key, a)
            .with("action", action_name(a.type))
            .with("status", r.status)
            .with("error", r.error)
            .with("error_class", k8s::error_class_name(r.error_class)));
  // A conflict is routine (someone else wrote first): re-read, not an error to report.
  bool conflict = r.error_class == k8s::ErrorClass::retry_reconcile;
  if (!conflict) rw.write_error = error;
  settle(c, key, rw, conflict ? ReconcileOutcome::requeue : ReconcileOutcome::error);
  switch (r.error_class) {
    case k8s::ErrorClass::retry_reconcile:
      // Always re-read (a stale copy would conflict forever); after three
      // conflicts in a row the replan waits for a backoff.
      rw.queue.clear();
      rw.replan = rw.attempt++ < 3;
      rw.backoff_after_reread = !rw.replan;
      rw.in_flight = true;  // until the re-read lands
      c.add(WriterEffect::Type::reread, key).id = Identity{a.kind, a.ns, a.name};
      return;
    case k8s::ErrorClass::retry_call:
      finish_batch(c, key, rw, false);
      return schedule_retry(c, key, rw);
    default:  // terminal: report, do not loop
      finish_batch(c, key, rw, false);
  }
}

void plan_root(Ctx& c, const RootKey& key) {
  WriterState& st = c.st;
  RootWrites& rw = st.roots[key];
  if (!rw.out || !st.synced || !st.leader || rw.retry_scheduled || !fence_holds(c)) return;
  if (rw.in_flight) {
    rw.replan = true;
    return;
  }
  const Effects& fx = rw.out->effects;
  if (!fx.root_present) return;
  if (fx.paused) {
    settle(c, key, rw, ReconcileOutcome::success);
    return report_status(c, key, rw);
  }
  PlanInput in{key,         rw.out->uid, fx.desired.get(), nullptr,     fx.root_valid,
               &rw.written, &fx.held,    &rw.hashes,       &rw.observed};
  Plan plan = plan_writes(in);
  ++st.stats.plans;
  st.stats.skipped += plan.unchanged;
  if (plan.empty()) return finish_batch(c, key, rw, true);
  rw.reconcile_open = true;  // a drift repair counts as a reconcile too
  rw.queue = std::move(plan.actions);
  rw.in_flight = true;
  // Tags come from one counter for all roots: a root forgotten and created
  // again (its GrafanaAgent re-created) starts afresh, and per-root numbers
  // would let the old generation's late answers pass for the new batch's.
  rw.batch = ++st.batches;
  run_next(c, key, rw);
}

void plan_all(Ctx& c) {
  for (auto& [key, rw] : c.st.roots) plan_root(c, key);
}

bool owned_by_uid(const model::Value& obj, const std::string& uid) {
  const model::Value* refs = model::find_path(obj, {"metadata", "ownerReferences"});
  if (!refs || !refs->is_array()) return false;
  return std::any_of(refs->as_array().begin(), refs->as_array().end(),
                     [&](const model::Value& r) { return model::string_at(r, {"uid"}) == uid; });
}

// Forgets what the writer knew of GrafanaAgent `uid` under `key` (the API
// server's GC removes what it owned), but not what a newer GrafanaAgent of
// the same name already has: its output and its owned objects' events come
// through other actors than the old one's deletion, may reach the writer
// first, and would not come again (a Service of the new one stayed, never
// pruned, until a restart). An empty uid forgets the whole root.
void forget_generation(WriterState& st, const RootKey& key, const std::string& uid) {
  auto it = st.roots.find(key);
  if (it == st.roots.end()) return;
  auto& observed = it->second.observed;
  if (!uid.empty() && it->second.out && it->second.out->uid != uid) {  // the newer one's output is here
    std::erase_if(observed, [&](const auto& o) { return owned_by_uid(*o.second, uid); });
    return;
  }
  RootWrites newer;
  if (!uid.empty())
    for (auto& [id, obj] : observed)
      if (!owned_by_uid(*obj, uid)) newer.observed.emplace(id, std::move(obj));
  if (newer.observed.empty())
    st.roots.erase(it);
  else
    it->second = std::move(newer);
}

// The GrafanaAgent's status as another leader wrote it, seen while this
// replica stands by: the base of its first report once it leads, so a
// condition already reported keeps its lastTransitionTime and is not
// patched again. Status-only changes bring the writer no new RootOutput, so
// out->previous_status can be older. A leader keeps its own record: the
// informer may still deliver the echo of an earlier patch of its own.
void note_agent_status(WriterState& st, const Event& e, const std::set<RootKey>& owners) {
  if (st.leader || e.type == EventType::deleted || !e.object) return;
  std::string uid = model::string_at(*e.object, {"metadata", "uid"});
  for (const RootKey& key : owners) {
    auto it = st.roots.find(key);
    if (it == st.roots.end() || !it->second.out || it->second.out->uid != uid) continue;
    const model::Value* status = e.object->find("status");
    it->second.written_status = status ? *status : model::Value();
  }
}

}  // namespace

const char* outcome_name(ReconcileOutcome o) {
  switch (o) {
    case ReconcileOutcome::success:
      return "success";
    case ReconcileOutcome::requeue:
      return "requeue";
    case ReconcileOutcome::error:
      return "error";
  }
  return "?";
}

WriterState make_writer(WriterSettings settings) {
  WriterState st;
  st.leader = settings.leader;
  st.settings = std::move(settings);
  return st;
}

WriterEffects on_desired(WriterState& st, RootOutputPtr out) {
  Ctx c{st, {}};
  RootKey key = out->root;
  if (!out->uid.empty() && st.deleted_uids.count(out->uid)) return {};
  if (!out->effects.root_present) {
    forget_generation(st, key, out->uid);
    return {};
  }
  RootWrites& rw = st.roots[key];
  rw.hashes = config_hashes(*out->effects.desired);
  rw.out = std::move(out);
  rw.reconcile_open = true;
  plan_root(c, key);
  return std::move(c.fx);
}

WriterEffects on_call_done(WriterState& st, const RootKey& key, std::uint64_t batch, const CallAnswer& r) {
  Ctx c{st, {}};
  auto it = st.roots.find(key);
  if (it == st.roots.end() || it->second.batch != batch || it->second.queue.empty()) return {};
  RootWrites& rw = it->second;
  Action a = std::move(rw.queue.front());
  rw.queue.erase(rw.queue.begin());
  WriterEffect& wrote = c.add(WriterEffect::Type::wrote, key);
  // Metrics read the kind and the verb; the object stays out of the copy.
  wrote.action = Action{a.type, a.kind, a.ns, a.name, {}, {}};
  wrote.status = r.status;
  if (r.error_class != k8s::ErrorClass::ok) {
    on_failure(c, key, rw, a, r);
    return std::move(c.fx);
  }
  ++st.stats.writes;
  Identity id{a.kind, a.ns, a.name};
  if (a.type == ActionType::remove) {
    rw.observed.erase(id);
    rw.written.erase(id);  // re-created later, it is new, not "deleted by someone else"
  } else {
    // The answer stands for the object until the informer's echo replaces
    // it with the shared tree.
    SharedObject answer;
    try {
      answer = make_object(model::parse_json(r.body, "response"));
    } catch (const model::ParseError&) {
      answer = make_object(a.object);
    }
    rw.written_rv[id] = numeric_resource_version(*answer);
    rw.written[id] = written_record(*answer, a.object);
    observe_answer(rw.observed, id, std::move(answer));
  }
  model::LogEntry done = write_entry(model::LogLevel::info, done_name(a.type), key, a);
  if (!a.reason.empty()) done.with("reason", a.reason);
  c.log(std::move(done));
  run_next(c, key, rw);
  return std::move(c.fx);
}

// An owned object disappeared. Its GrafanaAgent may be being deleted (the
// garbage collector removes dependents, and informers can report that
// before the agent's own deletion): confirm the owner still exists before
// re-creating anything, or the writer would resurrect orphans.
WriterEffects on_observed(WriterState& st, const Event& e, const std::set<RootKey>& owners) {
  if (e.kind == "GrafanaAgent") {
    note_agent_status(st, e, owners);
    return {};
  }
  Ctx c{st, {}};
  Identity id = identity(*e.object);
  id = {e.kind, std::get<1>(id), std::get<2>(id)};
  for (const RootKey& key : owners) {
    RootWrites& rw = st.roots[key];
    // An event from before our own write (the echo of an earlier write, or
    // of our delete before a re-create) would plan that write again. One
    // without a numeric resourceVersion cannot be judged and is taken as new.
    auto w = rw.written_rv.find(id);
    std::uint64_t rv = numeric_resource_version(*e.object);
    if (w != rw.written_rv.end() && rv > 0 && rv < w->second) continue;
    if (e.type != EventType::deleted) {
      rw.observed[id] = e.object;
      plan_root(c, key);
    } else if (rw.observed.erase(id) && rw.out && st.synced && st.leader) {
      c.add(WriterEffect::Type::confirm_owner, key).uid = rw.out->uid;
    }
  }
  return std::move(c.fx);
}

WriterEffects on_owner(WriterState& st, const RootKey& key, const std::string& asked, const CallAnswer& r) {
  Ctx c{st, {}};
  auto it = st.roots.find(key);
  if (it == st.roots.end()) return {};
  std::string uid;
  if (r.error_class == k8s::ErrorClass::ok) {
    try {
      uid = model::string_at(model::parse_json(r.body, "GrafanaAgent"), {"metadata", "uid"});
    } catch (const model::ParseError&) {
    }
  }
  bool gone = r.status == 404 || (r.error_class == k8s::ErrorClass::ok && uid != asked);
  // The answer can arrive after the agent was deleted and re-created and
  // the new generation's output is here: a 404 read before the re-create
  // says nothing about it, and blacklisting its uid would stop its writes.
  bool current = it->second.out && it->second.out->uid == asked;
  if (gone && !asked.empty()) st.deleted_uids.insert(asked);
  if (gone && current) {
    // Objects of a newer generation (made by another leader) stay known.
    forget_generation(st, key, asked);
    return {};
  }
  if (it->second.out) plan_root(c, key);  // the owner lives (or the read failed): restore what was deleted
  return std::move(c.fx);
}

WriterEffects on_reread(WriterState& st, const RootKey& key, const Identity& id, const CallAnswer& r) {
  Ctx c{st, {}};
  auto it = st.roots.find(key);
  if (it == st.roots.end()) return {};
  RootWrites& rw = it->second;
  if (r.error_class == k8s::ErrorClass::ok) {
    try {
      SharedObject answer = make_object(model::parse_json(r.body, "response"));
      rw.written_rv[id] = numeric_resource_version(*answer);  // older informer events are stale now
      observe_answer(rw.observed, id, std::move(answer));
    } catch (const model::ParseError&) {
    }
  } else if (r.status == 404) {
    rw.observed.erase(id);
    rw.written_rv.erase(id);
  }
  rw.in_flight = false;
  finish_batch(c, key, rw, false);
  if (rw.backoff_after_reread) {
    rw.backoff_after_reread = false;
    schedule_retry(c, key, rw);
  }
  return std::move(c.fx);
}

WriterEffects on_gone(WriterState& st, const Event& e) {
  std::string uid = model::string_at(*e.object, {"metadata", "uid"});
  if (!uid.empty()) st.deleted_uids.insert(uid);
  forget_generation(st, object_key(*e.object), uid);
  return {};
}

WriterEffects on_status(WriterState& st, const RootKey& key, std::uint64_t tag, bool ok) {
  Ctx c{st, {}};
  auto it = st.roots.find(key);
  if (it == st.roots.end() || it->second.status_tag != tag) return {};
  RootWrites& rw = it->second;
  rw.status_tag = 0;
  bool waiting = std::exchange(rw.status_waiting, false);
  if (!ok) {
    rw.written_status = model::Value();  // so the next report tries again
    schedule_retry(c, key, rw);
  } else if (waiting) {
    report_status(c, key, rw);
  }
  return std::move(c.fx);
}

WriterEffects on_retry(WriterState& st, const RootKey& key) {
  Ctx c{st, {}};
  auto it = st.roots.find(key);
  if (it == st.roots.end()) return {};
  it->second.retry_scheduled = false;
  plan_root(c, key);
  return std::move(c.fx);
}

WriterEffects on_synced(WriterState& st) {
  Ctx c{st, {}};
  // Every selector has forwarded what the informers listed.
  if (++st.synced_seen < st.settings.sync_sources) return {};
  st.synced = true;
  plan_all(c);
  return std::move(c.fx);
}

WriterEffects on_leader(WriterState& st, bool leading) {
  Ctx c{st, {}};
  bool was = st.leader;
  st.leader = leading;
  if (leading && !was) plan_all(c);  // the elector re-confirms on every renew
  return std::move(c.fx);
}

WriterStats writer_stats(const WriterState& st) {
  WriterStats s = st.stats;
  s.synced = st.synced;
  s.leader = st.leader;
  s.roots = st.roots.size();
  for (const auto& [key, rw] : st.roots) {
    s.in_flight += rw.in_flight ? 1 : 0;
    s.retrying += rw.retry_scheduled ? 1 : 0;
  }
  return s;
}

}  // namespace actors::core
