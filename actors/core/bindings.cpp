#include "actors/core/bindings.hpp"

#include <algorithm>

#include "model/object_fields.hpp"
#include "model/yaml_emit.hpp"

namespace actors::core {

using model::Value;

const std::vector<std::string>& binding_kinds() {
  static const std::vector<std::string> kinds = {"IntegrationMonitor", "PodMonitor", "Probe", "ServiceMonitor"};
  return kinds;
}

bool is_binding_kind(const std::string& kind) {
  const auto& k = binding_kinds();
  return std::find(k.begin(), k.end(), kind) != k.end();
}

namespace {

std::string cut_binding_message(std::string s) {
  if (s.size() <= kMaxBindingMessage) return s;
  s.resize(kMaxBindingMessage - 3);
  while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();  // whole UTF-8
  if (!s.empty() && static_cast<unsigned char>(s.back()) >= 0xC0) s.pop_back();
  return s + "...";
}

// Instances selecting each monitor, in hierarchy order (sorted).
using MonitorSelectors = std::map<MonitorId, std::vector<std::string>>;

template <class Member>
void note_selected(MonitorSelectors& out, const char* kind, const std::vector<Member>& monitors,
                   const std::string& instance) {
  for (const Member& m : monitors) out[{kind, {model::ns_of(m), model::name_of(m)}}].push_back(instance);
}

std::string selected_by(const std::vector<std::string>& instances) {
  std::string s = instances.size() == 1 ? "selected by MetricsInstance " : "selected by MetricsInstances ";
  for (std::size_t i = 0; i < instances.size(); ++i) s += (i ? ", " : "") + instances[i];
  return s;
}

}  // namespace

RootBindings root_bindings(const model::Hierarchy& h, const std::vector<model::Problem>& problems,
                           const std::vector<MonitorId>& invalid) {
  MonitorSelectors sel;
  for (const model::MetricsInstanceNode& mi : h.metrics) {
    std::string who = mi.instance->meta.ns + "/" + mi.instance->meta.name;
    note_selected(sel, "ServiceMonitor", mi.service_monitors, who);
    note_selected(sel, "PodMonitor", mi.pod_monitors, who);
    note_selected(sel, "Probe", mi.probes, who);
    note_selected(sel, "IntegrationMonitor", mi.integration_monitors, who);
  }
  for (const MonitorId& id : invalid) sel.try_emplace(id);
  std::map<MonitorId, std::string> errors;
  for (const model::Problem& p : problems) {
    auto it = sel.find({p.kind, {p.ns, p.name}});
    if (p.warning || it == sel.end()) continue;
    std::string& e = errors[it->first];
    e += (e.empty() ? "" : "; ") + (p.path.empty() ? p.message : p.path + ": " + p.message);
  }
  RootBindings out;
  for (const auto& [id, instances] : sel) {
    MonitorBinding b{id, true, instances.empty() ? "" : selected_by(instances)};
    if (auto e = errors.find(id); e != errors.end()) {
      b.accepted = false;
      b.message = "left out of the config: " + e->second + (b.message.empty() ? "" : " (" + b.message + ")");
    }
    b.message = cut_binding_message(std::move(b.message));
    out.push_back(std::move(b));
  }
  return out;
}

bool our_entry(const Value& entry) {
  return model::string_at(entry, {"group"}) == kBindingGroup &&
         model::string_at(entry, {"resource"}) == kBindingResource;
}

namespace {

RootKey binding_agent(const Value& entry) {
  return {model::string_at(entry, {"namespace"}), model::string_at(entry, {"name"})};
}

const Value* accepted_condition(const Value& entry) {
  const Value* conds = entry.find("conditions");
  if (!conds || !conds->is_array()) return nullptr;
  for (const Value& c : conds->as_array())
    if (model::string_at(c, {"type"}) == "Accepted") return &c;
  return nullptr;
}

// Our entries as read, by agent.
std::map<RootKey, const Value*> ours_as_read(const ObservedMonitor& seen) {
  std::map<RootKey, const Value*> out;
  if (seen.bindings.is_array())
    for (const Value& e : seen.bindings.as_array())
      if (e.is_object() && our_entry(e)) out.emplace(binding_agent(e), &e);
  return out;
}

Value entry_for(const RootKey& agent, const MonitorBinding& b, const ObservedMonitor& seen, const Value* before,
                const std::string& now) {
  std::string status = b.accepted ? "True" : "False";
  std::string since = now;
  if (const Value* old = before ? accepted_condition(*before) : nullptr)
    if (model::string_at(*old, {"status"}) == status && !model::string_at(*old, {"lastTransitionTime"}).empty())
      since = model::string_at(*old, {"lastTransitionTime"});
  Value cond = Value::obj({{"type", "Accepted"}, {"status", status}, {"lastTransitionTime", since}});
  if (!b.accepted) cond.set("reason", kRejectedReason);
  if (!b.message.empty()) cond.set("message", b.message);
  if (seen.generation > 0) cond.set("observedGeneration", seen.generation);
  return Value::obj({{"group", kBindingGroup},
                     {"resource", kBindingResource},
                     {"namespace", agent.first},
                     {"name", agent.second},
                     {"conditions", Value::arr({std::move(cond)})}});
}

}  // namespace

Value merged_entries(const std::map<RootKey, const MonitorBinding*>& verdicts, const ObservedMonitor& seen,
                     const std::vector<RootKey>& keep, const std::string& now_rfc3339) {
  auto before = ours_as_read(seen);
  std::map<RootKey, Value> out;
  for (const auto& [agent, b] : verdicts) {
    auto it = before.find(agent);
    out.emplace(agent, entry_for(agent, *b, seen, it == before.end() ? nullptr : it->second, now_rfc3339));
  }
  for (const RootKey& agent : keep)
    if (auto it = before.find(agent); it != before.end() && !out.contains(agent)) out.emplace(agent, *it->second);
  Value arr = Value::array();
  for (auto& [agent, e] : out) arr.push(std::move(e));
  return arr;
}

std::optional<Value> plan_bindings(const ObservedMonitor& seen, const Value& ours) {
  Value others = Value::array();
  std::map<std::string, std::size_t> read;  // canonical JSON of our entries as read
  if (seen.bindings.is_array())
    for (const Value& e : seen.bindings.as_array()) {
      if (e.is_object() && our_entry(e))
        ++read[model::to_json(e)];
      else
        others.push(e);
    }
  std::map<std::string, std::size_t> want;
  for (const Value& e : ours.as_array()) ++want[model::to_json(e)];
  if (want == read) return std::nullopt;
  for (const Value& e : ours.as_array()) others.push(e);
  return Value::obj({{"metadata", Value::obj({{"resourceVersion", seen.resource_version}})},
                     {"status", Value::obj({{"bindings", std::move(others)}})}});
}

}  // namespace actors::core

