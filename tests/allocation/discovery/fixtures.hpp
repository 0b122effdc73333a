// Shared helpers for the discovery tests: objects from JSON text, and
// target groups flattened to plain maps so expected label sets can be
// written out in full.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "allocation/discovery/kubernetes_index.hpp"
#include "model/parse.hpp"

namespace discovery_test {

using Labels = std::map<std::string, std::string>;

inline allocation::discovery::ObjectPtr object(std::string_view json) {
  return std::make_shared<const model::Value>(model::parse_json(json));
}

inline Labels to_map(const allocation::LabelSet* set) {
  Labels out;
  if (set)
    for (const auto& l : set->labels()) out[std::string(l.name.text())] = l.value;
  return out;
}

// A group as its group labels plus one map per target (target labels only).
struct Flat {
  Labels group;
  std::vector<Labels> targets;
  bool operator==(const Flat&) const = default;
};

inline Flat flatten(const allocation::TargetGroup& g) {
  Flat f{to_map(g.labels.get()), {}};
  for (const auto& t : g.targets) f.targets.push_back(to_map(t.get()));
  return f;
}

inline std::map<std::string, Flat> flatten(const std::vector<allocation::discovery::SourcedGroup>& groups) {
  std::map<std::string, Flat> out;
  for (const auto& g : groups) out[g.source] = flatten(g.group);
  return out;
}

}  // namespace discovery_test

namespace Catch {
template <>
struct StringMaker<discovery_test::Labels> {
  static std::string convert(const discovery_test::Labels& l) {
    std::string s = "{";
    for (const auto& [k, v] : l) s += "\n  " + k + "=\"" + v + "\"";
    return s + "}";
  }
};
}  // namespace Catch
