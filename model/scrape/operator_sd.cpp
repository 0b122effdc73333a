// shardingStrategy: consistent. The operator discovers a monitor job's
// targets once and places them on shards; each shard's agent polls the
// operator for its share instead of running kubernetes_sd itself. So the
// agent's job keeps everything but its discovery (relabel rules included:
// the operator serves discovered labels, as kubernetes_sd would give them),
// and the operator's copy keeps discovery and relabeling but nothing a
// scrape needs (credentials, TLS, proxies).
#include "model/scrape/operator_sd.hpp"

#include <cstdio>

namespace model::scrape {
namespace {

bool query_safe(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~' || c == '/';
}

std::string query_escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (query_safe(c)) {
      out += static_cast<char>(c);
      continue;
    }
    char buf[4];
    std::snprintf(buf, sizeof buf, "%%%02X", c);
    out += buf;
  }
  return out;
}

Value operator_sd_config(const GrafanaAgent& agent, const RenderOptions& opts, const std::string& job_name) {
  const std::string& base = opts.operator_targets_url;
  std::string url = base + (base.find('?') == std::string::npos ? "?" : "&");
  url += "agent=" + query_escape(agent.meta.ns + "/" + agent.meta.name) + "&job=" + query_escape(job_name) +
         "&shard=" + kShardPlaceholder;
  return Value::obj({{"url", std::move(url)},
                     {"refresh_interval", kOperatorSdRefresh},
                     {"authorization", Value::obj({{"type", "Bearer"}, {"credentials_file", kOperatorTokenPath}})}});
}

// The fields of a job that only a scrape uses; discovery never reads them.
constexpr const char* kScrapeOnlyFields[] = {"basic_auth",
                                             "authorization",
                                             "oauth2",
                                             "bearer_token",
                                             "bearer_token_file",
                                             "tls_config",
                                             "proxy_url",
                                             "no_proxy",
                                             "proxy_from_environment",
                                             "proxy_connect_header",
                                             "metric_relabel_configs"};

}  // namespace

void poll_operator_for_targets(Value& job, const GrafanaAgent& agent, const RenderOptions& opts) {
  if (!job.is_object()) return;
  const Value* name = job.find("job_name");
  if (!name || !name->is_string()) return;
  const bool discovered = job.erase("kubernetes_sd_configs") | job.erase("static_configs");
  if (discovered) job.set("http_sd_configs", Value::arr({operator_sd_config(agent, opts, name->as_string())}));
}

void poll_operator_for_targets_all(Value& jobs, const GrafanaAgent& agent, const RenderOptions& opts) {
  if (!jobs.is_array()) {
    poll_operator_for_targets(jobs, agent, opts);
    return;
  }
  for (Value& job : jobs.as_array()) poll_operator_for_targets(job, agent, opts);
}

Value allocation_job(Value job) {
  for (const char* field : kScrapeOnlyFields) job.erase(field);
  return job;
}

}  // namespace model::scrape
