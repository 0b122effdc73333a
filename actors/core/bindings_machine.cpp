#include "actors/core/bindings_machine.hpp"

#include "actors/core/writer_plan.hpp"
#include "model/parse.hpp"

namespace actors::core {

using model::Value;

namespace {

using BT = BindingsEffect::Type;

struct BindingsCtx {
  BindingsState& st;
  BindingsEffects fx;

  BindingsEffect& add(BT t, const MonitorId& id) {
    fx.push_back(BindingsEffect{t, id});
    return fx.back();
  }
  void log(model::LogEntry e) { add(BT::log, {}).entry = std::move(e); }
};

model::LogEntry bindings_entry(model::LogLevel level, std::string msg, const MonitorId& id) {
  return model::LogEntry(level, "bindings", std::move(msg)).object(id.first, id.second.first, id.second.second);
}

bool bindings_fence_holds(BindingsCtx& c) {
  const auto& fence = c.st.settings.fence;
  if (!fence || fence->holds()) return true;
  if (c.st.leader)
    c.log(model::log_warn("bindings", "not writing: the Lease was last renewed beyond the renew deadline")
              .with("lease_age_ms", fence->age_ms()));
  c.st.leader = false;
  ++c.st.stats.fenced;
  return false;
}

// Agents whose entries stay as read: they exist but have not rendered.
std::vector<RootKey> waiting_agents(const BindingsState& st, const ObservedMonitor& seen) {
  std::vector<RootKey> out;
  if (!seen.bindings.is_array()) return out;
  for (const Value& e : seen.bindings.as_array()) {
    RootKey agent{model::string_at(e, {"namespace"}), model::string_at(e, {"name"})};
    if (our_entry(e) && st.agents.contains(agent) && !st.reported.contains(agent)) out.push_back(agent);
  }
  return out;
}

// Plans the monitor's patch; false when it must stay dirty (busy, or its
// kind's CRD not read yet).
bool plan_monitor(BindingsCtx& c, const MonitorId& id) {
  BindingsState& st = c.st;
  Admission adm = st.kinds[id.first];
  if (adm == Admission::refused) return true;
  auto mw = st.monitors.find(id);
  if (mw == st.monitors.end() || !mw->second.present) return true;
  if (adm == Admission::unknown || mw->second.in_flight || mw->second.retry_scheduled) return false;
  // After a 409 the version as read is stale: wait for the journal's newer one.
  if (!mw->second.conflicted_rv.empty() && mw->second.conflicted_rv == mw->second.seen.resource_version) return false;
  std::map<RootKey, const MonitorBinding*> verdicts;
  if (auto v = st.verdicts.find(id); v != st.verdicts.end())
    for (const auto& [agent, b] : v->second) verdicts.emplace(agent, &b);
  const ObservedMonitor& seen = mw->second.seen;
  Value ours = merged_entries(verdicts, seen, waiting_agents(st, seen), st.settings.now_rfc3339());
  std::optional<Value> body = plan_bindings(seen, ours);
  if (!body) return true;
  if (!bindings_fence_holds(c)) return false;
  mw->second.in_flight = true;
  mw->second.sent_rv = seen.resource_version;
  mw->second.conflicted_rv.clear();
  ++st.stats.patches;
  c.add(BT::patch, id).body = std::move(*body);
  return true;
}

void plan_dirty_monitors(BindingsCtx& c) {
  if (!c.st.synced || !c.st.leader) return;
  for (auto it = c.st.dirty.begin(); it != c.st.dirty.end();)
    it = plan_monitor(c, *it) ? c.st.dirty.erase(it) : std::next(it);
}

// Monitors whose entries name `agent`, as read.
void mark_named(BindingsState& st, const RootKey& agent) {
  for (const auto& [id, mw] : st.monitors)
    if (mw.seen.bindings.is_array())
      for (const Value& e : mw.seen.bindings.as_array())
        if (our_entry(e) && model::string_at(e, {"namespace"}) == agent.first &&
            model::string_at(e, {"name"}) == agent.second)
          st.dirty.insert(id);
}

void observe_monitor(BindingsState& st, const MonitorId& id, const Value& obj) {
  MonitorWrites& mw = st.monitors[id];
  std::uint64_t rv = numeric_resource_version(obj);
  if (mw.present && rv && rv < mw.rv) return;  // older than our own patch's answer
  mw.present = true;
  mw.rv = rv;
  mw.seen.resource_version = model::meta_string(obj, "resourceVersion");
  const Value* gen = model::find_path(obj, {"metadata", "generation"});
  mw.seen.generation = gen && gen->is_int() ? gen->as_int() : 0;
  const Value* b = model::find_path(obj, {"status", "bindings"});
  mw.seen.bindings = b ? *b : Value();
  st.dirty.insert(id);
}

void forget_root(BindingsState& st, const RootKey& root) {
  auto r = st.reported.find(root);
  if (r == st.reported.end()) return;
  for (const MonitorId& id : r->second) {
    auto v = st.verdicts.find(id);
    if (v == st.verdicts.end()) continue;
    v->second.erase(root);
    if (v->second.empty()) st.verdicts.erase(v);
    st.dirty.insert(id);
  }
  st.reported.erase(r);
}

}  // namespace

BindingsState make_bindings(BindingsSettings settings, BindingsEffects& start) {
  BindingsState st;
  st.leader = settings.leader;
  st.settings = std::move(settings);
  if (!st.settings.now_rfc3339) st.settings.now_rfc3339 = [] { return std::string("1970-01-01T00:00:00Z"); };
  for (const std::string& kind : binding_kinds()) {
    st.kinds[kind] = Admission::unknown;
    start.push_back(BindingsEffect{BT::read_crd, {kind, {}}});
  }
  return st;
}

RootVerdicts take_verdicts(const RootKey& root, Effects& fx) {
  RootVerdicts v{root, fx.root_present, fx.rendered, fx.root_valid, std::move(fx.bindings)};
  fx.bindings.clear();
  return v;
}

BindingsEffects on_root_verdicts(BindingsState& st, const RootVerdicts& in) {
  BindingsCtx c{st, {}};
  if (!in.root_present) {
    forget_root(st, in.root);
  } else if (in.rendered && in.root_valid) {
    // Its first render since the start decides the entries kept as read.
    if (!st.reported.contains(in.root)) mark_named(st, in.root);
    std::set<MonitorId>& mine = st.reported[in.root];
    std::set<MonitorId> now;
    for (const MonitorBinding& b : in.bindings) {
      now.insert(b.monitor);
      auto& slot = st.verdicts[b.monitor];
      auto it = slot.find(in.root);
      if (it != slot.end() && it->second == b) continue;
      slot.insert_or_assign(in.root, b);
      st.dirty.insert(b.monitor);
    }
    for (const MonitorId& id : mine)
      if (!now.contains(id)) {
        auto v = st.verdicts.find(id);
        if (v != st.verdicts.end() && v->second.erase(in.root) && v->second.empty()) st.verdicts.erase(v);
        st.dirty.insert(id);
      }
    mine = std::move(now);
  }
  plan_dirty_monitors(c);
  return std::move(c.fx);
}

BindingsEffects on_bindings_event(BindingsState& st, const Event& e) {
  BindingsCtx c{st, {}};
  if (!e.object) return {};
  model::Key key = object_key(*e.object);
  if (e.kind == "GrafanaAgent") {
    if (e.type == EventType::deleted)
      st.agents.erase(key);
    else if (!st.agents.insert(key).second)
      return {};
    mark_named(st, key);
  } else if (is_binding_kind(e.kind)) {
    MonitorId id{e.kind, key};
    if (e.type == EventType::deleted) {
      st.monitors.erase(id);
      st.dirty.erase(id);
      return {};
    }
    observe_monitor(st, id, *e.object);
  } else {
    return {};
  }
  plan_dirty_monitors(c);
  return std::move(c.fx);
}

BindingsEffects on_bindings_synced(BindingsState& st) {
  BindingsCtx c{st, {}};
  st.synced = true;
  plan_dirty_monitors(c);
  return std::move(c.fx);
}

BindingsEffects on_bindings_leader(BindingsState& st, bool leading) {
  BindingsCtx c{st, {}};
  bool was = st.leader;
  st.leader = leading;
  if (leading && !was) plan_dirty_monitors(c);
  return std::move(c.fx);
}

}  // namespace actors::core

