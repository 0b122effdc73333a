#include "actors/core/writer_plan.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "actors/core/sha256.hpp"
#include "model/render.hpp"
#include "model/yaml_emit.hpp"

namespace actors::core {

using model::Value;

std::string str_at(const Value& v, std::initializer_list<const char*> path) {
  const Value* cur = &v;
  for (const char* p : path)
    if (!(cur = cur->find(p))) return "";
  return cur->is_string() ? cur->as_string() : "";
}

Identity identity(const Value& v) {
  return {str_at(v, {"kind"}), str_at(v, {"metadata", "namespace"}), str_at(v, {"metadata", "name"})};
}

// Whether every field of `want` is present and equal in `have` (arrays
// element-wise, same length): the server may add defaults, not change ours.
bool covered(const Value& want, const Value& have) {
  if (want.is_object() && have.is_object()) {
    for (const auto& [k, v] : want.as_object()) {
      const Value* h = have.find(k);
      if (!h || !covered(v, *h)) return false;
    }
    return true;
  }
  if (want.is_array() && have.is_array()) {
    if (want.size() != have.size()) return false;
    for (std::size_t i = 0; i < want.size(); ++i)
      if (!covered(want.as_array()[i], have.as_array()[i])) return false;
    return true;
  }
  return want == have;
}

namespace {

const Value* at_path(const Value& v, std::initializer_list<const char*> path) {
  const Value* cur = &v;
  for (const char* p : path)
    if (!(cur = cur->find(p))) return nullptr;
  return cur;
}

int write_rank(const std::string& kind) {
  if (kind == "Secret" || kind == "ConfigMap") return 0;
  if (kind == "Service") return 1;
  return 2;
}

struct ImmutableField {
  const char* kind;
  const char* field;  // under spec
  const char* name;
};

const ImmutableField kImmutable[] = {
    {"StatefulSet", "selector", "spec.selector"},
    {"StatefulSet", "serviceName", "spec.serviceName"},
    {"StatefulSet", "volumeClaimTemplates", "spec.volumeClaimTemplates"},
    {"StatefulSet", "podManagementPolicy", "spec.podManagementPolicy"},
    {"Deployment", "selector", "spec.selector"},
    {"DaemonSet", "selector", "spec.selector"},
    {"Service", "clusterIP", "spec.clusterIP"},
};

Action make_action(ActionType t, const Identity& id, Value obj, std::string reason) {
  return Action{t, std::get<0>(id), std::get<1>(id), std::get<2>(id), std::move(obj), std::move(reason)};
}

}  // namespace

std::string config_hash(const Value& obj) {
  Value v = obj;
  v.erase("status");
  if (Value* meta = v.find("metadata")) {
    for (const char* k : {"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "selfLink",
                          "deletionTimestamp", "deletionGracePeriodSeconds"})
      meta->erase(k);
    if (Value* ann = meta->find("annotations")) {
      ann->erase(kConfigHashAnnotation);
      if (ann->size() == 0) meta->erase("annotations");
    }
  }
  return sha256_hex(model::to_json(v));
}

Value with_config_hash(Value obj) {
  std::string hash = config_hash(obj);
  Value& meta = obj.find("metadata") ? *obj.find("metadata") : obj.set("metadata", Value::object());
  Value& ann = meta.find("annotations") ? *meta.find("annotations") : meta.set("annotations", Value::object());
  ann.set(kConfigHashAnnotation, hash);
  return obj;
}

const char* action_name(ActionType t) {
  switch (t) {
    case ActionType::create:
      return "create";
    case ActionType::update:
      return "update";
    case ActionType::recreate:
      return "recreate";
    case ActionType::remove:
      return "delete";
  }
  return "?";
}

bool owned_by(const Value& obj, const RootKey& root, const std::string& root_uid) {
  if (str_at(obj, {"metadata", "labels", model::kManagedByLabel}) != model::kManagedByValue) return false;
  if (str_at(obj, {"metadata", "namespace"}) != root.first) return false;
  const Value* refs = at_path(obj, {"metadata", "ownerReferences"});
  if (!refs || !refs->is_array()) return false;
  return std::any_of(refs->as_array().begin(), refs->as_array().end(), [&](const Value& r) {
    return str_at(r, {"kind"}) == "GrafanaAgent" && str_at(r, {"name"}) == root.second &&
           (root_uid.empty() || str_at(r, {"uid"}) == root_uid);
  });
}

std::optional<std::string> immutable_change(const Value& observed, const Value& desired) {
  std::string kind = str_at(desired, {"kind"});
  for (const auto& f : kImmutable) {
    if (kind != f.kind) continue;
    const Value* want = at_path(desired, {"spec", f.field});
    const Value* have = at_path(observed, {"spec", f.field});
    if (want && (!have || !covered(*want, *have))) return std::string(f.name);
  }
  return std::nullopt;
}

Plan plan_writes(const PlanInput& in) {
  Plan plan;
  std::map<Identity, const Value*> observed;
  for (const auto& o : *in.observed) observed.emplace(identity(o), &o);
  std::vector<const Value*> desired;
  for (const auto& d : *in.desired) desired.push_back(&d);
  std::stable_sort(desired.begin(), desired.end(), [](const Value* a, const Value* b) {
    return write_rank(str_at(*a, {"kind"})) < write_rank(str_at(*b, {"kind"}));
  });
  for (const Value* d : desired) {
    Identity id = identity(*d);
    Value want = with_config_hash(*d);
    auto it = observed.find(id);
    if (it == observed.end()) {
      plan.actions.push_back(make_action(ActionType::create, id, std::move(want), "not found"));
      continue;
    }
    const Value& have = *it->second;
    observed.erase(it);
    std::string hash = str_at(want, {"metadata", "annotations", kConfigHashAnnotation});
    if (str_at(have, {"metadata", "annotations", kConfigHashAnnotation}) == hash) {
      ++plan.unchanged;
    } else if (auto field = immutable_change(have, want)) {
      plan.actions.push_back(
          make_action(ActionType::recreate, id, std::move(want), "immutable " + *field + " changed"));
    } else {
      plan.actions.push_back(make_action(ActionType::update, id, std::move(want), "config hash changed"));
    }
  }
  if (!in.prune) return plan;
  for (const auto& [id, obj] : observed)  // what is left is no longer desired
    if (owned_by(*obj, in.root, in.root_uid))
      plan.actions.push_back(make_action(ActionType::remove, id, *obj, "no longer desired"));
  return plan;
}

}  // namespace actors::core
