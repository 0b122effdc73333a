// remote_write entries of the global block and of each metrics instance.
// Upstream (v0.39) renders the bearer token fields as an `authorization`
// block and never renders queueConfig.maxRetries (Prometheus has no such
// setting) nor retryOnRateLimit; outside compat mode the latter becomes
// Prometheus' `retry_on_http_429`.
#include "model/scrape/common.hpp"

namespace model::scrape {
namespace {

Value basic_auth(const std::string& ns, const BasicAuth& ba, const std::string& path, AssetRefs& assets) {
  Value out = Value::object();
  if (ba.username) out.set_nonempty("username", assets.secret_value(ns, *ba.username, path + ".username"));
  if (ba.password) out.set_nonempty("password_file", assets.secret_file(ns, *ba.password, path + ".password"));
  return out;
}

// Prometheus rejects credentials together with credentials_file; upstream
// writes both when both are set, otherwise the inline token wins.
Value bearer_authorization(const RemoteWriteSpec& rw, bool compat) {
  Value out = Value::obj({{"type", "Bearer"}});
  out.set_nonempty("credentials", rw.bearer_token);
  if (compat || rw.bearer_token.empty()) out.set_nonempty("credentials_file", rw.bearer_token_file);
  return out;
}

Value sigv4(const std::string& ns, const SigV4& s, const std::string& path, AssetRefs& assets) {
  Value out = Value::object();
  out.set_nonempty("region", s.region);
  out.set_nonempty("profile", s.profile);
  out.set_nonempty("role_arn", s.role_arn);
  if (s.access_key) out.set_nonempty("access_key", assets.secret_value(ns, *s.access_key, path + ".accessKey"));
  if (s.secret_key) out.set_nonempty("secret_key", assets.secret_value(ns, *s.secret_key, path + ".secretKey"));
  return out;
}

Value queue_config(const QueueConfig& q, bool compat) {
  Value out = Value::object();
  auto number = [&](const char* key, const std::optional<std::int64_t>& v) {
    if (v && *v != 0) out.set(key, *v);
  };
  number("capacity", q.capacity);
  number("min_shards", q.min_shards);
  number("max_shards", q.max_shards);
  number("max_samples_per_send", q.max_samples_per_send);
  out.set_nonempty("batch_send_deadline", q.batch_send_deadline);
  out.set_nonempty("min_backoff", q.min_backoff);
  out.set_nonempty("max_backoff", q.max_backoff);
  if (!compat && q.retry_on_rate_limit) out.set("retry_on_http_429", *q.retry_on_rate_limit);
  return out;
}

void set_auth(Value& out, const std::string& ns, const RemoteWriteSpec& rw, const std::string& path, AssetRefs& assets,
              bool compat) {
  if (rw.tls_config) out.set("tls_config", tls_config(ns, *rw.tls_config, path + ".tlsConfig", assets));
  if (rw.basic_auth) out.set_nonempty("basic_auth", basic_auth(ns, *rw.basic_auth, path + ".basicAuth", assets));
  if (rw.oauth2) out.set("oauth2", file_oauth2(ns, *rw.oauth2, path + ".oauth2", assets, compat));
  if (!rw.bearer_token.empty() || !rw.bearer_token_file.empty())
    out.set("authorization", bearer_authorization(rw, compat));
  if (rw.sigv4) out.set("sigv4", sigv4(ns, *rw.sigv4, path + ".sigv4", assets));
}

Value remote_write(const std::string& ns, const RemoteWriteSpec& rw, const std::string& path, AssetRefs& assets,
                   bool compat) {
  Value out = Value::obj({{"url", rw.url}});
  out.set_nonempty("name", rw.name);
  out.set_nonempty("remote_timeout", rw.remote_timeout);
  out.set_nonempty("headers", string_map(rw.headers));
  out.set_nonempty("proxy_url", rw.proxy_url);
  out.set_nonempty("write_relabel_configs", relabel_rules(rw.write_relabel_configs, compat));
  set_auth(out, ns, rw, path, assets, compat);
  if (rw.queue_config) out.set("queue_config", queue_config(*rw.queue_config, compat));
  if (rw.has_metadata_config) {
    // `send` is a plain bool in the CRD: absent means false.
    Value md = Value::obj({{"send", rw.metadata_send.value_or(false)}});
    md.set_nonempty("send_interval", rw.metadata_send_interval);
    out.set("metadata_config", std::move(md));
  }
  return out;
}

}  // namespace

Value file_oauth2(const std::string& ns, const OAuth2& o, const std::string& path, AssetRefs& assets, bool compat) {
  Value out = Value::object();
  if (o.client_id.secret || !compat) {
    out.set_nonempty("client_id", assets.value(ns, o.client_id, path + ".clientId"));
    scrape::require_oauth2_field(assets, !out.find("client_id"), path + ".clientId", "client_id");
  }
  if (o.client_secret)
    out.set_nonempty("client_secret_file", assets.secret_file(ns, *o.client_secret, path + ".clientSecret"));
  scrape::require_oauth2_field(assets, !out.find("client_secret_file"), path + ".clientSecret", "client_secret");
  out.set_nonempty("token_url", o.token_url);
  out.set_nonempty("scopes", Value::strings(o.scopes));
  out.set_nonempty("endpoint_params", string_map(o.endpoint_params));
  return out;
}

Value remote_writes(const std::string& ns, const std::vector<RemoteWriteSpec>& specs, const std::string& path,
                    AssetRefs& assets, bool compat) {
  Value out = Value::array();
  for (std::size_t i = 0; i < specs.size(); ++i)
    out.push(remote_write(ns, specs[i], path + "[" + std::to_string(i) + "]", assets, compat));
  return out;
}

}  // namespace model::scrape
