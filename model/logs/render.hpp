// Building blocks of the `logs` block of agent.yml (used by config_logs.cpp
// and config_integrations.cpp): Loki clients and PodLogs scrape configs.
// Relabel rules, selector rules, TLS and kubernetes_sd API-server settings
// come from model/scrape/common.hpp, shared with the metrics jobs.
// Contract: pure; Secret/ConfigMap references resolve through the AssetRefs
// passed in, so failures land as FieldErrors with the given path prefix.
// upstream_compat reproduces upstream's output forms (see
// docs/differences.md); otherwise the corrected forms are emitted.
#pragma once

#include <string>

#include "model/agent.hpp"
#include "model/assets.hpp"
#include "model/render.hpp"

namespace model::logs {

// --- client.cpp ---
// One Loki client. `ns` is where its references resolve; `path` prefixes
// error paths (e.g. "spec.clients[0]"). With `compat`, an OAuth2 clientId
// from a ConfigMap is neither read nor rendered, as upstream (a TODO there).
Value logs_client(const GrafanaAgent& agent, const std::string& ns, const LogsClientSpec& spec, const std::string& path,
                  AssetRefs& assets, bool compat = false);

// --- pod_logs.cpp ---
// The scrape_config of one PodLogs. `sd_fields` is
// scrape::api_server_sd_fields() of the agent. Problems only this PodLogs
// causes (e.g. a podTargetLabel that cannot be a label name) go to
// `errors`; the caller then leaves it out.
Value pod_logs_scrape_config(const GrafanaAgent& agent, const PodLogs& pl, const Value& sd_fields,
                             const RenderOptions& opts, FieldErrors& errors);

}  // namespace model::logs
