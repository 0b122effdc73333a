// The service discovery of a ScrapeConfig job: static_configs,
// file_sd_configs, http_sd_configs and kubernetes_sd_configs in the shape
// prometheus-operator renders them, with each SD config's HTTP client
// (auth from Secrets of the ScrapeConfig's namespace, inlined).
#include "model/scrape/common.hpp"

namespace model::scrape {
namespace {

std::string at(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

void check_refresh(const std::string& interval, const std::string& path, AssetRefs& assets) {
  if (!interval.empty() && !parse_duration(interval))
    assets.error(path + ".refreshInterval", "invalid duration \"" + interval + "\"");
}

// basic_auth, authorization, oauth2, proxy, follow_redirects, enable_http2
// and tls_config of one SD config; `path` is the entry's field path.
void set_sd_http_client(Value& out, const JobContext& ctx, const std::string& ns, const SdHttpClient& h,
                        const std::string& path, AssetRefs& assets) {
  if (h.basic_auth) out.set_nonempty("basic_auth", inline_basic_auth(ns, *h.basic_auth, path + ".basicAuth", assets));
  if (h.authorization)
    out.set("authorization", authorization_block(ns, *h.authorization, path + ".authorization", assets));
  if (h.oauth2) out.set("oauth2", inline_oauth2(ns, *h.oauth2, path + ".oauth2", assets, ctx.opts.inline_tls));
  set_proxy(out, ns, h.proxy, path, assets);
  if (h.follow_redirects) out.set("follow_redirects", *h.follow_redirects);
  if (h.enable_http2) out.set("enable_http2", *h.enable_http2);
  if (h.tls_config)
    out.set("tls_config", tls_config(ns, *h.tls_config, path + ".tlsConfig", assets, ctx.opts.inline_tls));
}

Value static_configs(const ScrapeConfig& sc) {
  Value out = Value::array();
  for (const auto& g : sc.static_configs) {
    Value labels = Value::object();
    for (const auto& [k, v] : g.labels) labels.set(k, v);
    out.push(Value::obj({{"targets", Value::strings(g.targets)}, {"labels", std::move(labels)}}));
  }
  return out;
}

Value file_sd_configs(const ScrapeConfig& sc, AssetRefs& assets) {
  Value out = Value::array();
  for (std::size_t i = 0; i < sc.file_sd_configs.size(); ++i) {
    const FileSdConfig& f = sc.file_sd_configs[i];
    check_refresh(f.refresh_interval, at("spec.fileSDConfigs", i), assets);
    Value entry = Value::obj({{"files", Value::strings(f.files)}});
    entry.set_nonempty("refresh_interval", f.refresh_interval);
    out.push(std::move(entry));
  }
  return out;
}

Value http_sd_configs(const JobContext& ctx, const ScrapeConfig& sc, AssetRefs& assets) {
  Value out = Value::array();
  for (std::size_t i = 0; i < sc.http_sd_configs.size(); ++i) {
    const HttpSdConfig& h = sc.http_sd_configs[i];
    const std::string path = at("spec.httpSDConfigs", i);
    check_refresh(h.refresh_interval, path, assets);
    Value entry = Value::object();
    set_sd_http_client(entry, ctx, sc.meta.ns, h.http, path, assets);
    entry.set("url", h.url);
    entry.set_nonempty("refresh_interval", h.refresh_interval);
    out.push(std::move(entry));
  }
  return out;
}

Value kubernetes_entry(const JobContext& ctx, const ScrapeConfig& sc, std::size_t i, AssetRefs& assets) {
  const KubernetesSdConfig& k = sc.kubernetes_sd_configs[i];
  Value entry = Value::object();
  if (k.api_server) entry.set("api_server", *k.api_server);
  entry.set("role", k.role);
  set_sd_http_client(entry, ctx, sc.meta.ns, k.http, at("spec.kubernetesSDConfigs", i), assets);
  if (k.has_namespaces) {
    Value ns = Value::obj({{"names", Value::strings(k.namespace_names)}});
    if (k.own_namespace) ns.set("own_namespace", *k.own_namespace);
    entry.set("namespaces", std::move(ns));
  }
  if (!k.selectors.empty()) {
    Value selectors = Value::array();
    for (const auto& s : k.selectors) {
      Value one = Value::obj({{"role", s.role}});
      if (s.label) one.set("label", *s.label);
      if (s.field) one.set("field", *s.field);
      selectors.push(std::move(one));
    }
    entry.set("selectors", std::move(selectors));
  }
  // Prometheus attaches node metadata for these roles only; prometheus-
  // operator drops the setting for the others.
  if (k.attach_metadata_node && (k.role == "pod" || k.role == "endpoints" || k.role == "endpointslice"))
    entry.set("attach_metadata", Value::obj({{"node", *k.attach_metadata_node}}));
  return entry;
}

}  // namespace

void set_proxy(Value& out, const std::string& ns, const ProxySettings& p, const std::string& path, AssetRefs& assets) {
  out.set_nonempty("proxy_url", p.proxy_url);
  out.set_nonempty("no_proxy", p.no_proxy);
  if (p.proxy_from_environment) out.set("proxy_from_environment", *p.proxy_from_environment);
  if (p.proxy_connect_header.empty()) return;
  Value headers = Value::object();
  for (const auto& [name, refs] : p.proxy_connect_header) {
    Value values = Value::array();
    for (std::size_t i = 0; i < refs.size(); ++i)
      values.push(assets.secret_value(ns, refs[i], at(path + ".proxyConnectHeader." + name, i)));
    headers.set(name, std::move(values));
  }
  out.set("proxy_connect_header", std::move(headers));
}

void set_scrape_config_sd(Value& job, const JobContext& ctx, const ScrapeConfig& sc, AssetRefs& assets) {
  job.set_nonempty("static_configs", static_configs(sc));
  job.set_nonempty("file_sd_configs", file_sd_configs(sc, assets));
  job.set_nonempty("http_sd_configs", http_sd_configs(ctx, sc, assets));
  Value k8s = Value::array();
  for (std::size_t i = 0; i < sc.kubernetes_sd_configs.size(); ++i) k8s.push(kubernetes_entry(ctx, sc, i, assets));
  job.set_nonempty("kubernetes_sd_configs", std::move(k8s));
}

}  // namespace model::scrape
