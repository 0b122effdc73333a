// ScrapeConfig service discovery: static, file, HTTP and Kubernetes SD
// entries with their HTTP clients, and the refusal of every other SD kind.
#include <algorithm>
#include <array>
#include <cctype>

#include "model/scrape_config_decode.hpp"
#include "model/text.hpp"

namespace model {
namespace {

constexpr std::array<const char*, 4> kSupported = {"staticConfigs", "fileSDConfigs", "httpSDConfigs",
                                                   "kubernetesSDConfigs"};
constexpr std::array<const char*, 6> kRoles = {"pod", "endpoints", "ingress", "service", "node", "endpointslice"};

// A Kubernetes role as Prometheus spells it; the CRD's enum is Pod,
// Endpoints, ..., compared without case as prometheus-operator does.
std::string decode_role(const Reader& r) {
  auto role = r.str("role");
  if (!role) {
    if (!r.node()->find("role") || r.node()->find("role")->is_null()) r.error("role", "is required");
    return "";
  }
  std::string l = model::ascii_lower(*role);
  if (std::find(kRoles.begin(), kRoles.end(), l) == kRoles.end()) {
    r.error("role", "must be one of Pod, Endpoints, Ingress, Service, Node, EndpointSlice, got \"" + *role + "\"");
    return "";
  }
  return l;
}

SdHttpClient decode_http_client(const Reader& r) {
  SdHttpClient c;
  c.basic_auth = decode_basic_auth(r, "basicAuth");
  c.authorization = decode_safe_authorization(r, "authorization");
  c.oauth2 = decode_oauth2(r, "oauth2");
  c.tls_config = decode_safe_tls(r, "tlsConfig");
  c.proxy = decode_proxy(r);
  c.follow_redirects = r.boolean("followRedirects");
  c.enable_http2 = r.boolean("enableHTTP2");
  // Prometheus's HTTP client: at most one of basic_auth, authorization, oauth2.
  check_exclusive(r, {{"basicAuth", c.basic_auth.has_value()},
                      {"authorization", c.authorization.has_value()},
                      {"oauth2", c.oauth2.has_value()}});
  return c;
}

// The CRD's file pattern: a .json/.yml/.yaml name, with at most one `*`
// and only in the last path element.
bool valid_sd_file(const std::string& f) {
  static constexpr std::array<const char*, 6> kExt = {".json", ".yml", ".yaml", ".JSON", ".YML", ".YAML"};
  bool ext = std::any_of(kExt.begin(), kExt.end(), [&](const char* e) { return f.ends_with(e); });
  auto star = f.find('*');
  return ext && (star == std::string::npos ||
                 (f.find('*', star + 1) == std::string::npos && f.find('/', star) == std::string::npos));
}

void decode_static(const Reader& spec, ScrapeConfig& sc) {
  spec.each("staticConfigs", [&](const Reader& r, std::size_t) {
    StaticTargetGroup g{r.strings("targets"), r.string_map("labels")};
    if (g.targets.empty()) r.error("targets", "must list at least one target");
    for (std::size_t i = 0; i < g.targets.size(); ++i)
      if (g.targets[i].empty()) r.error_at(r.path_of("targets") + "[" + std::to_string(i) + "]", "must not be empty");
    sc.static_configs.push_back(std::move(g));
  });
}

void decode_file_sd(const Reader& spec, ScrapeConfig& sc) {
  spec.each("fileSDConfigs", [&](const Reader& r, std::size_t) {
    FileSdConfig f{r.strings("files"), r.str_or("refreshInterval")};
    if (f.files.empty()) r.error("files", "must list at least one file");
    for (std::size_t i = 0; i < f.files.size(); ++i)
      if (!valid_sd_file(f.files[i]))
        r.error_at(r.path_of("files") + "[" + std::to_string(i) + "]",
                   "must be a .json, .yml or .yaml file (one * allowed in the file name), got \"" + f.files[i] + "\"");
    sc.file_sd_configs.push_back(std::move(f));
  });
}

void decode_http_sd(const Reader& spec, ScrapeConfig& sc) {
  spec.each("httpSDConfigs", [&](const Reader& r, std::size_t) {
    HttpSdConfig h{r.str_or("url"), r.str_or("refreshInterval"), decode_http_client(r)};
    if (h.url.empty())
      r.error("url", "is required");
    else if (!(h.url.starts_with("http://") || h.url.starts_with("https://")) || h.url.find("://") + 3 == h.url.size())
      r.error("url", "must be an http:// or https:// URL, got \"" + h.url + "\"");
    sc.http_sd_configs.push_back(std::move(h));
  });
}

KubernetesSdConfig decode_kubernetes(const Reader& r) {
  KubernetesSdConfig k;
  k.api_server = r.str("apiServer");
  k.role = decode_role(r);
  Reader ns = r.object("namespaces");
  k.has_namespaces = ns.present();
  k.namespace_names = ns.strings("names");
  k.own_namespace = ns.boolean("ownNamespace");
  if (Reader am = r.object("attachMetadata"); am.present()) k.attach_metadata_node = am.flag("node");
  r.each("selectors", [&](const Reader& s, std::size_t) {
    k.selectors.push_back(KubernetesSdSelector{decode_role(s), s.str("label"), s.str("field")});
  });
  k.http = decode_http_client(r);
  // The pod's own namespace means nothing on another API server.
  if (k.api_server && k.own_namespace.value_or(false))
    ns.error("ownNamespace", "cannot be used together with apiServer");
  return k;
}

// Every SD kind prometheus-operator knows but the allocator cannot run:
// refused by name so the ScrapeConfig is reported, never served without
// the targets it asks for.
void refuse_other_sd(const Reader& spec) {
  if (!spec.present()) return;
  for (const auto& entry : spec.node()->as_object()) {
    const std::string& key = entry.first;  // clang 14 cannot capture a structured binding
    const auto& value = entry.second;
    if (!key.ends_with("SDConfigs") || value.is_null()) continue;
    if (std::find_if(kSupported.begin(), kSupported.end(), [&](const char* k) { return key == k; }) != kSupported.end())
      continue;
    if (value.is_array() && value.as_array().empty()) continue;  // asks for nothing
    spec.error(key,
               "not supported: service discovery here is staticConfigs, fileSDConfigs, httpSDConfigs or "
               "kubernetesSDConfigs");
  }
}

}  // namespace

std::optional<Authorization> decode_safe_authorization(const Reader& parent, std::string_view key) {
  auto a = decode_authorization(parent, key);
  if (!a) return a;
  Reader r = parent.object(key);
  if (!a->credentials_file.empty()) r.error("credentialsFile", "is not a field of this authorization (no files)");
  // prometheus-operator's SafeAuthorization validation.
  if (!a->credentials) r.error("credentials", "is required");
  return a;
}

std::optional<TLSConfig> decode_safe_tls(const Reader& parent, std::string_view key) {
  auto t = decode_tls(parent, key, false);
  if (!t) return t;
  Reader r = parent.object(key);
  if (!t->cert.empty() && !t->key_secret) r.error("cert", "client cert requires keySecret");
  if (t->cert.empty() && t->key_secret) r.error("keySecret", "client key requires cert");
  return t;
}

void decode_scrape_config_sd(const Reader& spec, ScrapeConfig& sc) {
  decode_static(spec, sc);
  decode_file_sd(spec, sc);
  decode_http_sd(spec, sc);
  spec.each("kubernetesSDConfigs",
            [&](const Reader& r, std::size_t) { sc.kubernetes_sd_configs.push_back(decode_kubernetes(r)); });
  refuse_other_sd(spec);
}

}  // namespace model
