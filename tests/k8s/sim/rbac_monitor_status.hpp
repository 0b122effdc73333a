// The part of deploy_rbac_test's operator scenario that needs the monitor
// status writer (on by default): it reads each monitor kind's CRD and
// patches the status subresource of the monitors the examples' agents
// select. That is what the customresourcedefinitions get
// and the four <monitor>/status patch grants of
// deploy/operator/10-rbac.yaml are for.
// prometheus-operator's CRDs as shipped restrict status.bindings[].group to
// monitoring.coreos.com, so the operator would write nothing to
// ServiceMonitors, PodMonitors and Probes; seed() replaces those three CRDs
// with copies whose enums also admit our group and resource, as a cluster
// whose prometheus-operator admits other controllers' bindings would serve
// them. Our own IntegrationMonitor CRD is used as shipped.
// Contract: seed() runs after deploy/prometheus-operator-crds is loaded;
// converged() is true once one monitor of each kind from deploy/examples
// has an accepted entry of ours for the examples' GrafanaAgent, and the
// invalid ServiceMonitor shop/broken a rejected one.
#pragma once

#include "rbac_runner.hpp"

namespace rbac_monitor_status {

void seed(testutil::SimRbac& s);

bool converged(testutil::SimRbac& s);

}  // namespace rbac_monitor_status
