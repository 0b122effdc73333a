// The label and annotation sets on the objects built around a GrafanaAgent:
// pod selector labels, pod labels and annotations, workload labels and
// annotations, and the operator's -labels flag merged over them.
// Contract: pure; Labels are std::map, so every set iterates (and renders)
// in key order. Later sources win: extras over the base selector labels,
// selector labels over podMetadata labels, -labels over everything.
#pragma once

#include <string>

#include "model/agent.hpp"
#include "model/render.hpp"

namespace model {

inline constexpr const char* kShardLabel = "operator.agent.grafana.com/shard";
inline constexpr const char* kTypeLabel = "operator.agent.grafana.com/type";
// The GrafanaAgent of an integrations target, added by the operator's SD
// aggregator (sd/aggregator) and kept by IntegrationMonitor jobs.
inline constexpr const char* kSdAgentNamespaceLabel = "__meta_agentoperator_grafanaagent_namespace";
inline constexpr const char* kSdAgentNameLabel = "__meta_agentoperator_grafanaagent_name";
inline constexpr const char* kVersionLabel = "app.kubernetes.io/version";
// Deliberate fix for upstream issue #6857: upstream gives the integrations
// DaemonSet and Deployment identical selectors, so each selects the other's
// pods. Outside upstream_compat mode both carry this label ("daemonset" or
// "deployment") in their selector, pod labels and workload labels.
inline constexpr const char* kIntegrationsModeLabel = "operator.agent.grafana.com/integrations-mode";
inline constexpr const char* kDefaultContainerAnnotation = "kubectl.kubernetes.io/default-container";

// The labels every pod of `agent` is selected by, with `extras` added (extras
// win on conflicts). -labels are not applied yet.
Labels pod_selector_labels(const GrafanaAgent& agent, const Labels& extras);
// The version label, then spec.podMetadata.labels, then `selector` on top.
Labels pod_labels(const GrafanaAgent& agent, const Labels& selector, const RenderOptions& opts);
// spec.podMetadata.annotations plus the default-container annotation.
Labels pod_annotations(const GrafanaAgent& agent);
// `labels` with the operator's -labels merged over them (the flag wins).
Labels with_operator_labels(const Labels& labels, const RenderOptions& opts);
// A workload's labels: its (final) pod labels minus the version label, which
// would otherwise change on every operator upgrade.
Labels workload_labels(const Labels& final_pod_labels);
// The GrafanaAgent's annotations minus kubectl.kubernetes.io/*, so kubectl
// never prunes the generated objects.
Labels workload_annotations(const GrafanaAgent& agent);

// A string map as a Value object.
Value labels_value(const Labels& labels);
// Reads the string members of an object (others are skipped).
Labels string_map(const Value* object);
// A DNS-1123 label: lower-cased, each run of other characters replaced by
// "-", cut to 63 characters, leading/trailing "-" trimmed.
std::string sanitize_volume_name(const std::string& name);

}  // namespace model