namespace actors::core {

namespace {

const Value* crd_version(const Value& crd, const std::string& version) {
  const Value* versions = model::find_path(crd, {"spec", "versions"});
  if (!versions || !versions->is_array()) return nullptr;
  for (const Value& v : versions->as_array())
    if (model::string_at(v, {"name"}) == version) return &v;
  return nullptr;
}

// Whether a schema node admits `value`: no enum, or the enum lists it.
bool enum_admits(const Value* schema, const char* value) {
  const Value* e = schema ? schema->find("enum") : nullptr;
  if (!e || !e->is_array()) return true;
  return std::any_of(e->as_array().begin(), e->as_array().end(),
                     [&](const Value& x) { return x.is_string() && x.as_string() == value; });
}

bool keeps_unknown_fields(const Value* schema) {
  const Value* k = schema ? schema->find("x-kubernetes-preserve-unknown-fields") : nullptr;
  return k && k->is_bool() && k->as_bool();
}

}  // namespace

CrdAdmission crd_admits_bindings(const Value& crd, const std::string& version) {
  const Value* v = crd_version(crd, version);
  if (!v) return {false, "the CRD does not serve version " + version};
  if (!model::find_path(*v, {"subresources", "status"})) return {false, "the CRD has no status subresource"};
  const Value* status = model::find_path(*v, {"schema", "openAPIV3Schema", "properties", "status"});
  const Value* item = status ? model::find_path(*status, {"properties", "bindings", "items", "properties"}) : nullptr;
  if (!item) {
    if (keeps_unknown_fields(status)) return {true, ""};
    return {false, "the CRD's status schema has no bindings, so the API server would drop them"};
  }
  if (!enum_admits(item->find("group"), kBindingGroup))
    return {false, std::string("the CRD's status.bindings[].group admits only other groups than ") + kBindingGroup};
  if (!enum_admits(item->find("resource"), kBindingResource))
    return {false, std::string("the CRD's status.bindings[].resource does not admit ") + kBindingResource};
  return {true, ""};
}

}  // namespace actors::core
