// ScrapeConfig CRs: decoding (every supported field, refused SD kinds,
// wrong types at every field) and the rendered job, compared in full with
// the shape prometheus-operator's generateScrapeConfig gives.
#include <catch2/catch.hpp>

#include <random>

#include "golden_util.hpp"
#include "model/inventory.hpp"
#include "model/parse.hpp"
#include "model/scrape/jobs.hpp"
#include "model/scrape_config.hpp"

using model::Value;
namespace scrape = model::scrape;
using testutil::yaml;

namespace {

const char* kScrapeConfigSecrets = R"(
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: ns}
stringData: {user: admin, pass: s3cret, token: t0ken, proxy: pr0xy}
)";

// Every field the decoder reads, with valid values.
const char* kFull = R"(
apiVersion: monitoring.coreos.com/v1alpha1
kind: ScrapeConfig
metadata: {name: full, namespace: ns}
spec:
  jobName: blackbox
  metricsPath: /metrics2
  scrapeInterval: 30s
  scrapeTimeout: 10s
  scheme: HTTPS
  scrapeProtocols: [PrometheusProto, OpenMetricsText1.0.0]
  fallbackScrapeProtocol: PrometheusText0.0.4
  honorTimestamps: false
  trackTimestampsStaleness: true
  honorLabels: true
  enableCompression: false
  enableHTTP2: false
  params: {module: [http_2xx]}
  basicAuth:
    username: {name: creds, key: user}
    password: {name: creds, key: pass}
  tlsConfig: {serverName: web.ns, insecureSkipVerify: true}
  proxyUrl: http://proxy:3128
  noProxy: localhost
  proxyConnectHeader:
    X-Auth: [{name: creds, key: proxy}]
  sampleLimit: 100
  targetLimit: 10
  labelLimit: 20
  labelNameLengthLimit: 30
  labelValueLengthLimit: 40
  keepDroppedTargets: 5
  bodySizeLimit: 10MiB
  scrapeNativeHistograms: true
  nativeHistogramBucketLimit: 160
  nativeHistogramMinBucketFactor: "1.1"
  scrapeClassicHistograms: true
  convertClassicHistogramsToNHCB: false
  nameValidationScheme: Legacy
  nameEscapingScheme: Underscores
  relabelings:
  - {sourceLabels: [__address__], targetLabel: instance}
  metricRelabelings:
  - {sourceLabels: [__name__], regex: go_.*, action: drop}
  staticConfigs:
  - targets: [10.0.0.1:9100, 10.0.0.2:9100]
    labels: {env: prod}
  fileSDConfigs:
  - files: [/etc/sd/*.json]
    refreshInterval: 5m
  httpSDConfigs:
  - url: https://sd.example/targets
    refreshInterval: 1m
    authorization: {credentials: {name: creds, key: token}}
    tlsConfig: {serverName: sd.example}
    followRedirects: false
  kubernetesSDConfigs:
  - role: Endpoints
    namespaces: {names: [a, b], ownNamespace: true}
    selectors:
    - {role: Pod, label: app=web}
    - {role: Service, field: metadata.name=web}
    attachMetadata: {node: true}
  - role: Node
    apiServer: https://other:6443
    basicAuth:
      username: {name: creds, key: user}
      password: {name: creds, key: pass}
    enableHTTP2: true
)";

struct Rendered {
  Value job;
  std::vector<std::string> errors;  // "<path>: <message>"
};

Rendered render_scrape_config(const std::string& text, std::int64_t shards = 1,
                              const scrape::PromOperatorSettings* settings = nullptr) {
  model::Inventory inv = testutil::inventory_from_yaml(kScrapeConfigSecrets);
  model::FieldErrors decode_errors;
  model::ScrapeConfig sc = model::decode_scrape_config(yaml(text), decode_errors);
  Rendered out;
  for (const auto& e : decode_errors) out.errors.push_back(e.path + ": " + e.message);
  model::GrafanaAgent agent;
  model::RenderOptions options;
  options.inline_tls = true;
  const Value sd = Value::object();
  const scrape::JobContext ctx{agent, options, shards, sd, settings};
  model::AssetRefs assets(inv);
  out.job = scrape::scrape_config_job(ctx, sc, assets);
  for (const auto& e : assets.errors) out.errors.push_back(e.path + ": " + e.message);
  return out;
}

std::string only_error(const std::string& text) {
  auto r = render_scrape_config(text);
  REQUIRE(r.errors.size() == 1);
  return r.errors[0];
}

std::string with_spec(const std::string& spec) {
  return "apiVersion: monitoring.coreos.com/v1alpha1\nkind: ScrapeConfig\nmetadata: {name: s, namespace: ns}\n"
         "spec:\n" +
         spec;
}

// Every path below `v` whose value is a scalar, list or map, as
// testutil::at spells it.
void leaf_paths(const Value& v, const std::string& path, std::vector<std::string>& out) {
  if (!path.empty()) out.push_back(path);
  if (v.is_object())
    for (const auto& [k, child] : v.as_object()) leaf_paths(child, path.empty() ? k.str() : path + "." + k, out);
  else if (v.is_array())
    for (std::size_t i = 0; i < v.as_array().size(); ++i)
      leaf_paths(v.as_array()[i], path + "[" + std::to_string(i) + "]", out);
}

// A value of a type no field at `original`'s place accepts.
Value wrong_type(const Value& original) {
  if (original.is_string() || original.is_number()) return Value::arr({1});
  if (original.is_bool()) return Value("yes");
  return Value(true);  // objects and arrays
}

}  // namespace

TEST_CASE("a ScrapeConfig renders prometheus-operator's job shape", "[metrics][scrapeconfig]") {
  auto r = render_scrape_config(kFull);
  for (const auto& e : r.errors) FAIL_CHECK(e);
  testutil::check_same(yaml(R"(
job_name: scrapeConfig/ns/full
honor_timestamps: false
track_timestamps_staleness: true
honor_labels: true
metrics_path: /metrics2
params: {module: [http_2xx]}
enable_compression: false
enable_http2: false
scrape_interval: 30s
scrape_timeout: 10s
scrape_protocols: [PrometheusProto, OpenMetricsText1.0.0]
scheme: https
proxy_url: http://proxy:3128
no_proxy: localhost
proxy_connect_header: {X-Auth: [pr0xy]}
basic_auth: {username: admin, password: s3cret}
tls_config: {server_name: web.ns, insecure_skip_verify: true}
sample_limit: 100
target_limit: 10
label_limit: 20
label_name_length_limit: 30
label_value_length_limit: 40
keep_dropped_targets: 5
scrape_native_histograms: true
native_histogram_bucket_limit: 160
native_histogram_min_bucket_factor: 1.1
always_scrape_classic_histograms: true
convert_classic_histograms_to_nhcb: false
body_size_limit: 10MiB
static_configs:
- {targets: [10.0.0.1:9100, 10.0.0.2:9100], labels: {env: prod}}
file_sd_configs:
- {files: [/etc/sd/*.json], refresh_interval: 5m}
http_sd_configs:
- authorization: {type: Bearer, credentials: t0ken}
  follow_redirects: false
  tls_config: {server_name: sd.example}
  url: https://sd.example/targets
  refresh_interval: 1m
kubernetes_sd_configs:
- role: endpoints
  namespaces: {names: [a, b], own_namespace: true}
  selectors:
  - {role: pod, label: app=web}
  - {role: service, field: metadata.name=web}
  attach_metadata: {node: true}
- api_server: https://other:6443
  role: node
  basic_auth: {username: admin, password: s3cret}
  enable_http2: true
relabel_configs:
- {source_labels: [job], target_label: __tmp_prometheus_job_name}
- {target_label: job, action: replace, replacement: blackbox}
- {source_labels: [__address__], target_label: instance}
metric_relabel_configs:
- {source_labels: [__name__], regex: go_.*, action: drop}
metric_name_validation_scheme: legacy
metric_name_escaping_scheme: underscores
)"),
                       r.job);
}

TEST_CASE("a minimal ScrapeConfig sets only what it names", "[metrics][scrapeconfig]") {
  auto r = render_scrape_config(with_spec("  staticConfigs: [{targets: [a:80]}]\n"));
  CHECK(r.errors.empty());
  testutil::check_same(yaml(R"(
job_name: scrapeConfig/ns/s
static_configs: [{targets: [a:80], labels: {}}]
relabel_configs: [{source_labels: [job], target_label: __tmp_prometheus_job_name}]
)"),
                       r.job);
  // fallback_scrape_protocol is prometheus-operator's field: rendered only
  // with PromOperatorSettings (the allocator), as the agent lacks it.
  scrape::PromOperatorSettings settings;
  auto with = render_scrape_config(kFull, 1, &settings);
  CHECK(with.job.find("fallback_scrape_protocol")->as_string() == "PrometheusText0.0.4");
  CHECK_FALSE(render_scrape_config(kFull).job.find("fallback_scrape_protocol"));
}

TEST_CASE("ScrapeConfig sharding follows prometheus-operator", "[metrics][scrapeconfig]") {
  auto one = render_scrape_config(with_spec("  staticConfigs: [{targets: [a:80]}]\n"), 1);
  CHECK(one.job.find("relabel_configs")->size() == 1);
  auto two = render_scrape_config(with_spec("  staticConfigs: [{targets: [a:80]}]\n"), 2);
  const auto& rules = two.job.find("relabel_configs")->as_array();
  REQUIRE(rules.size() == 3);
  CHECK(rules[1].find("action")->as_string() == "hashmod");
  CHECK(rules[1].find("modulus")->as_int() == 2);
  // A hashmod rule of the user's means the ScrapeConfig shards itself.
  auto own = render_scrape_config(
      with_spec("  staticConfigs: [{targets: [a:80]}]\n  relabelings:\n"
                "  - {sourceLabels: [__address__], targetLabel: __tmp_h, modulus: 4, action: HashMod}\n"),
      2);
  CHECK(own.job.find("relabel_configs")->size() == 2);
}

TEST_CASE("every SD kind but static, file, http and kubernetes is refused by name", "[metrics][scrapeconfig]") {
  for (const char* kind :
       {"consulSDConfigs", "dnsSDConfigs", "ec2SDConfigs", "azureSDConfigs", "gceSDConfigs", "openstackSDConfigs",
        "digitalOceanSDConfigs", "kumaSDConfigs", "eurekaSDConfigs", "dockerSDConfigs", "linodeSDConfigs",
        "hetznerSDConfigs", "nomadSDConfigs", "dockerSwarmSDConfigs", "puppetDBSDConfigs", "lightSailSDConfigs",
        "ovhcloudSDConfigs", "scalewaySDConfigs", "ionosSDConfigs"}) {
    INFO(kind);
    auto text = with_spec(std::string("  staticConfigs: [{targets: [a:80]}]\n  ") + kind + ": [{names: [x]}]\n");
    CHECK_THAT(only_error(text), Catch::StartsWith(std::string("spec.") + kind + ": not supported"));
    // An empty list asks for nothing and is accepted.
    CHECK(render_scrape_config(with_spec(std::string("  ") + kind + ": []\n")).errors.empty());
  }
}

TEST_CASE("ScrapeConfig values outside the CRD's rules are errors at their field", "[metrics][scrapeconfig]") {
  CHECK(only_error(with_spec("  scheme: ftp\n")) ==
        "spec.scheme: must be one of http, https, HTTP, HTTPS, got \"ftp\"");
  CHECK(only_error(with_spec("  scrapeProtocols: [PrometheusProto, PrometheusProto]\n")) ==
        "spec.scrapeProtocols[1]: duplicate scrape protocol \"PrometheusProto\"");
  CHECK(only_error(with_spec("  fileSDConfigs: [{files: [/etc/sd/targets.txt]}]\n")) ==
        "spec.fileSDConfigs[0].files[0]: must be a .json, .yml or .yaml file (one * allowed in the file name), got "
        "\"/etc/sd/targets.txt\"");
  CHECK(only_error(with_spec("  httpSDConfigs: [{url: ftp://x}]\n")) ==
        "spec.httpSDConfigs[0].url: must be an http:// or https:// URL, got \"ftp://x\"");
  CHECK(only_error(with_spec("  kubernetesSDConfigs: [{role: Pods}]\n")) ==
        "spec.kubernetesSDConfigs[0].role: must be one of Pod, Endpoints, Ingress, Service, Node, EndpointSlice, got "
        "\"Pods\"");
  CHECK(only_error(with_spec("  kubernetesSDConfigs: [{role: Pod, apiServer: 'https://x', "
                             "namespaces: {ownNamespace: true}}]\n")) ==
        "spec.kubernetesSDConfigs[0].namespaces.ownNamespace: cannot be used together with apiServer");
  CHECK(only_error(with_spec("  scrapeInterval: 10s\n  scrapeTimeout: 20s\n")) ==
        "spec.scrapeTimeout: scrapeTimeout 20s is greater than the scrape interval 10s");
  CHECK(only_error(with_spec("  scrapeInterval: soon\n")) == "spec.scrapeInterval: invalid duration \"soon\"");
  CHECK(only_error(with_spec("  httpSDConfigs: [{url: 'http://x', refreshInterval: 1x}]\n")) ==
        "spec.httpSDConfigs[0].refreshInterval: invalid duration \"1x\"");
  CHECK(only_error(with_spec("  bodySizeLimit: 10 megabytes\n")) ==
        "spec.bodySizeLimit: must be a size such as 512MB or 1GiB, got \"10 megabytes\"");
  CHECK(only_error(with_spec("  nativeHistogramMinBucketFactor: 100m\n")) ==
        "spec.nativeHistogramMinBucketFactor: must be a plain decimal number");
  CHECK(only_error(with_spec("  authorization: {type: Bearer}\n")) == "spec.authorization.credentials: is required");
  CHECK_THAT(only_error(with_spec("  basicAuth: {username: {name: creds, key: user}}\n"
                                  "  oauth2: {clientId: {secret: {name: creds, key: user}}, "
                                  "clientSecret: {name: creds, key: pass}, tokenUrl: 'https://t'}\n")),
             Catch::StartsWith("spec.oauth2: basicAuth and oauth2 are mutually exclusive"));
  CHECK(only_error(with_spec("  basicAuth: {username: {name: gone, key: user}}\n")) ==
        "spec.basicAuth.username: Secret ns/gone not found");
  CHECK(only_error(with_spec("  scrapeClass: \"\"\n")) == "spec.scrapeClass: must not be empty");
}

TEST_CASE("a wrong type in any ScrapeConfig field is an error naming that field", "[metrics][scrapeconfig][fuzz]") {
  const Value full = yaml(kFull);
  std::vector<std::string> paths;
  leaf_paths(*full.find("spec"), "spec", paths);
  REQUIRE(paths.size() > 100);
  for (const auto& path : paths) {
    INFO(path);
    Value broken = full;
    const_cast<Value&>(testutil::at(broken, path)) = wrong_type(testutil::at(full, path));
    model::FieldErrors errors;
    model::decode_scrape_config(broken, errors);
    bool named = std::any_of(errors.begin(), errors.end(), [&](const model::FieldError& e) {
      return e.path == path || e.path.starts_with(path + ".") || e.path.starts_with(path + "[");
    });
    CHECK(named);
  }
}

TEST_CASE("type-confused ScrapeConfigs give field errors, never an exception", "[metrics][scrapeconfig][fuzz]") {
  const Value full = yaml(kFull);
  std::mt19937 rng(15);
  const testutil::Confusion how{5, true, {"kind", "apiVersion", "metadata"}};
  model::Inventory inv = testutil::inventory_from_yaml(kScrapeConfigSecrets);
  model::GrafanaAgent agent;
  model::RenderOptions options;
  options.inline_tls = true;
  const Value sd = Value::object();
  const scrape::PromOperatorSettings settings;
  const scrape::JobContext ctx{agent, options, 2, sd, &settings};
  int rejected = 0;
  for (int round = 0; round < 300; ++round) {
    Value confused = testutil::confuse(full, rng, how);
    model::FieldErrors errors;
    model::ScrapeConfig sc;
    REQUIRE_NOTHROW(sc = model::decode_scrape_config(confused, errors));
    for (const auto& e : errors) CHECK((!e.path.empty() && !e.message.empty()));
    if (!errors.empty()) {
      ++rejected;
      continue;
    }
    model::AssetRefs assets(inv);
    REQUIRE_NOTHROW(scrape::scrape_config_job(ctx, sc, assets));
  }
  CHECK(rejected > 100);
}
