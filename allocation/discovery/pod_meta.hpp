// Internal to allocation/discovery: the label names the roles write, the
// Pod labels shared by the pod, endpoints and endpointslice roles, and
// group assembly.
// Contract: pure; labels as Prometheus's podLabels (without the namespace).
#pragma once

#include <string>
#include <vector>

#include "allocation/discovery/meta.hpp"
#include "allocation/target.hpp"

namespace allocation::discovery {

// The fixed __meta_kubernetes_* names, interned once: a role builds
// thousands of targets per event burst, and interning by text costs a
// concatenation and a hash lookup per label.
struct RoleNames {
  Name address, ns;
  Name pod_ip, pod_ready, pod_phase, pod_node_name, pod_host_ip, pod_uid, pod_controller_kind, pod_controller_name;
  Name container_name, container_id, container_image, container_init, container_port_name, container_port_number,
      container_port_protocol;
  Name service_port_name, service_port_number, service_port_protocol, service_type, service_external_name,
      service_cluster_ip, service_loadbalancer_ip;
  Name ingress_class_name, ingress_scheme, ingress_host, ingress_path;
  Name endpoint_port_name, endpoint_port_protocol, endpoint_ready, endpoint_target_kind, endpoint_target_name,
      endpoint_node_name, endpoint_hostname;
  Name slice_address_type, slice_port_name, slice_port_protocol, slice_port_app_protocol, slice_port, slice_ready,
      slice_serving, slice_terminating, slice_hostname, slice_target_kind, slice_target_name;

  static const RoleNames& get();
};

// __meta_kubernetes_pod_{name,ip,ready,phase,node_name,host_ip,uid},
// _controller_kind/_name and the pod's labels and annotations.
void add_pod_labels(LabelDraft& labels, const model::Value& pod);
// The container's status.containerID ("" when not reported).
std::string container_id(const model::Value& pod, const std::string& name, bool init);
using LabelSets = std::vector<std::shared_ptr<const LabelSet>>;
TargetGroup make_group(LabelDraft& group, LabelSets targets);

}  // namespace allocation::discovery
