#include "actors/core/root_state.hpp"

#include <algorithm>
#include <cstdio>

#include "actors/core/writer_plan.hpp"
#include "model/object_fields.hpp"
#include "model/size_limits.hpp"

namespace actors::core {
namespace {

using model::Value;

template <class Table>
void move_table(Table& from, Table& to) {
  for (auto& [k, v] : from) to[k] = std::move(v);
}

void merge_into(model::Inventory& from, model::Inventory& to) {
  move_table(from.agents, to.agents);
  move_table(from.metrics_instances, to.metrics_instances);
  move_table(from.logs_instances, to.logs_instances);
  move_table(from.pod_logs, to.pod_logs);
  move_table(from.integrations, to.integrations);
  move_table(from.metrics_integrations, to.metrics_integrations);
  move_table(from.integration_monitors, to.integration_monitors);
  move_table(from.service_monitors, to.service_monitors);
  move_table(from.pod_monitors, to.pod_monitors);
  move_table(from.probes, to.probes);
  move_table(from.secrets, to.secrets);
  move_table(from.config_maps, to.config_maps);
  move_table(from.namespaces, to.namespaces);
}

bool is_member(const std::string& kind) {
  const auto& kinds = selected_kinds();
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

// The inventory's own tree for `id` (monitors and Secrets), or nullptr.
const ObjectPtr* inventory_tree(const model::Inventory& inv, const ObjectId& id) {
  auto tree = [&](const auto& table) -> const ObjectPtr* {
    auto it = table.find(id.second);
    return it != table.end() && it->second.tree ? &it->second.tree : nullptr;
  };
  if (id.first == "ServiceMonitor") return tree(inv.service_monitors);
  if (id.first == "PodMonitor") return tree(inv.pod_monitors);
  if (id.first == "Probe") return tree(inv.probes);
  if (id.first == "Secret") return tree(inv.secrets);
  return nullptr;
}

// Decoding goes through a one-object scratch Inventory, so each object's
// decode problems are known and replaced (never accumulated) on update.
void upsert(RootState& s, const ObjectId& id, const ObjectPtr& obj) {
  const bool added = !held_object(s, id);
  s.inventory.remove(id.first, id.second);
  model::Inventory scratch(model::LazyMembers{});
  scratch.add_shared(obj);
  merge_into(scratch, s.inventory);
  if (scratch.problems().empty())
    s.decode_problems.erase(id);
  else
    s.decode_problems[id] = scratch.problems();
  // Kept aside unless the inventory holds this very tree under this id (it
  // holds a copy, or nothing, when it had to normalise or reject it).
  const ObjectPtr* tree = inventory_tree(s.inventory, id);
  if (tree && *tree == obj)
    s.other_objects.erase(id);
  else
    s.other_objects.insert_or_assign(id, obj);
  if (added && is_member(id.first)) ++s.members_in[id.second.first];
}

void erase_object(RootState& s, const ObjectId& id) {
  s.inventory.remove(id.first, id.second);
  s.decode_problems.erase(id);
  s.other_objects.erase(id);
  s.tombstones.erase(id);
}

// Erases `id`; a member that was the last one in its namespace adds that
// namespace to `emptied`, whose Namespace drop_namespaces() then forgets.
void erase(RootState& s, const ObjectId& id, std::vector<std::string>& emptied) {
  if (is_member(id.first) && held_object(s, id)) {
    auto n = s.members_in.find(id.second.first);
    if (n != s.members_in.end() && --n->second == 0) {
      s.members_in.erase(n);
      emptied.push_back(id.second.first);
    }
  }
  erase_object(s, id);
}

// After a whole delivery (a delta may lose a namespace's last member and
// gain another there), so a Namespace that is still needed stays.
void drop_namespaces(RootState& s, const std::vector<std::string>& emptied) {
  for (const std::string& name : emptied) {
    if (s.members_in.count(name)) continue;
    erase_object(s, object_id("Namespace", {"", name}));
    s.namespace_seq.erase(name);
  }
}

// Whether a Namespace event is at least as new as the one held (and if so
// records it).
bool newest_namespace(RootState& s, const Event& e) {
  auto [it, added] = s.namespace_seq.try_emplace(object_key(*e.object).second, e.seq);
  if (added) return true;
  if (e.seq < it->second) return false;
  it->second = e.seq;
  return true;
}

// a == b as objects, leaving out the members `skip` names, with `eq`
// comparing the members both hold. Compared in place: every event a root
// receives is compared with the object it holds, and copying both trees to
// strip the noise cost more than the comparison.
template <class Skip, class Eq>
bool equal_members(const Value& a, const Value& b, Skip skip, Eq eq) {
  if (!a.is_object() || !b.is_object()) return a == b;
  std::size_t compared = 0, others = 0;
  for (const auto& [k, v] : a.as_object()) {
    if (skip(k)) continue;
    ++compared;
    const Value* w = b.find(k);
    if (!w || !eq(k, v, *w)) return false;
  }
  for (const auto& member : b.as_object()) others += skip(member.first) ? 0 : 1;
  return compared == others;
}

bool bookkeeping(std::string_view key) {
  const auto& keys = model::kBookkeepingMetadata;
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::vector<model::Problem> sorted_unique(std::vector<model::Problem> p) {
  std::sort(p.begin(), p.end());
  p.erase(std::unique(p.begin(), p.end()), p.end());
  return p;
}

}  // namespace

bool same_content(const Value& a, const Value& b) {
  auto plain = [](std::string_view, const Value& x, const Value& y) { return x == y; };
  return equal_members(
      a, b, [](std::string_view k) { return k == "status"; },
      [&](std::string_view k, const Value& x, const Value& y) {
        return k == "metadata" ? equal_members(x, y, bookkeeping, plain) : x == y;
      });
}

const std::shared_ptr<const Subscriptions>& no_subscriptions() {
  static const std::shared_ptr<const Subscriptions> empty = std::make_shared<const Subscriptions>();
  return empty;
}

const DesiredPtr& no_desired() {
  static const DesiredPtr empty = std::make_shared<const Desired>();
  return empty;
}

ObjectId object_id(const std::string& kind, const model::Key& key) {
  if (kind == "Namespace") return {kind, {"", key.second}};
  return {kind, {key.first.empty() ? "default" : key.first, key.second}};
}

const ObjectPtr* held_object(const RootState& s, const ObjectId& id) {
  auto it = s.other_objects.find(id);
  return it != s.other_objects.end() ? &it->second : inventory_tree(s.inventory, id);
}

RootState make_root(const RootKey& root) {
  RootState s;
  s.root = root;
  s.inventory = model::Inventory(model::LazyMembers{});
  s.job_cache = std::make_shared<model::JobCache>(/*packed=*/true);
  return s;
}

bool is_grace_expiry(const Value& obj) {
  const Value* md = obj.find("metadata");
  const Value* ann = md ? md->find("annotations") : nullptr;
  return ann && ann->find(kGraceExpiredAnnotation);
}

Value grace_expiry(Value obj) {
  Value* md = obj.find("metadata");
  if (!md) md = &obj.set("metadata", Value::object());
  Value* ann = md->find("annotations");
  if (!ann || !ann->is_object()) ann = &md->set("annotations", Value::object());
  ann->set(kGraceExpiredAnnotation, "true");
  return obj;
}

namespace {

// A referenced Secret or ConfigMap that is deleted stays in the store as a
// tombstone until its grace expiry event: a delete-and-recreate rotation
// then changes nothing but the value. Returns whether the store changed.
bool apply_delete(RootState& s, const ObjectId& id, const Event& e, std::vector<std::string>& emptied) {
  bool present = held_object(s, id) != nullptr;
  bool member_data = id.first == "Secret" || id.first == "ConfigMap";
  if (member_data && is_grace_expiry(*e.object)) {
    if (!s.tombstones.erase(id)) return false;  // re-created meanwhile: the expiry is void
    erase(s, id, emptied);
    return true;
  }
  if (member_data && present) return s.tombstones.emplace(id, e.time_ms).second;
  erase(s, id, emptied);
  return present;
}

void apply_one(RootState& s, const Event& e, Delivery d, std::vector<std::string>& emptied) {
  if (!e.object) return;
  if (e.kind == "Namespace" && !newest_namespace(s, e)) return;
  const ObjectId id = object_id(e.kind, object_key(*e.object));
  s.last_seq = std::max(s.last_seq, e.seq);
  bool changed;
  if (e.type == EventType::deleted) {
    changed = apply_delete(s, id, e, emptied);
  } else {
    const ObjectPtr* held = held_object(s, id);
    changed = s.tombstones.erase(id) > 0;
    changed = changed || !held || !same_content(**held, *e.object);
    if (changed) {
      upsert(s, id, e.object);
    } else {  // same content: keep the decoded form, skip decoding
      if (auto it = s.other_objects.find(id); it != s.other_objects.end()) it->second = e.object;
      s.inventory.retree(id.first, id.second, e.object);
    }
  }
  if (changed && d == Delivery::dirty) s.dirty = true;
}

}  // namespace

void apply(RootState& s, const Event& e, Delivery d) {
  std::vector<std::string> emptied;
  apply_one(s, e, d, emptied);
  drop_namespaces(s, emptied);
}

RootState apply(RootState s, const Event& e) {
  apply(s, e, Delivery::dirty);
  return s;
}

void absorb(RootState& s, const SubscriptionDelta& delta) {
  std::vector<std::string> emptied;
  for (const Event& ns : delta.namespaces) apply_one(s, ns, Delivery::quiet, emptied);
  for (const auto& [kind, key] : delta.lost) {
    const ObjectId id = object_id(kind, key);
    erase(s, id, emptied);
    s.tombstones.erase(id);
  }
  for (const auto& [kind, obj] : delta.gained) upsert(s, object_id(kind, object_key(*obj)), obj);
  drop_namespaces(s, emptied);
  s.dirty = true;
}

void acknowledge(RootState& s, Subscriptions subs, const SubscriptionDelta& delta) {
  acknowledge(s, std::make_shared<const Subscriptions>(std::move(subs)), delta);
}

void acknowledge(RootState& s, std::shared_ptr<const Subscriptions> subs, const SubscriptionDelta& delta) {
  s.subscriptions = subs ? std::move(subs) : no_subscriptions();
  absorb(s, delta);
}

HierarchyCounts count_members(const model::Hierarchy& h) {
  HierarchyCounts c;
  c.metrics_instances = h.metrics.size();
  for (const auto& mi : h.metrics) {
    c.service_monitors += mi.service_monitors.size();
    c.pod_monitors += mi.pod_monitors.size();
    c.probes += mi.probes.size();
    c.integration_monitors += mi.integration_monitors.size();
  }
  c.logs_instances = h.logs.size();
  for (const auto& li : h.logs) c.pod_logs += li.pod_logs.size();
  c.integrations = h.integrations.size();
  c.metrics_integrations = h.metrics_integrations.size();
  return c;
}

namespace {

// The monitors of the hierarchy, plus those routed here that do not
// decode (rejected with their decode problems).
RootBindings monitor_verdicts(const RootState& s, const model::Hierarchy& h,
                              const std::vector<model::Problem>& render_problems) {
  std::vector<MonitorId> invalid;
  std::vector<model::Problem> problems = render_problems;
  for (const auto& [id, ps] : s.decode_problems)
    if (is_binding_kind(id.first) && held_object(s, id)) {
      invalid.push_back(id);
      problems.insert(problems.end(), ps.begin(), ps.end());
    }
  return root_bindings(h, problems, invalid);
}

// Renders a present, valid root; returns false (and sets fx.subscribe)
// when the subscriptions must be acknowledged first.
bool render_valid(RootState& s, const model::GrafanaAgent& agent, const model::RenderOptions& opts, Effects& fx,
                  Desired& desired) {
  model::Hierarchy h = model::build_hierarchy(s.inventory, agent);
  Subscriptions subs = subscriptions_for(h);
  if (!subs.same_as(*s.subscriptions)) {
    fx.subscribe = std::move(subs);
    return false;
  }
  fx.counts = count_members(h);
  model::RenderOptions cached = opts;
  cached.job_cache = s.job_cache.get();
  model::AgentRender r = model::render_agent(s.inventory, agent, cached);
  if (s.job_cache) {
    s.job_cache->sweep();
    model::release_cached_members(s.inventory, *s.job_cache, agent, opts);
  }
  fx.paused = r.paused;
  fx.allocator_config = std::move(r.allocator_config);
  // Pods without serviceAccountName run as the namespace's "default".
  if (!fx.allocator_config.empty())
    fx.service_account = agent.service_account_name.empty() ? "default" : agent.service_account_name;
  desired = std::move(r.objects);
  fx.problems = std::move(r.problems);
  fx.bindings = monitor_verdicts(s, h, fx.problems);
  return true;
}

std::string megabytes(std::size_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(n) / 1e6);
  return buf;
}

model::Problem oversize_problem(const model::Value& obj, const model::Oversize& over, bool kept) {
  auto [kind, ns, name] = identity(obj);
  std::string msg = over.field + " is " + std::to_string(over.bytes) + " bytes, above the API server's limit of " +
                    std::to_string(over.limit) + " bytes; " +
                    (kept ? "the last good version stays applied" : "the copy in the cluster is left as it is");
  if (over.field == "data")
    if (auto yml = model::config_text(obj)) {
      std::string parts;
      for (const auto& [who, bytes] : model::config_contributors(*yml))
        parts += (parts.empty() ? "" : ", ") + who + " " + megabytes(bytes);
      if (!parts.empty()) msg += ". Largest parts of its " + megabytes(yml->size()) + " agent.yml: " + parts;
    }
  return {kind, ns, name, over.field, msg};
}

// An object the API server would refuse is reported, never written: the
// last good version takes its place, or, with none (a restart), the
// cluster's copy is held. Nothing is retried: the next change re-renders.
void hold_oversized(const RootState& s, Desired& desired, Effects& fx) {
  const Desired& last = *s.desired;
  for (auto it = desired.begin(); it != desired.end();) {
    auto over = model::check_size(*it);
    if (!over) {
      ++it;
      continue;
    }
    Identity id = identity(*it);
    auto prev = std::find_if(last.begin(), last.end(), [&](const model::Value& d) { return identity(d) == id; });
    fx.problems.push_back(oversize_problem(*it, *over, prev != last.end()));
    if (prev != last.end()) {
      *it++ = *prev;
    } else {
      fx.held.push_back(id);
      it = desired.erase(it);
    }
  }
}

}  // namespace

Effects reconcile(RootState& s, const model::RenderOptions& opts) {
  Effects fx;
  Desired desired;
  auto agent = s.inventory.agents.find(s.root);
  fx.root_present = agent != s.inventory.agents.end();
  fx.root_valid = fx.root_present && agent->second.valid;
  if (fx.root_valid && !render_valid(s, agent->second.obj, opts, fx, desired)) return fx;
  if (!fx.root_present && !s.subscriptions->same_as(Subscriptions{})) {
    fx.subscribe = Subscriptions{};
    return fx;
  }
  hold_oversized(s, desired, fx);
  for (const auto& [id, deleted_ms] : s.tombstones)
    fx.problems.push_back({id.first, id.second.first, id.second.second, "",
                           "deleted at " + format_rfc3339_ms(deleted_ms) +
                               "; its last known data stays in use for the grace period, then the members that "
                               "reference it are dropped"});
  // An invalid root keeps its subscriptions (and store) until it is fixed.
  for (const auto& [id, problems] : s.decode_problems)
    fx.problems.insert(fx.problems.end(), problems.begin(), problems.end());
  fx.problems = sorted_unique(std::move(fx.problems));
  fx.rendered = true;
  if (!desired.empty()) fx.desired = std::make_shared<const Desired>(std::move(desired));
  s.desired = fx.desired;
  s.problems = fx.problems;
  s.rendered_seq = s.last_seq;
  ++s.renders;
  s.dirty = false;
  return fx;
}

}  // namespace actors::core
