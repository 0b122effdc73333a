// The fields prometheus-operator added to ServiceMonitor, PodMonitor and
// Probe after v0.66 (the Grafana Agent Operator's types): their render for
// the Grafana Agent (golden, from tests/golden/promtool/newer-fields.yaml,
// which the promtool test loads too), what --upstream-compat leaves out,
// the warnings for the ones the agent cannot honour, their render for the
// target allocator, and the decoder's checks.
#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "model/parse.hpp"
#include "model/scrape/jobs.hpp"
#include "model/yaml_emit.hpp"
#include "test_render.hpp"

using model::Value;
using testutil::at;
using testutil::yaml;

namespace {

std::string newer_fields() {
  return testutil::read_text(testutil::source_path("tests/golden/promtool/newer-fields.yaml"));
}

const std::string kNewerFieldsAgent = testutil::metrics_agent_yaml("mon", "{instanceSelector: {}}") +
                                      testutil::select_all_instance_yaml("name: primary, namespace: mon");

// The only ServiceMonitor job of `spec` (flow or block YAML lines under spec:).
testutil::ConfigRender render_monitor(const std::string& spec, bool compat = false) {
  return testutil::render_metrics(testutil::valid_inventory(kNewerFieldsAgent + R"(
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: app}
spec:
  selector: {}
  endpoints: [{port: web}]
)" + spec),
                                  compat);
}

std::vector<std::string> decode_errors(const std::string& manifest) {
  return testutil::inventory_problems(manifest);
}

}  // namespace

TEST_CASE("golden: the fields prometheus-operator added after v0.66", "[metrics][golden]") {
  testutil::ConfigRender r = testutil::render_metrics(testutil::valid_inventory(newer_fields()));
  testutil::require_clean(r);
  testutil::check_golden("metrics", "newer_fields.yaml", model::to_yaml(r.config));
  testutil::ConfigRender compat = testutil::render_metrics(testutil::valid_inventory(newer_fields()), true);
  // Upstream renders none of them, and no oauth2 either.
  const std::string sm = "ServiceMonitor app/slices", pm = "PodMonitor app/ports", probe = "Probe app/sites";
  testutil::require_warnings(compat,
                             {testutil::compat_ignored(sm, "spec.selectorMechanism"),
                              testutil::compat_ignored(sm, "spec.serviceDiscoveryRole"),
                              testutil::compat_ignored(sm, "spec.keepDroppedTargets"),
                              testutil::compat_ignored(sm, "spec.bodySizeLimit"),
                              testutil::compat_ignored(sm, "spec.scrapeClassicHistograms"),
                              testutil::compat_ignored(sm, "spec.nativeHistogramBucketLimit"),
                              testutil::compat_ignored(sm, "spec.endpoints[0].trackTimestampsStaleness"),
                              testutil::compat_ignored(sm, "spec.endpoints[0].noProxy"),
                              testutil::compat_ignored(sm, "spec.endpoints[0].proxyConnectHeader"),
                              testutil::compat_ignored(sm, "spec.endpoints[0].tlsConfig.minVersion"),
                              testutil::compat_ignored(sm, "spec.endpoints[0].tlsConfig.maxVersion"),
                              testutil::compat_ignored(sm, "spec.endpoints[0].oauth2"),
                              testutil::compat_ignored(pm, "spec.selectorMechanism"),
                              testutil::compat_ignored(pm, "spec.podMetricsEndpoints[0].portNumber"),
                              testutil::compat_ignored(pm, "spec.podMetricsEndpoints[0].trackTimestampsStaleness"),
                              testutil::compat_ignored(probe, "spec.params"),
                              testutil::compat_ignored(probe, "spec.followRedirects"),
                              testutil::compat_ignored(probe, "spec.enableHttp2"),
                              testutil::compat_ignored(probe, "spec.keepDroppedTargets"),
                              testutil::compat_ignored(probe, "spec.prober.proxyUrl"),
                              testutil::compat_ignored(probe, "spec.prober.noProxy")});
  testutil::check_golden("metrics", "newer_fields.compat.yaml", model::to_yaml(compat.config));
}

