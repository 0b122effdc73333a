#include "model/monitors.hpp"

#include <algorithm>
#include <cctype>
#include <set>

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

SelectorMechanism decode_selector_mechanism(const Reader& spec) {
  auto s = spec.str("selectorMechanism");
  if (!s || *s == "RelabelConfig") return SelectorMechanism::relabel;
  if (*s == "RoleSelector") return SelectorMechanism::role_selector;
  spec.error("selectorMechanism", "must be RelabelConfig or RoleSelector, got \"" + *s + "\"");
  return SelectorMechanism::relabel;
}

bool decode_endpoint_slices(const Reader& spec) {
  auto s = spec.str("serviceDiscoveryRole");
  if (!s || *s == "Endpoints") return false;
  if (*s == "EndpointSlice") return true;
  spec.error("serviceDiscoveryRole", "must be Endpoints or EndpointSlice, got \"" + *s + "\"");
  return false;
}

// The CRDs' scheme enum (http, https, HTTP, HTTPS), as prometheus-operator
// renders it: lower case.
std::string decode_scheme(const Reader& r) {
  std::string scheme = r.str_or("scheme");
  std::string lower = scheme;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (scheme != "" && scheme != "http" && scheme != "https" && scheme != "HTTP" && scheme != "HTTPS")
    r.error("scheme", "must be http or https, got \"" + scheme + "\"");
  return lower;
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
  if (!service_monitor) e.port_number = r.integer("portNumber");
  e.path = r.str_or("path");
  e.scheme = decode_scheme(r);
  decode_scrape_settings(r, e);
  e.track_timestamps_staleness = r.boolean("trackTimestampsStaleness");
  e.tls_config = decode_tls(r, "tlsConfig", service_monitor);
  if (service_monitor) e.bearer_token_file = r.str_or("bearerTokenFile");
  e.bearer_token_secret = decode_key_ref(r, "bearerTokenSecret");
  e.authorization = decode_authorization(r, "authorization");
  e.basic_auth = decode_basic_auth(r, "basicAuth");
  e.oauth2 = decode_oauth2(r, "oauth2");
  e.proxy = decode_proxy(r);
  e.follow_redirects = r.boolean("followRedirects");
  e.enable_http2 = r.boolean("enableHttp2");
  e.filter_running = r.boolean("filterRunning");
  if (e.port_number && (*e.port_number < 1 || *e.port_number > 65535))
    r.error("portNumber", "must be a port number from 1 to 65535, got " + std::to_string(*e.port_number));
  // Prometheus: at most one of basic_auth, oauth2, authorization,
  // bearer_token and bearer_token_file.
  check_exclusive(r, {{"basicAuth", e.basic_auth.has_value()},
                      {"oauth2", e.oauth2.has_value()},
                      {"authorization", e.authorization.has_value()},
                      {"bearerTokenSecret", e.bearer_token_secret.has_value()},
                      {"bearerTokenFile", !e.bearer_token_file.empty()}});
  return e;
}

// spec.params of a Probe: a list of {name, values}; a name given twice
// keeps its last values, as prometheus-operator's map does.
std::map<std::string, std::vector<std::string>> decode_probe_params(const Reader& spec) {
  std::map<std::string, std::vector<std::string>> out;
  spec.each("params", [&](const Reader& r, std::size_t) {
    std::string name = r.str_or("name");
    if (name.empty()) r.error("name", "is required");
    out[name] = r.strings("values");
  });
  return out;
}

// The fields ServiceMonitors and PodMonitors share at spec level, after
// their labels and endpoints.
template <class Monitor>
void decode_monitor_spec(const Reader& spec, Monitor& m) {
  m.selector = decode_selector(spec, "selector");
  // The CRD requires it; without one the job would scrape everything.
  if (!m.selector) spec.error("selector", "is required");
  m.selector_mechanism = decode_selector_mechanism(spec);
  m.namespace_selector = decode_namespace_selector(spec, "namespaceSelector");
  m.limits = decode_limits(spec);
  m.body_size_limit = decode_body_size_limit(spec);
  m.native_histograms = decode_native_histograms(spec);
  m.attach_metadata_node = decode_attach_node(spec);
  m.protocols = decode_protocol_settings(spec);
}

}  // namespace

ScrapeLimits decode_limits(const Reader& spec) {
  ScrapeLimits l;
  l.sample_limit = spec.integer("sampleLimit");
  l.target_limit = spec.integer("targetLimit");
  l.label_limit = spec.integer("labelLimit");
  l.label_name_length_limit = spec.integer("labelNameLengthLimit");
  l.label_value_length_limit = spec.integer("labelValueLengthLimit");
  l.keep_dropped_targets = spec.integer("keepDroppedTargets");
  return l;
}

NativeHistogramSettings decode_native_histograms(const Reader& spec) {
  NativeHistogramSettings n;
  n.scrape_native_histograms = spec.boolean("scrapeNativeHistograms");
  n.scrape_classic_histograms = spec.boolean("scrapeClassicHistograms");
  n.convert_classic_histograms_to_nhcb = spec.boolean("convertClassicHistogramsToNHCB");
  n.bucket_limit = spec.integer("nativeHistogramBucketLimit");
  n.min_bucket_factor = decode_plain_number(spec, "nativeHistogramMinBucketFactor");
  return n;
}

