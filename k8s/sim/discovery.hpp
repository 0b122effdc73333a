// Discovery documents: /version, /api, /apis, /apis/<group> and the
// per-version resource lists, in both the legacy form and the aggregated
// form (apidiscovery.k8s.io/v2) kubectl 1.32 asks for first.
// Contract: pure functions of the registry's current types; groups and
// versions come out in the order the real server uses (built-in groups
// first, versions by Kubernetes version priority).
#pragma once

#include <string>
#include <vector>

#include "k8s/sim/resource_types.hpp"
#include "model/value.hpp"

namespace k8s::sim {

model::Value version_info();
model::Value api_versions(const std::string& server_address);
model::Value api_group_list(const std::vector<ResourceType>& types);
// Null when the group is not served.
model::Value api_group(const std::vector<ResourceType>& types, const std::string& group);
// Null when the group/version is not served.
model::Value api_resource_list(const std::vector<ResourceType>& types, const std::string& group,
                               const std::string& version);
// Aggregated discovery for /api (core = true) or /apis.
model::Value aggregated_discovery(const std::vector<ResourceType>& types, bool core);

// Kubernetes version priority: v1 > v1beta2 > v1beta1 > v1alpha1 > other.
bool version_less(const std::string& a, const std::string& b);
// The group/versions served, ("" , "v1") first, then groups in order.
std::vector<std::pair<std::string, std::string>> group_versions(const std::vector<ResourceType>& types);

}  // namespace k8s::sim
