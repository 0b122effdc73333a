// Loki clients of a logs instance. Values that upstream inlines (basic
// auth, OAuth2 client id) are inlined; the OAuth2 client secret and TLS
// material are file paths under the secrets mount.
#include "model/logs/render.hpp"
#include "model/scrape/common.hpp"

namespace model::logs {
namespace {

Value backoff_config(const LogsClientSpec& c) {
  Value out = Value::object();
  out.set_nonempty("min_period", c.backoff_min_period);
  out.set_nonempty("max_period", c.backoff_max_period);
  if (c.backoff_max_retries && *c.backoff_max_retries != 0) out.set("max_retries", *c.backoff_max_retries);
  return out;
}

// {<logsExternalLabelName, default "cluster">: <ns>/<name>} unless the name
// is set to "", then the client's own labels (which win on conflicts).
Value external_labels(const GrafanaAgent& agent, const LogsClientSpec& c) {
  Value out = Value::object();
  std::string name = agent.logs.logs_external_label_name.value_or("cluster");
  if (!name.empty()) out.set(name, agent.meta.ns + "/" + agent.meta.name);
  for (const auto& [k, v] : c.external_labels) out.set(k, v);
  return out;
}

}  // namespace

Value logs_client(const GrafanaAgent& agent, const std::string& ns, const LogsClientSpec& c, const std::string& path,
                  AssetRefs& assets, bool compat) {
  Value out = Value::obj({{"url", c.url}});
  if (c.tls_config) out.set("tls_config", scrape::tls_config(ns, *c.tls_config, path + ".tlsConfig", assets));
  out.set_nonempty("proxy_url", c.proxy_url);
  out.set_nonempty("tenant_id", c.tenant_id);
  out.set_nonempty("timeout", c.timeout);
  // Promtail's client keys are batchwait/batchsize (no underscore).
  out.set_nonempty("batchwait", c.batch_wait);
  if (c.batch_size && *c.batch_size != 0) out.set("batchsize", *c.batch_size);
  if (c.basic_auth)
    out.set_nonempty("basic_auth", scrape::inline_basic_auth(ns, *c.basic_auth, path + ".basicAuth", assets));
  if (c.oauth2) out.set("oauth2", scrape::file_oauth2(ns, *c.oauth2, path + ".oauth2", assets, compat));
  out.set_nonempty("bearer_token", c.bearer_token);
  out.set_nonempty("bearer_token_file", c.bearer_token_file);
  if (c.has_backoff) out.set("backoff_config", backoff_config(c));
  out.set_nonempty("external_labels", external_labels(agent, c));
  return out;
}

}  // namespace model::logs
