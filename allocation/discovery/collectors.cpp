// Collector discovery: config selectors and the Pod-backed collector set.
#include "allocation/discovery/collectors.hpp"

#include "allocation/discovery/meta.hpp"
#include "model/decode.hpp"

namespace allocation::discovery {

namespace {

using model::Value;

// Upstream decodes the selector with Go's YAML library, which lower-cases
// field names: both spellings mean the same field.
Value normalize_selector(const Value& v) {
  Value out = Value::object();
  for (const auto& [k, item] : v.as_object()) {
    if (k == "matchlabels")
      out.set("matchLabels", item);
    else if (k == "matchexpressions")
      out.set("matchExpressions", item);
    else
      out.set(k, item);
  }
  return out;
}

// A terminating pod keeps its Ready condition until the kubelet stops it;
// it must not take new targets meanwhile (upstream #3781).
bool takes_targets(const Value& pod) {
  if (!model::string_at(pod, {"metadata", "deletionTimestamp"}).empty()) return false;
  const Value* status = pod.find("status");
  const Value* conditions = status && status->is_object() ? status->find("conditions") : nullptr;
  if (!conditions || !conditions->is_array()) return false;
  for (const auto& c : conditions->as_array())
    if (c.is_object() && model::string_at(c, {"type"}) == "Ready") return model::string_at(c, {"status"}) == "True";
  return false;
}

}  // namespace

std::optional<model::LabelSelector> parse_label_selector(const model::Value* v, const std::string& field) {
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_object()) throw DiscoveryError(field + ": must be a label selector (matchLabels/matchExpressions)");
  const Value parent = Value::obj({{"selector", normalize_selector(*v)}});
  model::FieldErrors errors;
  model::Reader reader(&parent, "", &errors);
  auto selector = model::decode_selector(reader, "selector");
  if (!errors.empty()) {
    const auto& e = errors.front();
    std::string path = e.path.starts_with("selector") ? e.path.substr(8) : e.path;
    throw DiscoveryError(field + path + ": " + e.message);
  }
  return selector;
}

std::string selector_text(const model::LabelSelector& s) {
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : ",") + part; };
  for (const auto& [k, v] : s.match_labels) add(k + "=" + v);
  for (const auto& r : s.match_expressions) {
    std::string values;
    for (const auto& v : r.values) values += (values.empty() ? "" : ",") + v;
    if (r.op == "In")
      add(r.key + " in (" + values + ")");
    else if (r.op == "NotIn")
      add(r.key + " notin (" + values + ")");
    else if (r.op == "Exists")
      add(r.key);
    else if (r.op == "DoesNotExist")
      add("!" + r.key);
  }
  return out;
}

bool CollectorSet::apply(Change change, const model::Value& pod, TimePoint now) {
  const std::string name = model::string_at(pod, {"metadata", "name"});
  if (name.empty()) return false;
  const model::Labels labels = model::object_labels(pod);
  auto it = by_name_.find(name);
  if (change == Change::deleted || !selector_.matches(labels)) {
    if (it == by_name_.end()) return false;
    by_name_.erase(it);
    return true;
  }
  Collector next{name, model::string_at(pod, {"spec", "nodeName"}), takes_targets(pod), {}};
  if (next.ready) next.ready_since = it != by_name_.end() && it->second.ready ? it->second.ready_since : now;
  if (it != by_name_.end() && it->second.node == next.node && it->second.ready == next.ready) return false;
  by_name_[name] = std::move(next);
  return true;
}

std::vector<Collector> CollectorSet::collectors() const {
  std::vector<Collector> out;
  out.reserve(by_name_.size());
  for (const auto& [name, c] : by_name_) out.push_back(c);
  return out;
}

}  // namespace allocation::discovery
