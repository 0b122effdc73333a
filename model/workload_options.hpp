// What each workload type adds to the shared pod template: the metrics
// shard (WAL volume, SHARD/SHARDS), the logs DaemonSet (host log paths,
// HOSTNAME, privileged) and the integrations workloads (their volumes, the
// projected Secret/ConfigMap keys, merged with the metrics and logs extras).
// Contract: pure; the option lists keep upstream's order.
#pragma once

#include <string>
#include <vector>

#include "model/integrations.hpp"
#include "model/pod_template.hpp"

namespace model {

// Upstream never sets privileged on integration pods, not even on the
// DaemonSet: merging the pod options drops the flag. Kept as upstream does;
// flip this to give integration DaemonSet pods the logs pods' privileges.
inline constexpr bool kIntegrationsDaemonSetPrivileged = false;

// The volume projecting integration Secret/ConfigMap keys from "<ga>-secrets".
inline constexpr const char* kIntegrationsSecretsPath = "/etc/grafana-agent/integrations";

// spec.metrics.shards when above 1, else 1.
std::int64_t metrics_shard_count(const GrafanaAgent& agent);
// spec.metrics.replicas, default 1, negative values become 0.
std::int64_t metrics_replicas(const GrafanaAgent& agent);
// The StatefulSet name of a shard: "<ga>", then "<ga>-shard-<i>".
std::string metrics_shard_name(const GrafanaAgent& agent, std::int64_t shard);
// True when the WAL is a volumeClaimTemplate: storage set without emptyDir.
bool uses_volume_claim_template(const GrafanaAgent& agent);
// "<workload>-wal", or the volumeClaimTemplate's metadata.name when storage
// is set (storage is ignored when `ignore_storage`).
std::string wal_volume_name(const GrafanaAgent& agent, const std::string& workload, bool ignore_storage);

// Shard `shard` of the metrics StatefulSets named `workload`. With
// `ignore_storage` the WAL is an emptyDir whatever spec.storage says.
PodTemplateOptions metrics_pod_options(const GrafanaAgent& agent, const std::string& workload, std::int64_t shard,
                                       bool ignore_storage);
// shardingStrategy node: the metrics DaemonSet `workload`'s pods. Each
// pod's SHARD is its own name, the collector id it asks the operator with
// (SHARDS is 1); the WAL is an emptyDir unless spec.storage gives one (a
// DaemonSet has no volumeClaimTemplates).
PodTemplateOptions metrics_node_pod_options(const GrafanaAgent& agent, const std::string& workload);
// The metrics DaemonSet's selector labels beyond pod_selector_labels; the
// operator's allocation watches the pods they select as its collectors.
Labels metrics_node_selector_extras();
// shardingStrategy consistent or node: a projected ServiceAccount token for the
// operator's audience, mounted where the http_sd configs read it
// (model/scrape/operator_sd.hpp), refreshed by the kubelet.
void add_operator_token(PodTemplateOptions& o);
inline constexpr std::int64_t kOperatorTokenSeconds = 3600;
PodTemplateOptions logs_pod_options();
// The integrations DaemonSet (`all_nodes`) or Deployment named `workload`,
// for `integrations` (already filtered by type).
PodTemplateOptions integrations_pod_options(const GrafanaAgent& agent, const std::string& workload,
                                            const std::vector<IntegrationView>& integrations, bool all_nodes,
                                            const RenderOptions& opts);

// Merges option sets; the first occurrence wins: of a selector label, of an
// env var name, of a volume name, and of a mount name or path (a mount lost
// to an earlier one drops its volume from that input too). `privileged` is
// never carried over, as upstream.
PodTemplateOptions merge_pod_options(const std::vector<const PodTemplateOptions*>& inputs);

}  // namespace model