namespace actors::core {

namespace {

// A CRD read that failed for a passing reason is tried again after a
// backoff, under the kind's own key (a MonitorId with no name).
MonitorId crd_key(const std::string& kind) {
  return {kind, {}};
}

void schedule_bindings_retry(BindingsCtx& c, const MonitorId& id, unsigned attempt) {
  k8s::SplitMix64 rnd(attempt * 7919 + id.second.second.size());  // deterministic jitter
  c.add(BT::retry, id).delay = c.st.settings.backoff.delay(attempt, rnd);
}

}  // namespace

BindingsEffects on_crd(BindingsState& st, const std::string& kind, const std::string& version, const CallAnswer& a) {
  BindingsCtx c{st, {}};
  if (a.error_class == k8s::ErrorClass::retry_call) {
    schedule_bindings_retry(c, crd_key(kind), 0);
    return std::move(c.fx);
  }
  CrdAdmission adm{false, a.status == 404
                              ? "the CRD is not installed"
                              : "the CRD could not be read: HTTP " + std::to_string(a.status) + " " + a.error};
  if (a.error_class == k8s::ErrorClass::ok) {
    try {
      adm = crd_admits_bindings(model::parse_json(a.body), version);
    } catch (const std::exception& ex) {
      adm = {false, std::string("the CRD could not be parsed: ") + ex.what()};
    }
  }
  st.kinds[kind] = adm.admitted ? Admission::admitted : Admission::refused;
  c.log(model::LogEntry(model::LogLevel::info, "bindings",
                        adm.admitted ? "writing status.bindings of " + kind + " objects"
                                     : "not writing status.bindings of " + kind + " objects: " + adm.reason)
            .with("kind", kind));
  plan_dirty_monitors(c);
  return std::move(c.fx);
}

BindingsEffects on_patch_done(BindingsState& st, const MonitorId& id, const CallAnswer& a) {
  BindingsCtx c{st, {}};
  auto it = st.monitors.find(id);
  if (it == st.monitors.end()) return {};  // deleted meanwhile
  MonitorWrites& mw = it->second;
  mw.in_flight = false;
  using k8s::ErrorClass;
  switch (a.error_class) {
    case ErrorClass::ok:
      mw.attempt = 0;
      ++st.stats.written;
      // The answer is the monitor as written; without one, the watch
      // brings it.
      try {
        Value obj = model::parse_json(a.body);
        if (!model::meta_string(obj, "resourceVersion").empty()) observe_monitor(st, id, obj);
      } catch (const std::exception&) {
      }
      break;
    case ErrorClass::retry_reconcile:
      // Someone wrote the monitor since the version the patch carried; the
      // informer brings theirs (it may already have), and planning again
      // from it keeps their entries.
      ++st.stats.conflicts;
      mw.conflicted_rv = mw.sent_rv;
      st.dirty.insert(id);
      break;
    case ErrorClass::retry_call:
      mw.retry_scheduled = true;
      schedule_bindings_retry(c, id, mw.attempt++);
      return std::move(c.fx);
    case ErrorClass::terminal:
      ++st.stats.errors;
      c.log(bindings_entry(model::LogLevel::error, "status.bindings patch refused", id)
                .with("status", a.status)
                .with("error", a.error));
      break;
  }
  plan_dirty_monitors(c);
  return std::move(c.fx);
}

BindingsEffects on_bindings_retry(BindingsState& st, const MonitorId& id) {
  BindingsCtx c{st, {}};
  if (id.second.second.empty()) {
    c.add(BT::read_crd, id);
    return std::move(c.fx);
  }
  auto it = st.monitors.find(id);
  if (it == st.monitors.end()) return {};
  it->second.retry_scheduled = false;
  st.dirty.insert(id);
  plan_dirty_monitors(c);
  return std::move(c.fx);
}

BindingsStats bindings_stats(const BindingsState& st) {
  BindingsStats s = st.stats;
  s.synced = st.synced;
  s.leader = st.leader;
  s.monitors = st.monitors.size();
  for (const auto& [id, mw] : st.monitors) {
    s.in_flight += mw.in_flight ? 1 : 0;
    s.retrying += mw.retry_scheduled ? 1 : 0;
  }
  return s;
}

}  // namespace actors::core
