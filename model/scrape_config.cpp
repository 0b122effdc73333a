// ScrapeConfig: decoding of the job-level fields (scrape settings, limits,
// authentication); scrape_config_sd.cpp decodes the service discovery.
#include "model/scrape_config.hpp"

#include "model/scrape_config_decode.hpp"

namespace model {
namespace {

// An optional string the CRD gives minLength 1: present means non-empty.
std::string non_empty(const Reader& r, std::string_view key) {
  auto s = r.str(key);
  if (s && s->empty()) r.error(key, "must not be empty");
  return s.value_or("");
}

// The value of `key` mapped through `names` (CRD enum -> Prometheus text).
std::string enum_field(const Reader& r, std::string_view key,
                       std::initializer_list<std::pair<const char*, const char*>> names) {
  auto s = r.str(key);
  if (!s) return "";
  std::string allowed;
  for (const auto& [from, to] : names) {
    if (*s == from) return to;
    allowed += std::string(allowed.empty() ? "" : ", ") + from;
  }
  r.error(key, "must be one of " + allowed + ", got \"" + *s + "\"");
  return "";
}

void decode_scrape_settings(const Reader& spec, ScrapeConfig& sc) {
  sc.job_name = non_empty(spec, "jobName");
  sc.metrics_path = non_empty(spec, "metricsPath");
  sc.scrape_interval = spec.str_or("scrapeInterval");
  sc.scrape_timeout = spec.str_or("scrapeTimeout");
  sc.scheme = enum_field(spec, "scheme", {{"http", "http"}, {"https", "https"}, {"HTTP", "http"}, {"HTTPS", "https"}});
  const ScrapeProtocolSettings protocols = decode_protocol_settings(spec);
  sc.scrape_protocols = protocols.scrape_protocols;
  sc.fallback_scrape_protocol = protocols.fallback_scrape_protocol;
  sc.scrape_class = protocols.scrape_class;
  sc.honor_timestamps = spec.boolean("honorTimestamps");
  sc.track_timestamps_staleness = spec.boolean("trackTimestampsStaleness");
  sc.honor_labels = spec.boolean("honorLabels");
  sc.enable_compression = spec.boolean("enableCompression");
  sc.enable_http2 = spec.boolean("enableHTTP2");
  sc.params = decode_params(spec);
  sc.relabelings = decode_relabelings(spec, "relabelings");
  sc.metric_relabelings = decode_relabelings(spec, "metricRelabelings");
  sc.name_validation_scheme = enum_field(spec, "nameValidationScheme", {{"UTF8", "utf8"}, {"Legacy", "legacy"}});
  sc.name_escaping_scheme = enum_field(
      spec, "nameEscapingScheme",
      {{"AllowUTF8", "allow-utf-8"}, {"Underscores", "underscores"}, {"Dots", "dots"}, {"Values", "values"}});
}

}  // namespace

ScrapeConfig decode_scrape_config(const Value& obj, FieldErrors& errors) {
  Reader root(&obj, "", &errors);
  ScrapeConfig sc;
  sc.meta = decode_meta(root);
  Reader spec = root.object("spec");
  decode_scrape_settings(spec, sc);
  sc.limits = decode_limits(spec);
  sc.body_size_limit = decode_body_size_limit(spec);
  sc.native_histograms = decode_native_histograms(spec);
  sc.basic_auth = decode_basic_auth(spec, "basicAuth");
  sc.authorization = decode_safe_authorization(spec, "authorization");
  sc.oauth2 = decode_oauth2(spec, "oauth2");
  sc.tls_config = decode_safe_tls(spec, "tlsConfig");
  sc.proxy = decode_proxy(spec);
  // The CRD's validation rule (and Prometheus): one authentication method.
  check_exclusive(spec, {{"basicAuth", sc.basic_auth.has_value()},
                         {"authorization", sc.authorization.has_value()},
                         {"oauth2", sc.oauth2.has_value()}});
  decode_scrape_config_sd(spec, sc);
  return sc;
}

}  // namespace model
