// Built-in schemas: object metadata, RBAC, authentication (TokenReview),
// coordination, discovery and apiextensions. Notation: see
// builtin_schemas.cpp.
#include "k8s/sim/builtin_schemas.hpp"

namespace k8s::sim {

std::string_view meta_schema_text() {
  return R"(
meta.ObjectMeta
  name string
  generateName string
  namespace string
  selfLink string
  uid string
  resourceVersion string
  generation integer
  creationTimestamp time
  deletionTimestamp time
  deletionGracePeriodSeconds integer
  labels map[string]
  annotations map[string]
  ownerReferences []meta.OwnerReference merge=uid
  finalizers []string merge
  managedFields []object
meta.OwnerReference
  apiVersion string
  kind string
  name string
  uid string
  controller boolean
  blockOwnerDeletion boolean
meta.LabelSelector
  matchLabels map[string]
  matchExpressions []meta.LabelSelectorRequirement
meta.LabelSelectorRequirement
  key string
  operator string
  values []string
rbac.PolicyRule
  verbs []string
  apiGroups []string
  resources []string
  resourceNames []string
  nonResourceURLs []string
rbac.Subject
  kind string
  apiGroup string
  name string
  namespace string
rbac.RoleRef
  apiGroup string
  kind string
  name string
rbac.ClusterRole
  @kind
  rules []rbac.PolicyRule
  aggregationRule object
rbac.Role
  @kind
  rules []rbac.PolicyRule
rbac.ClusterRoleBinding
  @kind
  subjects []rbac.Subject
  roleRef rbac.RoleRef
rbac.RoleBinding
  @kind
  subjects []rbac.Subject
  roleRef rbac.RoleRef
authentication.TokenReview
  @kind
  spec authentication.TokenReviewSpec
  status authentication.TokenReviewStatus
authentication.TokenReviewSpec
  token string
  audiences []string
authentication.TokenReviewStatus
  authenticated boolean
  user authentication.UserInfo
  audiences []string
  error string
authentication.UserInfo
  username string
  uid string
  groups []string
  extra map[[]string]
coordination.Lease
  @kind
  spec coordination.LeaseSpec
coordination.LeaseSpec
  holderIdentity string
  leaseDurationSeconds integer
  acquireTime time
  renewTime time
  leaseTransitions integer
  strategy string
  preferredHolder string
discovery.EndpointSlice
  @kind
  addressType string
  endpoints []discovery.Endpoint
  ports []discovery.EndpointPort
discovery.Endpoint
  addresses []string
  conditions discovery.EndpointConditions
  hostname string
  targetRef core.ObjectReference
  deprecatedTopology map[string]
  nodeName string
  zone string
  hints discovery.EndpointHints
discovery.EndpointConditions
  ready boolean
  serving boolean
  terminating boolean
discovery.EndpointHints
  forZones []discovery.ForZone
  forNodes []discovery.ForNode
discovery.ForZone
  name string
discovery.ForNode
  name string
discovery.EndpointPort
  name string
  protocol string
  port integer
  appProtocol string
networking.Ingress
  @kind
  spec networking.IngressSpec
  status object
networking.IngressSpec
  ingressClassName string
  defaultBackend object
  tls []object
  rules []object
networking.NetworkPolicy
  @kind
  spec networking.NetworkPolicySpec
networking.NetworkPolicySpec
  podSelector meta.LabelSelector
  policyTypes []string
  ingress []networking.NetworkPolicyIngressRule
  egress []object
networking.NetworkPolicyIngressRule
  from []networking.NetworkPolicyPeer
  ports []networking.NetworkPolicyPort
networking.NetworkPolicyPeer
  podSelector meta.LabelSelector
  namespaceSelector meta.LabelSelector
  ipBlock object
networking.NetworkPolicyPort
  protocol string
  port int-or-string
  endPort integer
apiext.CustomResourceDefinition
  @kind
  spec apiext.CustomResourceDefinitionSpec
  status object
apiext.CustomResourceDefinitionSpec
  group string
  names object
  scope string
  versions []object
  conversion object
  preserveUnknownFields boolean
)";
}

}  // namespace k8s::sim
