// Collector discovery from Pods: upstream's `collector_selector` (a
// metav1.LabelSelector) read from the config file, and the collector set
// kept from a watch of Pods in the collectors' namespace.
// Contract: pure. parse_collector_selector throws DiscoveryError naming the
// field; it accepts upstream's lower-case keys (`matchlabels`,
// `matchexpressions`) as well as the Kubernetes spelling. CollectorSet
// turns watch events into collectors: name = pod name, node =
// spec.nodeName, ready = the Ready condition is "True" and the pod is not
// terminating (no metadata.deletionTimestamp); ready_since is the
// time the set first saw the pod Ready (the allocator's clock), so the
// allocator's grace period runs from then.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "allocation/collector.hpp"
#include "allocation/discovery/kubernetes_config.hpp"
#include "allocation/discovery/kubernetes_index.hpp"
#include "model/meta.hpp"

namespace allocation::discovery {

// A label selector from the config file; nullopt when absent or null.
std::optional<model::LabelSelector> parse_label_selector(const model::Value* v, const std::string& field);
// The selector in the API server's text form (`k=v,k in (a,b),!k`).
std::string selector_text(const model::LabelSelector& s);

class CollectorSet {
 public:
  explicit CollectorSet(model::LabelSelector selector) : selector_(std::move(selector)) {}
  // Applies one Pod event; returns whether the collector set changed. A pod
  // that stops matching the selector is treated as deleted.
  bool apply(Change change, const model::Value& pod, TimePoint now);
  std::vector<Collector> collectors() const;  // sorted by name

 private:
  model::LabelSelector selector_;
  std::map<std::string, Collector> by_name_;
};

}  // namespace allocation::discovery
