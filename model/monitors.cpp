#include "model/monitors.hpp"

#include "model/scrape_class.hpp"

namespace model {
namespace {

// attachMetadata.node, set whenever attachMetadata is present: an object
// without `node` still overrides a scrape class's (prometheus-operator).
std::optional<bool> decode_attach_node(const Reader& spec) {
  Reader am = spec.object("attachMetadata");
  if (!am.present()) return std::nullopt;
  return am.flag("node");
}

// spec.scrapeClass (the CRDs give it minLength 1) and
// spec.fallbackScrapeProtocol, fields every monitor kind shares.
void decode_class_fields(const Reader& spec, std::string& scrape_class, std::string& fallback) {
  auto name = spec.str("scrapeClass");
  if (name && name->empty()) spec.error("scrapeClass", "must not be empty");
  scrape_class = name.value_or("");
  fallback = spec.str_or("fallbackScrapeProtocol");
  if (!fallback.empty() && !is_scrape_protocol(fallback))
    spec.error("fallbackScrapeProtocol", "unknown scrape protocol \"" + fallback + "\"");
}

ScrapeLimits decode_limits(const Reader& spec) {
  ScrapeLimits l;
  l.sample_limit = spec.integer("sampleLimit");
  l.target_limit = spec.integer("targetLimit");
  l.label_limit = spec.integer("labelLimit");
  l.label_name_length_limit = spec.integer("labelNameLengthLimit");
  l.label_value_length_limit = spec.integer("labelValueLengthLimit");
  return l;
}

// The settings an IntegrationMonitor shares with endpoints: none of them
// names a port, path, scheme or credentials.
void decode_scrape_settings(const Reader& r, Endpoint& e) {
  e.params = decode_params(r);
  e.interval = r.str_or("interval");
  e.scrape_timeout = r.str_or("scrapeTimeout");
  e.honor_labels = r.flag("honorLabels");
  e.honor_timestamps = r.boolean("honorTimestamps");
  e.metric_relabelings = decode_relabelings(r, "metricRelabelings");
  e.relabelings = decode_relabelings(r, "relabelings");
}

Endpoint decode_endpoint(const Reader& r, bool service_monitor) {
  Endpoint e;
  e.port = r.str_or("port");
  e.target_port = r.int_or_string("targetPort");
  e.path = r.str_or("path");
  e.scheme = r.str_or("scheme");
  decode_scrape_settings(r, e);
  e.tls_config = decode_tls(r, "tlsConfig", service_monitor);
  if (service_monitor) e.bearer_token_file = r.str_or("bearerTokenFile");
  e.bearer_token_secret = decode_key_ref(r, "bearerTokenSecret");
  e.authorization = decode_authorization(r, "authorization");
  e.basic_auth = decode_basic_auth(r, "basicAuth");
  e.oauth2 = decode_oauth2(r, "oauth2");
  e.proxy_url = r.str_or("proxyUrl");
  e.follow_redirects = r.boolean("followRedirects");
  e.enable_http2 = r.boolean("enableHttp2");
  e.filter_running = r.boolean("filterRunning");
  if (e.scheme != "" && e.scheme != "http" && e.scheme != "https")
    r.error("scheme", "must be http or https, got \"" + e.scheme + "\"");
  // Prometheus: at most one of basic_auth, oauth2, authorization,
  // bearer_token and bearer_token_file.
  check_exclusive(r, {{"basicAuth", e.basic_auth.has_value()},
                      {"oauth2", e.oauth2.has_value()},
                      {"authorization", e.authorization.has_value()},
                      {"bearerTokenSecret", e.bearer_token_secret.has_value()},
                      {"bearerTokenFile", !e.bearer_token_file.empty()}});
  return e;
}

}  // namespace

ServiceMonitor decode_service_monitor(const Value& obj, FieldErrors& errors) {
  Reader root(&obj, "", &errors);
  ServiceMonitor sm;
  sm.meta = decode_meta(root);
  Reader spec = root.object("spec");
  sm.job_label = spec.str_or("jobLabel");
  sm.target_labels = spec.strings("targetLabels");
  sm.pod_target_labels = spec.strings("podTargetLabels");
  spec.each("endpoints", [&](const Reader& r, std::size_t) { sm.endpoints.push_back(decode_endpoint(r, true)); });
  sm.selector = decode_selector(spec, "selector");
  // The CRD requires it; without one the job would scrape every Service.
  if (!sm.selector) spec.error("selector", "is required");
  sm.namespace_selector = decode_namespace_selector(spec, "namespaceSelector");
  sm.limits = decode_limits(spec);
  sm.attach_metadata_node = decode_attach_node(spec);
  decode_class_fields(spec, sm.scrape_class, sm.fallback_scrape_protocol);
  return sm;
}

PodMonitor decode_pod_monitor(const Value& obj, FieldErrors& errors) {
  Reader root(&obj, "", &errors);
  PodMonitor pm;
  pm.meta = decode_meta(root);
  Reader spec = root.object("spec");
  pm.job_label = spec.str_or("jobLabel");
  pm.pod_target_labels = spec.strings("podTargetLabels");
  spec.each("podMetricsEndpoints",
            [&](const Reader& r, std::size_t) { pm.endpoints.push_back(decode_endpoint(r, false)); });
  pm.selector = decode_selector(spec, "selector");
  if (!pm.selector) spec.error("selector", "is required");
  pm.namespace_selector = decode_namespace_selector(spec, "namespaceSelector");
  pm.limits = decode_limits(spec);
  pm.attach_metadata_node = decode_attach_node(spec);
  decode_class_fields(spec, pm.scrape_class, pm.fallback_scrape_protocol);
  return pm;
}

Probe decode_probe(const Value& obj, FieldErrors& errors) {
  Reader root(&obj, "", &errors);
  Probe p;
  p.meta = decode_meta(root);
  Reader spec = root.object("spec");
  p.job_name = spec.str_or("jobName");
  Reader prober = spec.object("prober");
  p.prober_url = prober.str_or("url");
  p.prober_scheme = prober.str_or("scheme");
  p.has_prober_path = prober.str("path").has_value();
  p.prober_path = prober.str_or("path");
  p.prober_proxy_url = prober.str_or("proxyUrl");
  p.module = spec.str_or("module");
  Reader targets = spec.object("targets");
  Reader st = targets.object("staticConfig");
  if (st.present()) {
    p.static_targets =
        ProbeStaticTargets{st.strings("static"), st.string_map("labels"), decode_relabelings(st, "relabelingConfigs")};
  }
  Reader ing = targets.object("ingress");
  if (ing.present()) {
    p.ingress_targets =
        ProbeIngressTargets{decode_selector(ing, "selector"), decode_namespace_selector(ing, "namespaceSelector"),
                            decode_relabelings(ing, "relabelingConfigs")};
  }
  p.interval = spec.str_or("interval");
  p.scrape_timeout = spec.str_or("scrapeTimeout");
  p.tls_config = decode_tls(spec, "tlsConfig", false);
  p.bearer_token_secret = decode_key_ref(spec, "bearerTokenSecret");
  p.basic_auth = decode_basic_auth(spec, "basicAuth");
  p.oauth2 = decode_oauth2(spec, "oauth2");
  p.authorization = decode_authorization(spec, "authorization");
  p.metric_relabelings = decode_relabelings(spec, "metricRelabelings");
  p.limits = decode_limits(spec);
  decode_class_fields(spec, p.scrape_class, p.fallback_scrape_protocol);
  check_exclusive(spec, {{"basicAuth", p.basic_auth.has_value()},
                         {"oauth2", p.oauth2.has_value()},
                         {"authorization", p.authorization.has_value()},
                         {"bearerTokenSecret", p.bearer_token_secret.has_value()}});
  if (!p.static_targets && !p.ingress_targets) spec.error("targets", "one of staticConfig or ingress is required");
  if (p.prober_url.empty())
    spec.error_at(prober.path_of("url"), "is required");
  else if (p.prober_url.find('/') != std::string::npos)
    prober.error("url", "must be host[:port] without scheme or path, got \"" + p.prober_url + "\"");
  return p;
}

IntegrationMonitor decode_integration_monitor(const Value& obj, FieldErrors& errors) {
  Reader root(&obj, "", &errors);
  IntegrationMonitor im;
  im.meta = decode_meta(root);
  Reader spec = root.object("spec");
  im.selector = decode_selector(spec, "selector");
  // As for ServiceMonitors: a missing selector is a mistake, not "all".
  if (!im.selector) spec.error("selector", "is required");
  im.namespace_selector = decode_namespace_selector(spec, "namespaceSelector");
  decode_scrape_settings(spec, im.endpoint);
  im.limits = decode_limits(spec);
  return im;
}

}  // namespace model
