// TLS and authentication blocks of the metrics scrape jobs and of the
// kubernetes_sd API-server settings. Monitors get their secrets inlined
// (the agent has no per-monitor files for them), TLS material is a file
// path under the secrets mount, as upstream renders it, unless the caller
// asks for inline PEM (the target allocator's collectors have no mount).
#include "model/scrape/common.hpp"

namespace model::scrape {
namespace {

// Upstream renders {type: Bearer, credentials, credentials_file} from the
// bearer token fields and ignores apiServer.authorization. Prometheus
// rejects credentials together with credentials_file, so outside compat
// mode the inline token wins, and apiServer.authorization is honoured.
Value api_authorization(const GrafanaAgent& agent, const APIServerConfig& api, AssetRefs& assets, bool compat) {
  Value out = Value::object();
  if (!api.bearer_token.empty() || !api.bearer_token_file.empty()) {
    out.set("type", "Bearer");
    out.set_nonempty("credentials", api.bearer_token);
    if (compat || api.bearer_token.empty()) out.set_nonempty("credentials_file", api.bearer_token_file);
    return out;
  }
  if (compat || !api.authorization) return out;
  const Authorization& a = *api.authorization;
  out = inline_authorization(agent.meta.ns, a, "spec.apiServer.authorization", assets);
  if (!a.credentials) out.set_nonempty("credentials_file", a.credentials_file);
  return out;
}

}  // namespace

// Prometheus accepts either form per field, never both, so an explicit
// *File field still wins over the inline value.
Value tls_config(const std::string& ns, const TLSConfig& tls, const std::string& path, AssetRefs& assets,
                 bool inline_pem) {
  Value out = Value::object();
  auto material = [&](const char* field, const std::string& file, const SecretOrConfigMap& ref, const char* sub) {
    if (!file.empty())
      out.set(std::string(field) + "_file", file);
    else if (inline_pem)
      out.set_nonempty(field, assets.value(ns, ref, path + sub));
    else
      out.set_nonempty(std::string(field) + "_file", assets.file(ns, ref, path + sub));
  };
  material("ca", tls.ca_file, tls.ca, ".ca");
  material("cert", tls.cert_file, tls.cert, ".cert");
  if (!tls.key_file.empty())
    out.set("key_file", tls.key_file);
  else if (tls.key_secret && inline_pem)
    out.set_nonempty("key", assets.secret_value(ns, *tls.key_secret, path + ".keySecret"));
  else if (tls.key_secret)
    out.set_nonempty("key_file", assets.secret_file(ns, *tls.key_secret, path + ".keySecret"));
  out.set_nonempty("server_name", tls.server_name);
  if (tls.insecure_skip_verify.value_or(false)) out.set("insecure_skip_verify", true);
  out.set_nonempty("min_version", tls.min_version);
  out.set_nonempty("max_version", tls.max_version);
  return out;
}

Value inline_basic_auth(const std::string& ns, const BasicAuth& ba, const std::string& path, AssetRefs& assets) {
  Value out = Value::object();
  if (ba.username) out.set_nonempty("username", assets.secret_value(ns, *ba.username, path + ".username"));
  if (ba.password) out.set_nonempty("password", assets.secret_value(ns, *ba.password, path + ".password"));
  return out;
}

void require_oauth2_field(AssetRefs& assets, bool empty, const std::string& path, const char* field) {
  // A missing required reference has already been reported at this path.
  bool reported = !assets.errors.empty() && assets.errors.back().path.rfind(path, 0) == 0;
  if (empty && !reported)
    assets.error(
        path, std::string("resolves to an empty value (a missing optional reference?), but oauth2 requires ") + field);
}

Value inline_oauth2(const std::string& ns, const OAuth2& o, const std::string& path, AssetRefs& assets,
                    bool inline_pem) {
  Value out = Value::object();
  out.set_nonempty("client_id", assets.value(ns, o.client_id, path + ".clientId"));
  require_oauth2_field(assets, !out.find("client_id"), path + ".clientId", "client_id");
  if (o.client_secret)
    out.set_nonempty("client_secret", assets.secret_value(ns, *o.client_secret, path + ".clientSecret"));
  require_oauth2_field(assets, !out.find("client_secret"), path + ".clientSecret", "client_secret");
  out.set_nonempty("token_url", o.token_url);
  out.set_nonempty("scopes", Value::strings(o.scopes));
  out.set_nonempty("endpoint_params", string_map(o.endpoint_params));
  if (o.tls_config)
    out.set_nonempty("tls_config", tls_config(ns, *o.tls_config, path + ".tlsConfig", assets, inline_pem));
  set_proxy(out, ns, o.proxy, path, assets);
  return out;
}

Value inline_authorization(const std::string& ns, const Authorization& a, const std::string& path, AssetRefs& assets) {
  Value out = Value::obj({{"type", a.type.empty() ? std::string("Bearer") : a.type}});
  if (a.credentials) out.set_nonempty("credentials", assets.secret_value(ns, *a.credentials, path + ".credentials"));
  return out;
}

Value api_server_sd_fields(const GrafanaAgent& agent, AssetRefs& assets, bool compat) {
  Value out = Value::object();
  if (!agent.api_server) return out;
  const APIServerConfig& api = *agent.api_server;
  const std::string& ns = agent.meta.ns;
  out.set_nonempty("api_server", api.host);
  if (api.basic_auth)
    out.set_nonempty("basic_auth", inline_basic_auth(ns, *api.basic_auth, "spec.apiServer.basicAuth", assets));
  out.set_nonempty("authorization", api_authorization(agent, api, assets, compat));
  if (api.tls_config) out.set("tls_config", tls_config(ns, *api.tls_config, "spec.apiServer.tlsConfig", assets));
  return out;
}

}  // namespace model::scrape