TEST_CASE("EndpointSlice discovery and role selectors follow prometheus-operator", "[metrics]") {
  testutil::ConfigRender r = testutil::render_metrics(testutil::valid_inventory(newer_fields()));
  const Value& jobs = testutil::metrics_jobs(r.config);
  const Value& sm = jobs.as_array().at(0);  // ServiceMonitors, then PodMonitors, then Probes
  REQUIRE(at(sm, "job_name") == Value("serviceMonitor/app/slices/0"));
  CHECK(at(sm, "kubernetes_sd_configs[0].role") == Value("endpointslice"));
  // apimachinery's selector text: sorted by key (not by the "!" of DoesNotExist), sets sorted.
  const Value label = Value("app=api,!canary,tier in (edge,web)");
  CHECK(at(sm, "kubernetes_sd_configs[0].selectors") ==
        Value::arr({Value::obj({{"role", "endpointslice"}, {"label", label}}),
                    Value::obj({{"role", "service"}, {"label", label}})}));
  const Value& rules = at(sm, "relabel_configs");
  CHECK(at(rules, "[1]") ==
        yaml("{source_labels: [__meta_kubernetes_endpointslice_port_name], regex: web, action: keep}"));
  CHECK(at(rules, "[2].source_labels") == yaml("[__meta_kubernetes_endpointslice_address_target_kind, "
                                               "__meta_kubernetes_endpointslice_address_target_name]"));
  for (const Value& rule : rules.as_array())  // no selector rules: the selector is in kubernetes_sd
    CHECK(model::to_json(rule).find("__meta_kubernetes_service_label") == std::string::npos);
  const Value& pm = jobs.as_array().at(1);
  CHECK(at(pm, "kubernetes_sd_configs[0].selectors") == yaml("[{role: pod, label: app=worker}]"));
  // portNumber filters on the container port number; port wins over it.
  CHECK(at(pm, "relabel_configs[2]") ==
        yaml("{source_labels: [__meta_kubernetes_pod_container_port_number], regex: '9100', action: keep}"));
  CHECK(at(jobs.as_array().at(2), "relabel_configs[2]") ==
        yaml("{source_labels: [__meta_kubernetes_pod_container_port_name], regex: metrics, action: keep}"));
}

TEST_CASE("a Probe's params add to its module, which wins", "[metrics]") {
  testutil::ConfigRender r = testutil::render_metrics(testutil::valid_inventory(newer_fields()));
  const Value& probe = testutil::metrics_jobs(r.config).as_array().back();
  CHECK(at(probe, "params") == yaml("{module: [http_2xx], debug: ['true']}"));
  CHECK(at(probe, "scheme") == Value("http"));  // HTTP, lower-cased as prometheus-operator does
}