ScrapeProtocolSettings decode_protocol_settings(const Reader& spec) {
  ScrapeProtocolSettings p;
  p.scrape_protocols = spec.strings("scrapeProtocols");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < p.scrape_protocols.size(); ++i) {
    const std::string& name = p.scrape_protocols[i];
    const std::string at = spec.path_of("scrapeProtocols") + "[" + std::to_string(i) + "]";
    if (!is_scrape_protocol(name))
      spec.error_at(at, "unknown scrape protocol \"" + name + "\"");
    else if (!seen.insert(name).second)
      spec.error_at(at, "duplicate scrape protocol \"" + name + "\"");  // Prometheus refuses duplicates
  }
  p.fallback_scrape_protocol = spec.str_or("fallbackScrapeProtocol");
  if (!p.fallback_scrape_protocol.empty() && !is_scrape_protocol(p.fallback_scrape_protocol))
    spec.error("fallbackScrapeProtocol", "unknown scrape protocol \"" + p.fallback_scrape_protocol + "\"");
  auto name = spec.str("scrapeClass");  // the CRDs give it minLength 1
  if (name && name->empty()) spec.error("scrapeClass", "must not be empty");
  p.scrape_class = name.value_or("");
  return p;
}

std::string decode_body_size_limit(const Reader& spec) {
  std::string s = spec.str_or("bodySizeLimit");
  if (!s.empty() && !is_byte_size(s))
    spec.error("bodySizeLimit", "must be a size such as 512MB or 1GiB, got \"" + s + "\"");
  return s;
}

ServiceMonitor decode_service_monitor(const Value& obj, FieldErrors& errors) {
  Reader root(&obj, "", &errors);
  ServiceMonitor sm;
  sm.meta = decode_meta(root);
  Reader spec = root.object("spec");
  sm.job_label = spec.str_or("jobLabel");
  sm.target_labels = spec.strings("targetLabels");
  sm.pod_target_labels = spec.strings("podTargetLabels");
  spec.each("endpoints", [&](const Reader& r, std::size_t) { sm.endpoints.push_back(decode_endpoint(r, true)); });
  decode_monitor_spec(spec, sm);
  sm.endpoint_slices = decode_endpoint_slices(spec);
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
  decode_monitor_spec(spec, pm);
  return pm;
}

namespace {

// spec.prober: url, scheme, path and proxy.
void decode_prober(const Reader& spec, Probe& p) {
  Reader prober = spec.object("prober");
  p.prober_url = prober.str_or("url");
  p.prober_scheme = decode_scheme(prober);
  p.has_prober_path = prober.str("path").has_value();
  p.prober_path = prober.str_or("path");
  p.prober_proxy = decode_proxy(prober);
}

// spec.targets: staticConfig or ingress.
void decode_probe_targets(const Reader& spec, Probe& p) {
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
}

// Checked after every field is read, so these errors come last.
void check_probe(const Reader& spec, const Probe& p) {
  if (!p.static_targets && !p.ingress_targets) spec.error("targets", "one of staticConfig or ingress is required");
  const std::string url = spec.path_of("prober") + ".url";
  if (p.prober_url.empty())
    spec.error_at(url, "is required");
  else if (p.prober_url.find('/') != std::string::npos)
    spec.error_at(url, "must be host[:port] without scheme or path, got \"" + p.prober_url + "\"");
}

}  // namespace

Probe decode_probe(const Value& obj, FieldErrors& errors) {
  Reader root(&obj, "", &errors);
  Probe p;
  p.meta = decode_meta(root);
  Reader spec = root.object("spec");
  p.job_name = spec.str_or("jobName");
  decode_prober(spec, p);
  p.module = spec.str_or("module");
  p.params = decode_probe_params(spec);
  decode_probe_targets(spec, p);
  p.interval = spec.str_or("interval");
  p.scrape_timeout = spec.str_or("scrapeTimeout");
  p.tls_config = decode_tls(spec, "tlsConfig", false);
  p.bearer_token_secret = decode_key_ref(spec, "bearerTokenSecret");
  p.basic_auth = decode_basic_auth(spec, "basicAuth");
  p.oauth2 = decode_oauth2(spec, "oauth2");
  p.authorization = decode_authorization(spec, "authorization");
  p.follow_redirects = spec.boolean("followRedirects");
  p.enable_http2 = spec.boolean("enableHttp2");
  p.metric_relabelings = decode_relabelings(spec, "metricRelabelings");
  p.limits = decode_limits(spec);
  p.native_histograms = decode_native_histograms(spec);
  p.protocols = decode_protocol_settings(spec);
  check_exclusive(spec, {{"basicAuth", p.basic_auth.has_value()},
                         {"oauth2", p.oauth2.has_value()},
                         {"authorization", p.authorization.has_value()},
                         {"bearerTokenSecret", p.bearer_token_secret.has_value()}});
  check_probe(spec, p);
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
