// The two forms of a monitor job under shardingStrategy: consistent: the
// agent's (discovery replaced by an http_sd config polling the operator for
// this shard's share) and the operator's (discovery kept, scrape settings
// and credentials dropped), from one job rendered without sharding rules.
// Contract: pure; a job without kubernetes_sd_configs or static_configs
// keeps its discovery (it is not one the operator runs).
#pragma once

#include "model/agent.hpp"
#include "model/render.hpp"
#include "model/value.hpp"

namespace model::scrape {

// Where the agent pods find the token they show the operator: a projected
// ServiceAccount token for the audience kOperatorTokenAudience.
inline constexpr const char* kOperatorTokenPath = "/var/run/secrets/agent-operator/token";
inline constexpr const char* kOperatorTokenAudience = "agent-operator";
inline constexpr const char* kOperatorSdRefresh = "30s";
// Expanded per shard by the config reloader (the shard's SHARD variable).
inline constexpr const char* kShardPlaceholder = "$(SHARD)";

// Replaces `job`'s kubernetes_sd_configs and static_configs with one
// http_sd_configs entry: RenderOptions::operator_targets_url with
// agent=<ns>/<name>, job=<job_name> and shard=$(SHARD), a Bearer token
// read from kOperatorTokenPath.
void poll_operator_for_targets(Value& job, const GrafanaAgent& agent, const RenderOptions& opts);
// The same for one job or an array of jobs.
void poll_operator_for_targets_all(Value& jobs, const GrafanaAgent& agent, const RenderOptions& opts);

// The operator's copy of a job: without credentials, TLS, proxy and
// metric relabeling (the allocator only discovers and relabels targets).
Value allocation_job(Value job);

}  // namespace model::scrape