TEST_CASE("fields the Grafana Agent cannot honour are warnings and the monitor still renders", "[metrics]") {
  testutil::ConfigRender r = render_monitor(R"(  scrapeClass: tls
  scrapeProtocols: [PrometheusProto, PrometheusText0.0.4]
  fallbackScrapeProtocol: OpenMetricsText1.0.0
  scrapeNativeHistograms: true
  nativeHistogramMinBucketFactor: '1.1'
  convertClassicHistogramsToNHCB: true
)");
  auto warning = [](const std::string& field, const std::string& why) {
    return "ServiceMonitor app/web: " + field + ": not supported by the Grafana Agent (" + why + "); ignored";
  };
  testutil::require_warnings(
      r, {warning("spec.scrapeClass", "a GrafanaAgent has no scrape classes; the monitor renders without one"),
          warning("spec.scrapeProtocols",
                  "its Prometheus, v2.48, has no scrape_protocols: it always asks for OpenMetrics 1.0.0, then 0.0.1, "
                  "then the Prometheus text format 0.0.4"),
          warning("spec.fallbackScrapeProtocol", "its Prometheus, v2.48, always falls back to PrometheusText0.0.4"),
          warning("spec.scrapeNativeHistograms",
                  "it never negotiates the protobuf format, so it scrapes no native histograms"),
          warning("spec.nativeHistogramMinBucketFactor",
                  "its Prometheus, v2.48, has no native_histogram_min_bucket_factor"),
          warning("spec.convertClassicHistogramsToNHCB",
                  "its Prometheus, v2.48, has no convert_classic_histograms_to_nhcb")});
  const Value& job = testutil::only_metrics_job(r.config);
  CHECK(at(job, "job_name") == Value("serviceMonitor/app/web/0"));
  for (const char* key : {"scrape_protocols", "fallback_scrape_protocol", "scrape_native_histograms"})
    CHECK(job.find(key) == nullptr);
  // What the agent does anyway is no warning.
  testutil::require_clean(render_monitor(R"(  fallbackScrapeProtocol: PrometheusText0.0.4
  scrapeNativeHistograms: false
  convertClassicHistogramsToNHCB: false
)"));
}

TEST_CASE("warnings leave render_all without errors", "[metrics][render]") {
  model::RenderAll all = testutil::render_all_yaml(kNewerFieldsAgent + R"(
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: app}
spec: {selector: {}, endpoints: [{port: web}], scrapeProtocols: [PrometheusProto]}
)");
  REQUIRE(all.problems.size() == 1);
  CHECK(all.problems[0].warning);
  CHECK_FALSE(model::has_errors(all.problems));
  CHECK(all.objects.size() > 3);
}

TEST_CASE("the target allocator renders them with Prometheus 3's names", "[metrics][allocation]") {
  model::Inventory inv = testutil::inventory_from_yaml(R"(
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: pm, namespace: app}
spec:
  selector: {}
  podMetricsEndpoints: [{port: web}]
  scrapeProtocols: [PrometheusProto, OpenMetricsText1.0.0]
  fallbackScrapeProtocol: PrometheusText1.0.0
  scrapeNativeHistograms: true
  scrapeClassicHistograms: true
  nativeHistogramMinBucketFactor: '1.1'
  nativeHistogramBucketLimit: 100
  convertClassicHistogramsToNHCB: true
  bodySizeLimit: 1GB
  keepDroppedTargets: 3
)");
  REQUIRE(inv.problems().empty());
  model::GrafanaAgent agent;
  model::RenderOptions options;
  const Value sd_fields = Value::object();
  const model::scrape::PromOperatorSettings settings{{}, "setting"};
  const model::scrape::JobContext ctx{agent, options, 1, sd_fields, &settings};
  model::AssetRefs assets(inv);
  Value jobs = model::scrape::pod_monitor_jobs(ctx, *inv.pod_monitors.begin()->second.decoded, assets);
  CHECK(assets.errors.empty());
  CHECK(assets.warnings.empty());
  const Value& job = at(jobs, "[0]");
  CHECK(at(job, "scrape_protocols") == yaml("[PrometheusProto, OpenMetricsText1.0.0]"));
  CHECK(at(job, "fallback_scrape_protocol") == Value("PrometheusText1.0.0"));
  CHECK(at(job, "scrape_native_histograms") == Value(true));
  CHECK(at(job, "always_scrape_classic_histograms") == Value(true));
  CHECK(at(job, "native_histogram_min_bucket_factor") == Value(1.1));
  CHECK(at(job, "native_histogram_bucket_limit") == Value(100));
  CHECK(at(job, "convert_classic_histograms_to_nhcb") == Value(true));
  CHECK(at(job, "body_size_limit") == Value("1GB"));
  CHECK(at(job, "keep_dropped_targets") == Value(3));
}

