// Internal to allocation/discovery: the Pod labels shared by the pod,
// endpoints and endpointslice roles, and group assembly.
// Contract: pure; labels as Prometheus's podLabels (without the namespace).
#pragma once

#include <string>
#include <vector>

#include "allocation/discovery/meta.hpp"
#include "allocation/target.hpp"

namespace allocation::discovery {

// __meta_kubernetes_pod_{name,ip,ready,phase,node_name,host_ip,uid},
// _controller_kind/_name and the pod's labels and annotations.
void add_pod_labels(LabelMap& labels, const model::Value& pod);
// The container's status.containerID ("" when not reported).
std::string container_id(const model::Value& pod, const std::string& name, bool init);
TargetGroup make_group(const LabelMap& group, const std::vector<LabelMap>& targets);

}  // namespace allocation::discovery
