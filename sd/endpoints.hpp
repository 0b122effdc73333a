// Which integrations pods an Endpoints object names: the operator's
// `<agent>-integrations` Service carries the GrafanaAgent's name as a
// label, and Kubernetes copies a Service's labels onto its Endpoints, so
// the object alone says whose pods these are. Only ready addresses count
// (notReadyAddresses are left out: a pod that is not ready may not serve
// its SD API yet).
// Contract: pure. read_endpoints returns nullopt for an object that is not
// an integrations Endpoints (no agent label, no namespace, or a name other
// than `<agent>-integrations`); when a subset lists several ports, the one
// named like the agent's default port (http-metrics) is asked. IPv6 addresses come
// back bracketed ("[fd00::1]:8080"), ready for a URL. Addresses are sorted
// and unique.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/value.hpp"
#include "sd/aggregator.hpp"

namespace sd {

// The operator's integrations Service carries model::kAgentNameLabel and
// model::kTypeLabel = kIntegrationsType (model/workloads.cpp), as do its
// Endpoints; the informer selects on them.
inline constexpr const char* kIntegrationsType = "integrations";
inline constexpr const char* kPortName = "http-metrics";  // the agent's default port name

struct EndpointsPods {
  AgentKey agent;
  std::vector<std::string> addresses;  // "host:port"
};

std::optional<EndpointsPods> read_endpoints(const model::Value& endpoints);

// The label selector of the Endpoints informer.
std::string endpoints_label_selector();

}  // namespace sd
