// The Kubernetes objects built around the configs: config and assets
// Secrets, the governing Service, metrics StatefulSets (one per shard), the
// logs DaemonSet, the integrations DaemonSet/Deployment and the
// integrations Service, with upstream's names, labels, pod templates and
// ownerReferences.
// Contract: pure; each function returns complete objects ready to apply.
#pragma once

#include <string>
#include <vector>

#include "model/hierarchy.hpp"
#include "model/integrations.hpp"
#include "model/render.hpp"

namespace model {

// A config Secret holding agent.yml (gzip-compressed above the threshold).
Value make_config_secret(const GrafanaAgent& agent, const std::string& name, const std::string& agent_yml,
                         const RenderOptions& opts);
// "<ga>-secrets": every asset, keys sanitised from the store keys.
Value make_assets_secret(const GrafanaAgent& agent, const std::map<std::string, std::string>& assets,
                         const RenderOptions& opts);
// "<ga>-operated", the headless governing Service.
Value make_governing_service(const GrafanaAgent& agent, const RenderOptions& opts);
// One StatefulSet per shard.
std::vector<Value> make_metrics_statefulsets(const GrafanaAgent& agent, const RenderOptions& opts);
// shardingStrategy node: "<ga>-metrics", one metrics agent per Node, each
// pod asking the operator for its own Node's targets (its name as SHARD).
Value make_metrics_daemonset(const GrafanaAgent& agent, const RenderOptions& opts);
// "<ga>-logs".
Value make_logs_daemonset(const GrafanaAgent& agent, const RenderOptions& opts);
// "<ga>-integrations-ds" (all_nodes) or "<ga>-integrations-deploy", for the
// given integrations (already filtered by type).
Value make_integrations_workload(const GrafanaAgent& agent, const std::vector<IntegrationView>& integrations,
                                 bool all_nodes, const RenderOptions& opts);
// "<ga>-integrations": a ClusterIP Service over every integrations pod of
// the agent (DaemonSet and Deployment), whose Endpoints the operator's SD
// aggregator reads. Contract (the aggregator's informer relies on it):
// labels {kManagedByLabel: kManagedByValue, kAgentNameLabel: <ga>,
// kTypeLabel: integrations} plus the -labels; selector
// {app.kubernetes.io/name: grafana-agent, kAgentNameLabel: <ga>,
// kTypeLabel: integrations}; one port named agent.port_name, 8080 ->
// agent.port_name; owned (controller) by the GrafanaAgent.
Value make_integrations_service(const GrafanaAgent& agent, const RenderOptions& opts);

}  // namespace model
