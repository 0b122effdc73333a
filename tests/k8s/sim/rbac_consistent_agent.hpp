// The part of deploy_rbac_test's operator scenario that needs
// shardingStrategy consistent: a GrafanaAgent whose discovery the operator
// runs itself (a ServiceMonitor's Endpoints with their Service and Pod, a
// Probe's Ingresses) and whose targets it serves on its metrics listener
// only to the agent's ServiceAccount, checked with a TokenReview. That is
// what the pods, ingresses and tokenreviews grants of
// deploy/operator/10-rbac.yaml are for.
// Contract: seed() applies the objects to a SimRbac already holding the
// CRDs and the examples' namespaces; served() is true once both shards
// answer the agent's token with 200 and, between them, every target seeded.
#pragma once

#include <optional>
#include <string>

#include "model/scrape/operator_sd.hpp"
#include "rbac_runner.hpp"

namespace rbac_consistent {

// Namespace, name and ServiceAccount of the agent, and the audience its
// projected token is minted for (the one the workloads render).
inline constexpr const char* kNamespace = "monitoring";
inline constexpr const char* kAgent = "sharded";
inline constexpr const char* kServiceAccount = "sharded-agent";
inline constexpr const char* kAudience = model::scrape::kOperatorTokenAudience;

void seed(testutil::SimRbac& s);

// The port of the operator's metrics listener, from its log line
// `msg="serving HTTP" address=127.0.0.1:PORT`; nullopt before it is written.
std::optional<int> listening_port(const std::string& log_path);

// Asks the operator on `port` for each shard's targets of both jobs with a
// Bearer `token`.
bool served(int port, const std::string& token);

}  // namespace rbac_consistent
