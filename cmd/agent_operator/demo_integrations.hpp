// The demo's integrations pods: for every integrations Service the
// operator created in the embedded simcluster, loopback stand-ins serve
// the targets a real agent would serve from that GrafanaAgent's rendered
// integrations configs (one per `<name>_configs` entry, with its
// extra_labels), and an Endpoints object lists them as ready, so the
// operator's aggregated SD endpoint answers real targets during the demo.
// Contract: call after the controller has synced and written; nothing is
// started when no integrations Service exists. The pods live as long as
// the returned object.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "k8s/sim/cluster.hpp"
#include "sd/standin_pods.hpp"

namespace cli {

struct DemoIntegrations {
  std::vector<std::unique_ptr<sd::StandinPods>> pods;  // one set per GrafanaAgent
  std::vector<std::string> agents;                     // "ns/name", same order
};

DemoIntegrations start_demo_integrations(k8s::sim::Cluster& cluster);

}  // namespace cli
