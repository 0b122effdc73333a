// Built-in schemas: apps/v1 workloads. Notation: see builtin_schemas.cpp.
#include "k8s/sim/builtin_schemas.hpp"

namespace k8s::sim {

std::string_view apps_schema_text() {
  return R"(
apps.Deployment
  @kind
  spec apps.DeploymentSpec
  status apps.DeploymentStatus
apps.DeploymentSpec
  replicas integer
  selector meta.LabelSelector
  template core.PodTemplateSpec
  strategy apps.DeploymentStrategy retainKeys
  minReadySeconds integer
  revisionHistoryLimit integer
  paused boolean
  progressDeadlineSeconds integer
apps.DeploymentStrategy
  type string
  rollingUpdate object
apps.StatefulSet
  @kind
  spec apps.StatefulSetSpec
  status apps.StatefulSetStatus
apps.StatefulSetSpec
  replicas integer
  selector meta.LabelSelector
  template core.PodTemplateSpec
  volumeClaimTemplates []object
  serviceName string
  podManagementPolicy string
  updateStrategy object
  revisionHistoryLimit integer
  minReadySeconds integer
  persistentVolumeClaimRetentionPolicy object
  ordinals object
apps.DaemonSet
  @kind
  spec apps.DaemonSetSpec
  status apps.DaemonSetStatus
apps.DaemonSetSpec
  selector meta.LabelSelector
  template core.PodTemplateSpec
  updateStrategy object
  minReadySeconds integer
  revisionHistoryLimit integer
apps.DeploymentStatus *
  conditions []object merge=type
apps.StatefulSetStatus *
  conditions []object merge=type
apps.DaemonSetStatus *
  conditions []object merge=type
)";
}

}  // namespace k8s::sim
