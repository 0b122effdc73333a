// The target groups of one Kubernetes object per role, with Prometheus's
// `__meta_kubernetes_*` labels (Prometheus 2.51 semantics; the label sets
// per role are listed in allocation/discovery/README.md).
// Contract: pure functions of the objects given. A group's source is
// "<role>/<namespace>/<name>" as upstream. Endpoints and EndpointSlices
// also read the Service they belong to and the Pods their addresses refer
// to, through `lookup` (nullptr = unknown or not selected); they report the
// keys ("namespace/name") of the pods they asked for, found or not, so an
// index can rebuild them when one of those pods changes. Empty label values
// are dropped (Prometheus treats an empty value as an absent label).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "allocation/discovery/kubernetes_config.hpp"
#include "allocation/target.hpp"
#include "model/value.hpp"

namespace allocation::discovery {

struct SourcedGroup {
  std::string source;
  TargetGroup group;
};

// Finds a Pod or Service by "namespace/name".
using ObjectLookup = std::function<const model::Value*(Kind kind, const std::string& key)>;

std::string group_source(Role role, const model::Value& object);

TargetGroup build_pod_group(const model::Value& pod);
TargetGroup build_service_group(const model::Value& service);
TargetGroup build_ingress_group(const model::Value& ingress);
TargetGroup build_endpoints_group(const model::Value& endpoints, const ObjectLookup& lookup,
                                  std::vector<std::string>* pod_keys = nullptr);
TargetGroup build_endpointslice_group(const model::Value& slice, const ObjectLookup& lookup,
                                      std::vector<std::string>* pod_keys = nullptr);

// The name of the Service an EndpointSlice belongs to (its
// kubernetes.io/service-name label), or "".
std::string slice_service_name(const model::Value& slice);

}  // namespace allocation::discovery
