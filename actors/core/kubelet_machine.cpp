#include "actors/core/kubelet_machine.hpp"

#include "actors/core/kubelet_report.hpp"

#include <set>

#include "model/object_fields.hpp"
#include "model/parse.hpp"

namespace actors::core {

namespace {

struct KubeletCtx {
  KubeletState& st;
  WriterEffects fx;

  WriterEffect& add(WriterEffect::Type t) {
    fx.push_back(WriterEffect{t, kubelet_key(st)});
    return fx.back();
  }
  void log(model::LogEntry e) { add(WriterEffect::Type::log).entry = std::move(e); }
};

bool kubelet_fence_holds(KubeletCtx& c) {
  const auto& fence = c.st.settings.fence;
  if (!fence || fence->holds()) return true;
  if (c.st.leader)
    c.log(model::log_warn(kKubeletComponent,
                          "not writing: the Lease renewal is older than the renew deadline; "
                          "waiting for the elector")
              .with("lease_age_ms", fence->age_ms()));
  c.st.leader = false;
  ++c.st.stats.fenced;
  return false;
}

// Our slices that are no longer wanted (fewer Nodes, or an address family gone).
void add_prunes(const KubeletState& st, const std::vector<model::Value>& desired, Plan& plan) {
  std::set<Identity> wanted;
  for (const model::Value& d : desired) wanted.insert(identity(d));
  for (const auto& [id, obj] : st.observed)
    if (std::get<0>(id) == "EndpointSlice" && !wanted.count(id))
      plan.actions.push_back(
          Action{ActionType::remove, std::get<0>(id), std::get<1>(id), std::get<2>(id), *obj, "no longer desired"});
}

void run_next(KubeletCtx& c);

void finish_batch(KubeletCtx& c, bool ok) {
  KubeletState& st = c.st;
  st.in_flight = false;
  st.queue.clear();
  ++st.batch;  // answers of the old batch are ignored from now on
  if (ok) st.attempt = 0;
}

void plan(KubeletCtx& c) {
  KubeletState& st = c.st;
  if (!st.synced || !st.leader || st.retry_scheduled || !kubelet_fence_holds(c)) return;
  if (st.in_flight) {
    st.replan = true;
    return;
  }
  st.replan = false;
  std::vector<model::Value> nodes;
  for (const auto& [name, node] : st.nodes) nodes.push_back(node);
  model::KubeletObjects objs = model::render_kubelet_objects(st.settings.service, nodes);
  st.stats.nodes = nodes.size();
  st.stats.addresses = objs.addresses.size();
  st.stats.skipped = objs.problems.size();
  for (WriterEffect& e : report_kubelet_nodes(st, objs)) c.fx.push_back(std::move(e));
  std::vector<model::Value> desired = objs.all();
  PlanInput in{kubelet_key(st), "", &desired, nullptr, false, &st.written, nullptr, nullptr, &st.observed};
  Plan p = plan_writes(in);
  add_prunes(st, desired, p);
  ++st.stats.plans;
  st.stats.unchanged += p.unchanged;
  if (p.empty()) return;
  st.queue = std::move(p.actions);
  st.in_flight = true;
  run_next(c);
}

void run_next(KubeletCtx& c) {
  KubeletState& st = c.st;
  if (st.queue.empty()) {
    finish_batch(c, true);
    st.last_error.clear();
    if (st.replan && !st.retry_scheduled) {
      st.replan = false;
      plan(c);
    }
    return;
  }
  if (!kubelet_fence_holds(c)) return finish_batch(c, false);  // the rest waits for a confirmed leadership
  if (st.queue.front().type == ActionType::recreate) {
    // An immutable field (a Service's clusterIP) changed: delete, then create.
    Action create = st.queue.front();
    create.type = ActionType::create;
    st.queue.front().type = ActionType::remove;
    st.queue.insert(st.queue.begin() + 1, std::move(create));
  }
  WriterEffect& call = c.add(WriterEffect::Type::call);
  call.batch = st.batch;
  call.action = st.queue.front();
}

void schedule_retry(KubeletCtx& c) {
  KubeletState& st = c.st;
  if (st.retry_scheduled) return;
  st.retry_scheduled = true;
  WriterEffect& r = c.add(WriterEffect::Type::retry);
  r.batch = st.batch;
  r.attempt = st.attempt++;
  k8s::SplitMix64 rnd(r.batch * 7919 + r.attempt);  // deterministic jitter: replays see the same delays
  r.delay = st.settings.backoff.delay(r.attempt, rnd);
}

void on_failure(KubeletCtx& c, const Action& a, const CallAnswer& r) {
  KubeletState& st = c.st;
  ++st.stats.errors;
  std::string error = std::string(action_name(a.type)) + " " + model::describe_object(a.kind, a.ns, a.name) +
                      ": HTTP " + std::to_string(r.status) + (r.error.empty() ? "" : ": " + r.error);
  auto failed = [&](model::LogLevel level, std::string msg) {
    return model::LogEntry(level, kKubeletComponent, std::move(msg))
        .object(a.kind, a.ns, a.name)
        .with("action", action_name(a.type))
        .with("status", r.status)
        .with("error", r.error)
        .with("error_class", k8s::error_class_name(r.error_class));
  };
  switch (r.error_class) {
    case k8s::ErrorClass::retry_reconcile:
      // Someone else wrote first, or the object is not what we last saw:
      // re-read it; after three in a row the replan waits for a backoff.
      c.log(failed(model::LogLevel::info, "write conflicted; re-reading the object"));
      st.queue.clear();
      st.replan = st.attempt++ < 3;
      st.backoff_after_reread = !st.replan;
      c.add(WriterEffect::Type::reread).id = Identity{a.kind, a.ns, a.name};
      return;  // still in flight until the re-read lands
    case k8s::ErrorClass::retry_call:
      c.log(failed(model::LogLevel::warn, "write failed; retrying after a backoff"));
      finish_batch(c, false);
      return schedule_retry(c);
    default:  // terminal: the request itself is refused; say so once, do not loop
      if (error != st.last_error)
        c.log(failed(model::LogLevel::error, "write refused; not retrying until the Nodes or objects change"));
      st.last_error = error;
      finish_batch(c, false);
  }
}

}  // namespace

KubeletState make_kubelet(KubeletSettings settings) {
  KubeletState st;
  st.leader = settings.leader;
  st.settings = std::move(settings);
  return st;
}

RootKey kubelet_key(const KubeletState& st) {
  return {st.settings.service.ns, st.settings.service.name};
}

namespace {

// True when the event changed what the kubelet objects are rendered from.
bool fold_node(KubeletState& st, const Event& e) {
  std::string name = model::meta_string(*e.object, "name");
  if (e.type == EventType::deleted) return st.nodes.erase(name) > 0;
  model::Value node = model::trim_node(*e.object);
  node.find("metadata")->erase("resourceVersion");  // a heartbeat alone changes nothing
  auto it = st.nodes.find(name);
  if (it != st.nodes.end() && it->second == node) return false;
  st.nodes[name] = std::move(node);
  return true;
}

bool fold_object(KubeletState& st, const Event& e) {
  const model::Value& obj = *e.object;
  Identity id{e.kind, model::meta_string(obj, "namespace"), model::meta_string(obj, "name")};
  // An event from before our own write (or re-read) would plan that write again.
  auto w = st.written_rv.find(id);
  if (w != st.written_rv.end() && numeric_resource_version(obj) < w->second) return false;
  if (e.type == EventType::deleted) return st.observed.erase(id) > 0;
  st.observed[id] = e.object;
  return true;
}

}  // namespace

WriterEffects on_kubelet_event(KubeletState& st, const Event& e) {
  if (!e.object) return {};
  bool changed = false;
  if (e.kind == "Node")
    changed = fold_node(st, e);
  else if (model::is_kubelet_object(st.settings.service, e.kind, *e.object))
    changed = fold_object(st, e);
  if (!changed) return {};
  KubeletCtx c{st, {}};
  plan(c);
  return std::move(c.fx);
}

WriterEffects on_kubelet_synced(KubeletState& st) {
  KubeletCtx c{st, {}};
  st.synced = true;
  plan(c);
  return std::move(c.fx);
}

WriterEffects on_kubelet_leader(KubeletState& st, bool leading) {
  KubeletCtx c{st, {}};
  bool was = st.leader;
  st.leader = leading;
  if (leading && !was) plan(c);  // the elector re-confirms on every renew
  return std::move(c.fx);
}

WriterEffects on_kubelet_call_done(KubeletState& st, std::uint64_t batch, const CallAnswer& r) {
  if (batch != st.batch || st.queue.empty()) return {};
  KubeletCtx c{st, {}};
  Action a = st.queue.front();
  st.queue.erase(st.queue.begin());
  WriterEffect& wrote = c.add(WriterEffect::Type::wrote);
  wrote.action = a;
  wrote.status = r.status;
  if (r.error_class != k8s::ErrorClass::ok) {
    on_failure(c, a, r);
    return std::move(c.fx);
  }
  ++st.stats.writes;
  Identity id{a.kind, a.ns, a.name};
  if (a.type == ActionType::remove) {
    st.observed.erase(id);
    st.written.erase(id);  // re-created later, it is new, not "deleted by someone else"
  } else {
    SharedObject answer;
    try {
      answer = make_object(model::parse_json(r.body, "response"));
    } catch (const model::ParseError&) {
      answer = make_object(a.object);
    }
    st.written_rv[id] = numeric_resource_version(*answer);
    st.written[id] = written_record(*answer, a.object);
    observe_answer(st.observed, id, std::move(answer));
  }
  const char* done = a.type == ActionType::create ? "created" : a.type == ActionType::remove ? "deleted" : "updated";
  model::LogEntry entry = model::log_info(kKubeletComponent, done).object(a.kind, a.ns, a.name);
  if (!a.reason.empty()) entry.with("reason", a.reason);  // none for a new object
  c.log(std::move(entry));
  run_next(c);
  return std::move(c.fx);
}

WriterEffects on_kubelet_reread(KubeletState& st, const Identity& id, const CallAnswer& r) {
  KubeletCtx c{st, {}};
  if (r.error_class == k8s::ErrorClass::ok) {
    try {
      SharedObject answer = make_object(model::parse_json(r.body, "response"));
      st.written_rv[id] = numeric_resource_version(*answer);  // older informer events are stale now
      observe_answer(st.observed, id, std::move(answer));
    } catch (const model::ParseError&) {
    }
  } else if (r.status == 404) {
    st.observed.erase(id);
    st.written_rv.erase(id);
  }
  finish_batch(c, false);
  if (st.backoff_after_reread) {
    st.backoff_after_reread = false;
    schedule_retry(c);
  } else if (st.replan) {
    st.replan = false;
    plan(c);
  }
  return std::move(c.fx);
}

WriterEffects on_kubelet_retry(KubeletState& st) {
  KubeletCtx c{st, {}};
  st.retry_scheduled = false;
  plan(c);
  return std::move(c.fx);
}

KubeletStats kubelet_stats(const KubeletState& st) {
  KubeletStats s = st.stats;
  s.synced = st.synced;
  s.leader = st.leader;
  s.in_flight = st.in_flight;
  s.retrying = st.retry_scheduled;
  return s;
}

}  // namespace actors::core
