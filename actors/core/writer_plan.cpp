#include "actors/core/writer_plan.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "model/object_fields.hpp"
#include "model/render.hpp"
#include "model/sha256.hpp"
#include "model/yaml_emit.hpp"

namespace actors::core {

using model::Value;

Identity identity(const Value& v) {
  return {model::string_at(v, {"kind"}), model::string_at(v, {"metadata", "namespace"}),
          model::string_at(v, {"metadata", "name"})};
}

namespace {

std::optional<Difference> difference_at(const Value& want, const Value& have, const std::string& path) {
  auto join = [&](const std::string& k) { return path.empty() ? k : path + "." + k; };
  if (want.is_object() && have.is_object()) {
    for (const auto& [k, v] : want.as_object()) {
      const Value* h = have.find(k);
      if (!h) return Difference{join(k), &v, nullptr};
      if (auto d = difference_at(v, *h, join(k))) return d;
    }
    return std::nullopt;
  }
  if (want.is_array() && have.is_array()) {
    if (want.size() != have.size()) return Difference{path, &want, &have};
    for (std::size_t i = 0; i < want.size(); ++i)
      if (auto d = difference_at(want.as_array()[i], have.as_array()[i], path + "[" + std::to_string(i) + "]"))
        return d;
    return std::nullopt;
  }
  if (want == have) return std::nullopt;
  return Difference{path, &want, &have};
}

// Values that may be shown in a log line: short scalars of objects other
// than Secrets, outside data and the places a user's spec may carry a
// credential (container env, args and command; annotations).
bool showable(const std::string& kind, const std::string& path, const Value& v) {
  if (kind == "Secret") return false;
  for (std::string_view part : {"data", "stringData", "binaryData"})
    if (path.rfind(std::string(part) + ".", 0) == 0 || path == part) return false;
  for (std::string_view part : {".env", ".args", ".command", "annotations"})
    if (path.find(part) != std::string::npos) return false;
  if (v.is_string()) return v.as_string().size() <= 64;
  return v.is_number() || v.is_bool() || v.is_null();
}

// A scalar as a user would write it: strings unquoted (they end up quoted
// in a log line anyway), except the empty one.
std::string shown(const Value& v) {
  if (v.is_string()) return v.as_string().empty() ? "\"\"" : v.as_string();
  return model::to_json(v);
}

}  // namespace

// The server may add defaults (fields absent from `want`), not change ours.
std::optional<Difference> find_difference(const Value& want, const Value& have) {
  return difference_at(want, have, "");
}

std::optional<std::string> first_difference(const Value& want, const Value& have) {
  auto d = find_difference(want, have);
  if (!d) return std::nullopt;
  return d->path;
}

std::string drift_reason(const std::string& kind, const Difference& d) {
  std::string out = "drift: " + d.path;
  if (!d.have) return out + " removed by someone else";
  out += " changed by someone else";
  if (d.want->is_array() && d.have->is_array())
    return out + " (want " + std::to_string(d.want->size()) + " items, have " + std::to_string(d.have->size()) + ")";
  if (showable(kind, d.path, *d.want) && showable(kind, d.path, *d.have))
    out += " (want " + shown(*d.want) + ", have " + shown(*d.have) + ")";
  return out;
}

bool covered(const Value& want, const Value& have) {
  return !first_difference(want, have);
}

Value without_server_fields(Value obj) {
  obj.erase("status");
  if (Value* meta = obj.find("metadata")) model::strip_server_metadata(*meta);
  return obj;
}

std::uint64_t numeric_resource_version(const Value& obj) {
  std::string rv = model::string_at(obj, {"metadata", "resourceVersion"});
  if (rv.empty() || rv.find_first_not_of("0123456789") != std::string::npos || rv.size() > 19) return 0;
  return std::stoull(rv);
}

namespace {

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

// The keys of `written`'s labels or annotations at `path` that `want` does
// not set.
std::vector<std::string> foreign_keys(const Value& written, const Value& want, FieldPath path) {
  std::vector<std::string> out;
  const Value* have = model::find_path(written, path);
  if (!have || !have->is_object()) return out;
  const Value* ours = model::find_path(want, path);
  for (const auto& [k, v] : have->as_object())
    if (!ours || !ours->is_object() || !ours->find(k)) out.push_back(k);
  return out;
}

// What the object should look like when its hash matches: our last write
// as the server answered it (server defaults included) when we know it and
// it is of this hash, else the desired object itself. An update carries
// the labels and annotations others added (update_body); they are left out
// of the baseline, as their owners may change them later (the Deployment
// controller's revision annotation follows our template change) without
// that being drift. `scratch` holds the copy when one is needed.
const Value& baseline(const PlanInput& in, const Identity& id, const Value& want, const std::string& hash,
                      Value& scratch) {
  if (!in.written) return want;
  auto it = in.written->find(id);
  if (it == in.written->end() || it->second.hash != hash) return want;
  if (it->second.answer.is_null()) {
    if (it->second.extras.is_null()) return want;
    scratch = want;
    apply_extras(scratch, it->second.extras);
    return scratch;
  }
  const Value& answer = it->second.answer;
  const Value* base = &answer;
  for (FieldPath path : kForeignKeyPaths) {
    std::vector<std::string> foreign = foreign_keys(*base, want, path);
    if (foreign.empty()) continue;
    if (base != &scratch) base = &(scratch = answer);
    Value* keys = &scratch;
    for (std::string_view p : path) keys = keys->find(p);
    for (const auto& k : foreign) keys->erase(k);
  }
  return *base;
}

// Labels and annotations others added stay (a `kubectl rollout restart`
// stamp, another controller's marker); ours win where both set a key.
void keep_foreign_keys(Value& want, const Value& have, FieldPath path) {
  const Value* theirs = model::find_path(have, path);
  if (!theirs || !theirs->is_object()) return;
  Value* cur = &want;
  for (std::string_view p : path) {
    if (!cur->is_object()) return;
    Value* next = cur->find(p);
    cur = next ? next : &cur->set(p, Value::object());
  }
  for (const auto& [k, v] : theirs->as_object())
    if (!cur->find(k)) cur->set(k, v);
}

// The update body: the desired object fenced by the resourceVersion it was
// planned from, keeping what others added to labels and annotations (in a
// pod template only where the desired object has its metadata).
Value update_body(Value want, const Value& have) {
  for (FieldPath path : kForeignKeyPaths)
    if (model::find_path(want, path.first(path.size() - 1))) keep_foreign_keys(want, have, path);
  std::string rv = model::string_at(have, {"metadata", "resourceVersion"});
  if (!rv.empty()) want.find("metadata")->set("resourceVersion", rv);
  return want;
}

Action make_action(ActionType t, const Identity& id, Value obj, std::string reason) {
  return Action{t, std::get<0>(id), std::get<1>(id), std::get<2>(id), std::move(obj), std::move(reason)};
}

}  // namespace

std::string config_hash(const Value& obj) {
  Value v = without_server_fields(obj);
  if (Value* meta = v.find("metadata")) {
    if (Value* ann = meta->find("annotations")) {
      ann->erase(kConfigHashAnnotation);
      if (ann->size() == 0) meta->erase("annotations");
    }
  }
  return model::sha256_hex(model::to_json(v));
}

Value with_config_hash(Value obj) {
  std::string hash = config_hash(obj);
  return with_hash_annotation(std::move(obj), hash);
}

Value with_hash_annotation(Value obj, const std::string& hash) {
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
  if (model::string_at(obj, {"metadata", "labels", model::kManagedByLabel}) != model::kManagedByValue) return false;
  if (model::string_at(obj, {"metadata", "namespace"}) != root.first) return false;
  const Value* refs = model::find_path(obj, {"metadata", "ownerReferences"});
  if (!refs || !refs->is_array()) return false;
  return std::any_of(refs->as_array().begin(), refs->as_array().end(), [&](const Value& r) {
    return model::string_at(r, {"kind"}) == "GrafanaAgent" && model::string_at(r, {"name"}) == root.second &&
           (root_uid.empty() || model::string_at(r, {"uid"}) == root_uid);
  });
}

std::optional<std::string> immutable_change(const Value& observed, const Value& desired) {
  std::string kind = model::string_at(desired, {"kind"});
  for (const auto& f : kImmutable) {
    if (kind != f.kind) continue;
    const Value* want = model::find_path(desired, {"spec", f.field});
    const Value* have = model::find_path(observed, {"spec", f.field});
    if (want && (!have || !covered(*want, *have))) return std::string(f.name);
  }
  return std::nullopt;
}

std::vector<std::string> config_hashes(const std::vector<Value>& desired) {
  std::vector<std::string> out;
  out.reserve(desired.size());
  for (const Value& d : desired) out.push_back(config_hash(d));
  return out;
}

Plan plan_writes(const PlanInput& in) {
  Plan plan;
  std::map<Identity, const Value*> observed;
  if (in.observed_by_id)
    for (const auto& [id, o] : *in.observed_by_id) observed.emplace_hint(observed.end(), id, o.get());
  else
    for (const auto& o : *in.observed) observed.emplace(identity(o), &o);
  const std::vector<Value>& desired = *in.desired;
  std::vector<std::size_t> order(desired.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return write_rank(model::string_at(desired[a], {"kind"})) < write_rank(model::string_at(desired[b], {"kind"}));
  });
  for (std::size_t i : order) {
    const Value& d = desired[i];
    Identity id = identity(d);
    std::string hash = in.hashes ? (*in.hashes)[i] : config_hash(d);
    // Only an action needs the object with its annotation: the common
    // case (unchanged) copies nothing.
    auto want = [&] { return with_hash_annotation(d, hash); };
    auto it = observed.find(id);
    if (it == observed.end()) {
      // A new object needs no reason; one we wrote before was deleted.
      bool ours = in.written && in.written->count(id);
      plan.actions.push_back(make_action(ActionType::create, id, want(), ours ? "deleted by someone else" : ""));
      continue;
    }
    const Value& have = *it->second;
    observed.erase(it);
    if (model::string_at(have, {"metadata", "annotations", kConfigHashAnnotation}) == hash) {
      // `have` carries this hash, so comparing `d` (without the annotation)
      // finds exactly what comparing it with the annotation would.
      Value scratch;
      auto drift = find_difference(baseline(in, id, d, hash, scratch), have);
      if (!drift) {
        ++plan.unchanged;
        continue;
      }
      std::string reason = drift_reason(std::get<0>(id), *drift);
      plan.actions.push_back(make_action(ActionType::update, id, update_body(want(), have), reason));
    } else if (auto field = immutable_change(have, d)) {
      plan.actions.push_back(make_action(ActionType::recreate, id, want(), "immutable " + *field + " changed"));
    } else {
      plan.actions.push_back(make_action(ActionType::update, id, update_body(want(), have), "config hash changed"));
    }
  }
  if (!in.prune) return plan;
  for (const auto& [id, obj] : observed) {  // what is left is no longer desired
    if (in.held && std::find(in.held->begin(), in.held->end(), id) != in.held->end()) continue;
    if (owned_by(*obj, in.root, in.root_uid))
      plan.actions.push_back(make_action(ActionType::remove, id, *obj, "no longer desired"));
  }
  return plan;
}

}  // namespace actors::core
