// ScrapeConfig: decoding of the job-level fields (scrape settings, limits,
// authentication); scrape_config_sd.cpp decodes the service discovery.
#include "model/scrape_config.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "model/scrape_class.hpp"
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

std::vector<std::string> decode_protocols(const Reader& r) {
  std::vector<std::string> out = r.strings("scrapeProtocols");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::string at = r.path_of("scrapeProtocols") + "[" + std::to_string(i) + "]";
    if (!is_scrape_protocol(out[i]))
      r.error_at(at, "unknown scrape protocol \"" + out[i] + "\"");
    else if (!seen.insert(out[i]).second)
      r.error_at(at, "duplicate scrape protocol \"" + out[i] + "\"");  // Prometheus refuses duplicates
  }
  return out;
}

// ByteSize: "0" or a decimal number with an optional K/M/G/T/P/E(i) prefix
// and a B, as the CRD's pattern and Prometheus's body_size_limit accept.
bool valid_byte_size(const std::string& s) {
  if (s == "0") return true;
  std::size_t i = 0, digits = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) digits += s[i++] != '.';
  if (digits == 0 || std::count(s.begin(), s.begin() + i, '.') > 1) return false;
  std::string unit = s.substr(i);
  if (!unit.empty() && std::string("KMGTPE").find(unit[0]) != std::string::npos) unit.erase(0, 1);
  if (unit.size() == 2 && unit[0] == 'i') unit.erase(0, 1);
  return unit == "B";
}

// A resource.Quantity as a plain number: an integer, a JSON number or a
// decimal string. Suffixed quantities ("100m", "1e3") are refused rather
// than converted approximately.
std::optional<double> decode_factor(const Reader& r, std::string_view key) {
  auto raw = r.raw(key);
  if (!raw) return std::nullopt;
  if (raw->is_number()) return raw->as_double();
  if (raw->is_string()) {
    const std::string& s = raw->as_string();
    char* end = nullptr;
    double d = s.empty() ? 0 : std::strtod(s.c_str(), &end);
    bool plain = !s.empty() && end == s.c_str() + s.size() && s.find_first_not_of("+-.0123456789") == std::string::npos;
    if (plain) return d;
  }
  r.error(key, "must be a plain decimal number");
  return std::nullopt;
}

void decode_scrape_settings(const Reader& spec, ScrapeConfig& sc) {
  sc.job_name = non_empty(spec, "jobName");
  sc.metrics_path = non_empty(spec, "metricsPath");
  sc.scrape_interval = spec.str_or("scrapeInterval");
  sc.scrape_timeout = spec.str_or("scrapeTimeout");
  sc.scheme = enum_field(spec, "scheme", {{"http", "http"}, {"https", "https"}, {"HTTP", "http"}, {"HTTPS", "https"}});
  sc.scrape_protocols = decode_protocols(spec);
  sc.fallback_scrape_protocol = spec.str_or("fallbackScrapeProtocol");
  if (!sc.fallback_scrape_protocol.empty() && !is_scrape_protocol(sc.fallback_scrape_protocol))
    spec.error("fallbackScrapeProtocol", "unknown scrape protocol \"" + sc.fallback_scrape_protocol + "\"");
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
  sc.scrape_class = non_empty(spec, "scrapeClass");
}

void decode_limits(const Reader& spec, ScrapeConfig& sc) {
  sc.limits.sample_limit = spec.integer("sampleLimit");
  sc.limits.target_limit = spec.integer("targetLimit");
  sc.limits.label_limit = spec.integer("labelLimit");
  sc.limits.label_name_length_limit = spec.integer("labelNameLengthLimit");
  sc.limits.label_value_length_limit = spec.integer("labelValueLengthLimit");
  sc.keep_dropped_targets = spec.integer("keepDroppedTargets");
  sc.body_size_limit = spec.str_or("bodySizeLimit");
  if (!sc.body_size_limit.empty() && !valid_byte_size(sc.body_size_limit))
    spec.error("bodySizeLimit", "must be a size such as 512MB or 1GiB, got \"" + sc.body_size_limit + "\"");
  NativeHistogramSettings& n = sc.native_histograms;
  n.scrape_native_histograms = spec.boolean("scrapeNativeHistograms");
  n.scrape_classic_histograms = spec.boolean("scrapeClassicHistograms");
  n.convert_classic_histograms_to_nhcb = spec.boolean("convertClassicHistogramsToNHCB");
  n.bucket_limit = spec.integer("nativeHistogramBucketLimit");
  n.min_bucket_factor = decode_factor(spec, "nativeHistogramMinBucketFactor");
}

}  // namespace

ProxySettings decode_proxy(const Reader& r) {
  ProxySettings p;
  p.proxy_url = r.str_or("proxyUrl");
  p.no_proxy = r.str_or("noProxy");
  p.proxy_from_environment = r.boolean("proxyFromEnvironment");
  Reader headers = r.object("proxyConnectHeader");
  if (headers.present())
    for (const auto& entry : headers.node()->as_object()) {
      // Not a structured binding: clang 14 (the fuzz build) cannot capture one.
      const std::string& name = entry.first;
      headers.each(name, [&](const Reader& ref, std::size_t) {
        SecretKeySelector s{ref.str_or("name"), ref.str_or("key"), ref.flag("optional")};
        if (s.name.empty()) ref.error("name", "is required");
        if (s.key.empty()) ref.error("key", "is required");
        p.proxy_connect_header[name].push_back(std::move(s));
      });
    }
  if (!p.proxy_url.empty() && !(p.proxy_url.starts_with("http://") || p.proxy_url.starts_with("https://") ||
                                p.proxy_url.starts_with("socks5://")))
    r.error("proxyUrl", "must be an http://, https:// or socks5:// URL");
  if (p.proxy_from_environment.value_or(false) && !p.proxy_url.empty())
    r.error("proxyFromEnvironment", "cannot be used together with proxyUrl");
  return p;
}

ScrapeConfig decode_scrape_config(const Value& obj, FieldErrors& errors) {
  Reader root(&obj, "", &errors);
  ScrapeConfig sc;
  sc.meta = decode_meta(root);
  Reader spec = root.object("spec");
  decode_scrape_settings(spec, sc);
  decode_limits(spec, sc);
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
