// Built-in schemas: Pod and the pod template shared by the workloads.
// Notation: see builtin_schemas.cpp.
#include "k8s/sim/builtin_schemas.hpp"

namespace k8s::sim {

std::string_view pod_schema_text() {
  return R"(
core.Pod
  @kind
  spec core.PodSpec
  status core.PodStatus
core.PodTemplateSpec
  metadata meta.ObjectMeta
  spec core.PodSpec
core.PodStatus *
  conditions []object merge=type
  podIPs []object merge=ip
  hostIPs []object merge=ip
core.PodSpec
  volumes []core.Volume merge=name retainKeys
  initContainers []core.Container merge=name
  containers []core.Container merge=name
  ephemeralContainers []object merge=name
  restartPolicy string
  terminationGracePeriodSeconds integer
  activeDeadlineSeconds integer
  dnsPolicy string
  nodeSelector map[string]
  serviceAccountName string
  serviceAccount string
  automountServiceAccountToken boolean
  nodeName string
  hostNetwork boolean
  hostPID boolean
  hostIPC boolean
  shareProcessNamespace boolean
  securityContext object
  imagePullSecrets []core.LocalObjectReference merge=name
  hostname string
  subdomain string
  affinity object
  schedulerName string
  tolerations []object
  hostAliases []object merge=ip
  priorityClassName string
  priority integer
  dnsConfig object
  readinessGates []object
  runtimeClassName string
  enableServiceLinks boolean
  preemptionPolicy string
  overhead map[quantity]
  topologySpreadConstraints []object merge=topologyKey
  setHostnameAsFQDN boolean
  os object
  hostUsers boolean
  schedulingGates []object merge=name
  resourceClaims []object merge=name retainKeys
  resources object
core.Container
  name string
  image string
  command []string
  args []string
  workingDir string
  ports []core.ContainerPort merge=containerPort
  envFrom []object
  env []core.EnvVar merge=name
  resources core.ResourceRequirements
  resizePolicy []object
  restartPolicy string
  volumeMounts []core.VolumeMount merge=mountPath
  volumeDevices []object merge=devicePath
  livenessProbe object
  readinessProbe object
  startupProbe object
  lifecycle object
  terminationMessagePath string
  terminationMessagePolicy string
  imagePullPolicy string
  securityContext object
  stdin boolean
  stdinOnce boolean
  tty boolean
core.ContainerPort
  name string
  hostPort integer
  containerPort integer
  protocol string
  hostIP string
core.EnvVar
  name string
  value string
  valueFrom object
core.VolumeMount
  name string
  readOnly boolean
  recursiveReadOnly string
  mountPath string
  subPath string
  mountPropagation string
  subPathExpr string
core.ResourceRequirements
  limits map[quantity]
  requests map[quantity]
  claims []object
core.Volume *
  name string
  configMap object
  secret object
  emptyDir object
  hostPath object
  persistentVolumeClaim object
  projected object
  downwardAPI object
)";
}

}  // namespace k8s::sim
