// Preloading manifests into a Cluster (simcluster --crds / --load): reads
// YAML or JSON files, multi-document, or every *.yaml/*.yml/*.json file of
// a directory in name order, and applies the objects as `kubectl apply`
// would: CustomResourceDefinitions first, then Namespaces, then the rest.
// A later object with the same kind, namespace and name replaces an
// earlier one.
// Contract: throws std::runtime_error naming the file and object on the
// first failure; returns the number of objects applied.
#pragma once

#include <string>
#include <vector>

#include "k8s/sim/cluster.hpp"

namespace k8s::sim {

std::size_t load_manifests(Cluster& cluster, const std::vector<std::string>& paths);

// A kubeconfig with one cluster, user and context named "simcluster" and
// the default namespace; `ca_pem` becomes certificate-authority-data and
// `token` the user's bearer token when not empty.
std::string kubeconfig_yaml(const std::string& server_url, const std::string& ca_pem = "",
                            const std::string& token = "");

}  // namespace k8s::sim