TEST_CASE("the newer fields are checked as Prometheus checks them", "[decode]") {
  const std::string head =
      "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: web, namespace: app}\nspec:\n"
      "  selector: {}\n";
  auto sm = [&](const std::string& spec) { return decode_errors(head + spec); };
  CHECK(sm("  endpoints: [{scheme: HTTPS}]\n").empty());
  CHECK(
      sm("  endpoints: [{scheme: ftp}]\n") ==
      std::vector<std::string>{"ServiceMonitor app/web: spec.endpoints[0].scheme: must be http or https, got \"ftp\""});
  CHECK(sm("  endpoints: [{noProxy: x}]\n") ==
        std::vector<std::string>{"ServiceMonitor app/web: spec.endpoints[0].noProxy: requires proxyUrl"});
  CHECK(sm("  endpoints: [{proxyFromEnvironment: true, noProxy: x}]\n") ==
        std::vector<std::string>{
            "ServiceMonitor app/web: spec.endpoints[0].noProxy: cannot be used together with proxyFromEnvironment"});
  CHECK(sm("  endpoints: [{proxyConnectHeader: {X-A: [{name: s, key: k}]}}]\n") ==
        std::vector<std::string>{"ServiceMonitor app/web: spec.endpoints[0].proxyConnectHeader: requires proxyUrl or "
                                 "proxyFromEnvironment"});
  CHECK(sm("  endpoints: [{proxyUrl: 'proxy:3128'}]\n") ==
        std::vector<std::string>{
            "ServiceMonitor app/web: spec.endpoints[0].proxyUrl: must be an http://, https:// or socks5:// URL"});
  CHECK(sm("  endpoints: [{tlsConfig: {minVersion: TLS13, maxVersion: TLS12}}]\n") ==
        std::vector<std::string>{
            "ServiceMonitor app/web: spec.endpoints[0].tlsConfig.maxVersion: must not be below minVersion TLS13"});
  CHECK(sm("  endpoints: [{tlsConfig: {minVersion: SSL3}}]\n") ==
        std::vector<std::string>{"ServiceMonitor app/web: spec.endpoints[0].tlsConfig.minVersion: must be one of "
                                 "TLS10, TLS11, TLS12, TLS13, got \"SSL3\""});
  CHECK(sm("  selectorMechanism: Labels\n") ==
        std::vector<std::string>{
            "ServiceMonitor app/web: spec.selectorMechanism: must be RelabelConfig or RoleSelector, got \"Labels\""});
  CHECK(sm("  serviceDiscoveryRole: Pods\n") ==
        std::vector<std::string>{
            "ServiceMonitor app/web: spec.serviceDiscoveryRole: must be Endpoints or EndpointSlice, got \"Pods\""});
  CHECK(sm("  bodySizeLimit: 10 MB\n") ==
        std::vector<std::string>{
            "ServiceMonitor app/web: spec.bodySizeLimit: must be a size such as 512MB or 1GiB, got \"10 MB\""});
  CHECK(sm("  scrapeProtocols: [PrometheusProto, PrometheusProto]\n") ==
        std::vector<std::string>{
            "ServiceMonitor app/web: spec.scrapeProtocols[1]: duplicate scrape protocol \"PrometheusProto\""});
  CHECK(decode_errors("apiVersion: monitoring.coreos.com/v1\nkind: PodMonitor\nmetadata: {name: p, namespace: app}\n"
                      "spec: {selector: {}, podMetricsEndpoints: [{portNumber: 0}]}\n") ==
        std::vector<std::string>{"PodMonitor app/p: spec.podMetricsEndpoints[0].portNumber: must be a port number "
                                 "from 1 to 65535, got 0"});
  CHECK(decode_errors(
            "apiVersion: monitoring.coreos.com/v1\nkind: Probe\nmetadata: {name: p, namespace: app}\n"
            "spec: {prober: {url: 'b:1'}, targets: {staticConfig: {static: [x]}}, params: [{values: [a]}]}\n") ==
        std::vector<std::string>{"Probe app/p: spec.params[0].name: is required"});
}

TEST_CASE("a label selector prints as the API server prints it", "[selector]") {
  model::LabelSelector s;
  CHECK(model::selector_string(s).empty());
  s.match_labels = {{"b", "2"}, {"a", "1"}};
  s.match_expressions = {{"c", "NotIn", {"z", "y"}}, {"a0", "Exists", {}}, {"d", "DoesNotExist", {}}};
  CHECK(model::selector_string(s) == "a=1,a0,b=2,c notin (y,z),!d");
}
