#include <algorithm>

#include "model/meta.hpp"

namespace model {

namespace {

// One implementation for both shapes of labels: `find(key)` gives the
// label's value, or nullptr when the object lacks it.
template <class Find>
bool selector_matches_with(const LabelSelector& sel, Find find) {
  for (const auto& [k, v] : sel.match_labels) {
    const std::string* have = find(k);
    if (!have || *have != v) return false;
  }
  for (const auto& r : sel.match_expressions) {
    const std::string* have = find(r.key);
    bool in = have && std::find(r.values.begin(), r.values.end(), *have) != r.values.end();
    if (r.op == "In" && !in) return false;
    if (r.op == "NotIn" && in) return false;
    if (r.op == "Exists" && !have) return false;
    if (r.op == "DoesNotExist" && have) return false;
  }
  return true;
}

}  // namespace

bool LabelSelector::matches(const Labels& labels) const {
  return selector_matches_with(*this, [&](const std::string& k) -> const std::string* {
    auto it = labels.find(k);
    return it == labels.end() ? nullptr : &it->second;
  });
}

bool LabelSelector::matches_object(const Value& object) const {
  return matches_labels_value(find_path(object, {"metadata", "labels"}));  // find() on a non-object gives nullptr
}

bool LabelSelector::matches_labels_value(const Value* labels) const {
  return selector_matches_with(*this, [&](const std::string& k) { return label_string(labels, k); });
}

bool selector_matches(const std::optional<LabelSelector>& sel, const Labels& labels) {
  return sel && sel->matches(labels);
}

std::optional<LabelSelector> decode_selector(const Reader& parent, std::string_view key) {
  Reader r = parent.object(key);
  if (!r.present()) return std::nullopt;
  LabelSelector sel;
  sel.match_labels = r.string_map("matchLabels");
  r.each("matchExpressions", [&](const Reader& e, std::size_t) {
    Requirement req;
    req.key = e.str_or("key");
    req.op = e.str_or("operator");
    req.values = e.strings("values");
    if (req.key.empty()) e.error("key", "must not be empty");
    if (req.op == "In" || req.op == "NotIn") {
      if (req.values.empty()) e.error("values", "must be non-empty for operator " + req.op);
    } else if (req.op == "Exists" || req.op == "DoesNotExist") {
      if (!req.values.empty()) e.error("values", "must be empty for operator " + req.op);
    } else {
      e.error("operator", "unknown operator \"" + req.op + "\" (want In, NotIn, Exists or DoesNotExist)");
      return;
    }
    sel.match_expressions.push_back(std::move(req));
  });
  return sel;
}

std::string selector_string(const LabelSelector& sel) {
  struct Term {
    std::string key, text;
  };
  std::vector<Term> terms;
  auto joined = [](std::vector<std::string> values) {
    std::sort(values.begin(), values.end());
    std::string out;
    for (const auto& v : values) out += (out.empty() ? "" : ",") + v;
    return "(" + out + ")";
  };
  for (const auto& [k, v] : sel.match_labels) terms.push_back({k, k + "=" + v});
  for (const auto& r : sel.match_expressions) {
    if (r.op == "In") terms.push_back({r.key, r.key + " in " + joined(r.values)});
    if (r.op == "NotIn") terms.push_back({r.key, r.key + " notin " + joined(r.values)});
    if (r.op == "Exists") terms.push_back({r.key, r.key});
    if (r.op == "DoesNotExist") terms.push_back({r.key, "!" + r.key});
  }
  std::stable_sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) { return a.key < b.key; });
  std::string out;
  for (const auto& t : terms) out += (out.empty() ? "" : ",") + t.text;
  return out;
}

NamespaceSelector decode_namespace_selector(const Reader& parent, std::string_view key) {
  Reader r = parent.object(key);
  NamespaceSelector ns;
  ns.any = r.flag("any");
  ns.match_names = r.strings("matchNames");
  return ns;
}

ObjectMeta decode_meta(const Reader& object) {
  Reader m = object.object("metadata");
  ObjectMeta meta;
  meta.name = m.str_or("name");
  meta.ns = m.str_or("namespace");
  meta.uid = m.str_or("uid");
  meta.resource_version = m.str_or("resourceVersion");
  meta.generation = m.integer("generation").value_or(0);
  meta.labels = m.string_map("labels");
  meta.annotations = m.string_map("annotations");
  return meta;
}

}  // namespace model
