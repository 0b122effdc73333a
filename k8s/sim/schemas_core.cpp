// Built-in schemas: core/v1 kinds other than Pod. Notation: see
// builtin_schemas.cpp.
#include "k8s/sim/builtin_schemas.hpp"

namespace k8s::sim {

std::string_view core_schema_text() {
  return R"(
core.ConfigMap
  @kind
  data map[string]
  binaryData map[bytes]
  immutable boolean
core.Secret
  @kind
  data map[bytes]
  stringData map[string]
  type string
  immutable boolean
core.Namespace
  @kind
  spec core.NamespaceSpec
  status core.NamespaceStatus
core.NamespaceSpec
  finalizers []string
core.NamespaceStatus
  phase string
  conditions []object merge=type
core.Service
  @kind
  spec core.ServiceSpec
  status object
core.ServiceSpec
  ports []core.ServicePort merge=port
  selector map[string]
  clusterIP string
  clusterIPs []string
  type string
  externalIPs []string
  sessionAffinity string
  loadBalancerIP string
  loadBalancerSourceRanges []string
  externalName string
  externalTrafficPolicy string
  healthCheckNodePort integer
  publishNotReadyAddresses boolean
  sessionAffinityConfig object
  ipFamilies []string
  ipFamilyPolicy string
  allocateLoadBalancerNodePorts boolean
  loadBalancerClass string
  internalTrafficPolicy string
  trafficDistribution string
core.ServicePort
  name string
  protocol string
  appProtocol string
  port integer
  targetPort int-or-string
  nodePort integer
core.Endpoints
  @kind
  subsets []core.EndpointSubset
core.EndpointSubset
  addresses []core.EndpointAddress
  notReadyAddresses []core.EndpointAddress
  ports []core.EndpointPort
core.EndpointAddress
  ip string
  hostname string
  nodeName string
  targetRef core.ObjectReference
core.EndpointPort
  name string
  port integer
  protocol string
  appProtocol string
core.ObjectReference
  kind string
  namespace string
  name string
  uid string
  apiVersion string
  resourceVersion string
  fieldPath string
core.LocalObjectReference
  name string
core.ServiceAccount
  @kind
  secrets []core.ObjectReference merge=name
  imagePullSecrets []core.LocalObjectReference
  automountServiceAccountToken boolean
core.Node
  @kind
  spec core.NodeSpec
  status core.NodeStatus
core.NodeSpec
  podCIDR string
  podCIDRs []string merge
  providerID string
  unschedulable boolean
  taints []object
  configSource object
  externalID string
core.NodeStatus *
  conditions []object merge=type
  addresses []object merge=type
core.Event
  @kind
  involvedObject core.ObjectReference
  reason string
  message string
  source object
  firstTimestamp time
  lastTimestamp time
  count integer
  type string
  eventTime string
  series object
  action string
  related core.ObjectReference
  reportingComponent string
  reportingInstance string
)";
}

}  // namespace k8s::sim
