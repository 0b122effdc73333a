// Scrape classes, rule by rule as prometheus-operator's promcfg.go and
// resource_selector.go apply them: where the class's relabelings go, metric
// relabelings first, TLS files filling what the monitor leaves unset,
// authorization only for monitors without one, attachMetadata and the
// fallback protocol as defaults, the default class, unknown classes, and
// the list's validation. Without PromOperatorSettings (the operator's
// rendering) nothing changes.
#include <catch2/catch.hpp>

#include <algorithm>

#include "golden_util.hpp"
#include "model/inventory.hpp"
#include "model/parse.hpp"
#include "model/scrape/jobs.hpp"
#include "model/scrape_class.hpp"

using model::Value;
namespace scrape = model::scrape;
using testutil::yaml;

namespace {

const char* kClasses = R"(
- name: mtls
  tlsConfig: {caFile: /etc/ca.crt, certFile: /etc/tls.crt, keyFile: /etc/tls.key, insecureSkipVerify: true}
  authorization: {credentialsFile: /var/run/secrets/token}
  relabelings: [{targetLabel: cluster, replacement: east}]
  metricRelabelings: [{sourceLabels: [__name__], regex: debug_.*, action: drop}]
  attachMetadata: {node: true}
  fallbackScrapeProtocol: PrometheusText0.0.4
- name: plain
  default: true
  relabelings: [{targetLabel: tier, replacement: default}]
)";

const char* kSecrets = R"(
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: ns}
stringData: {user: admin, pass: s3cret, token: t0ken, ca: CA-PEM}
)";

scrape::PromOperatorSettings settings(const char* classes = kClasses) {
  model::FieldErrors errors;
  const Value list = yaml(classes);
  scrape::PromOperatorSettings s{model::decode_scrape_classes(&list, "classes", errors), "the setting"};
  REQUIRE(errors.empty());
  return s;
}

struct Out {
  Value jobs;  // always an array
  std::vector<std::string> errors;
};

// Renders the one monitor of `manifest` (any of the four kinds).
Out render_with_class(const std::string& manifest, const scrape::PromOperatorSettings* s) {
  model::Inventory inv = testutil::inventory_from_yaml(std::string(kSecrets) + "---\n" + manifest);
  REQUIRE(inv.problems().empty());
  model::GrafanaAgent agent;
  model::RenderOptions options;
  options.inline_tls = true;
  const Value sd = Value::object();
  const scrape::JobContext ctx{agent, options, 1, sd, s};
  model::AssetRefs assets(inv);
  Out out;
  Value doc = yaml(manifest);
  const std::string kind = doc.find("kind")->as_string();
  if (kind == "ServiceMonitor")
    out.jobs = scrape::service_monitor_jobs(ctx, *inv.service_monitors.begin()->second.decoded, assets);
  if (kind == "PodMonitor") out.jobs = scrape::pod_monitor_jobs(ctx, *inv.pod_monitors.begin()->second.decoded, assets);
  if (kind == "Probe") out.jobs = Value::arr({scrape::probe_job(ctx, *inv.probes.begin()->second.decoded, assets)});
  if (kind == "ScrapeConfig") {
    model::FieldErrors errors;
    auto sc = model::decode_scrape_config(doc, errors);
    REQUIRE(errors.empty());
    out.jobs = Value::arr({scrape::scrape_config_job(ctx, sc, assets)});
  }
  for (const auto& e : assets.errors) out.errors.push_back(e.path + ": " + e.message);
  return out;
}

Value first_job(const std::string& manifest, const scrape::PromOperatorSettings* s) {
  Out out = render_with_class(manifest, s);
  for (const auto& e : out.errors) FAIL_CHECK(e);
  REQUIRE(out.jobs.size() >= 1);
  return out.jobs.as_array()[0];
}

std::string sm(const std::string& endpoint, const std::string& spec_extra = "") {
  return "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: web, namespace: ns}\n"
         "spec:\n  selector: {matchLabels: {app: web}}\n" +
         spec_extra + "  endpoints:\n  - " + endpoint + "\n";
}

std::string pm(const std::string& endpoint, const std::string& spec_extra = "") {
  return "apiVersion: monitoring.coreos.com/v1\nkind: PodMonitor\nmetadata: {name: pods, namespace: ns}\n"
         "spec:\n  selector: {}\n" +
         spec_extra + "  podMetricsEndpoints:\n  - " + endpoint + "\n";
}

// The target_label of each relabel rule ("" for keep/drop rules).
std::vector<std::string> targets(const Value& job) {
  std::vector<std::string> out;
  for (const auto& r : job.find("relabel_configs")->as_array()) {
    const Value* t = r.find("target_label");
    out.push_back(t ? t->as_string() : "");
  }
  return out;
}

std::string error_of(const std::string& classes) {
  model::FieldErrors errors;
  const Value list = yaml(classes);
  model::decode_scrape_classes(&list, "prometheus_cr.scrape_classes", errors);
  return errors.empty() ? "no error" : errors[0].path + ": " + errors[0].message;
}

}  // namespace

TEST_CASE("scrape class lists are validated field by field", "[metrics][scrapeclass]") {
  CHECK(error_of("[{default: true}]") == "prometheus_cr.scrape_classes[0].name: is required");
  CHECK(error_of("[{name: ''}]") == "prometheus_cr.scrape_classes[0].name: is required");
  CHECK(error_of("[{name: 5}]") == "prometheus_cr.scrape_classes[0].name: expected string, got integer");
  CHECK(error_of("[{name: a}, {name: a}]") ==
        "prometheus_cr.scrape_classes[1].name: duplicate scrape class name \"a\"");
  CHECK(error_of("[{name: a, default: true}, {name: b, default: true}]") ==
        "prometheus_cr.scrape_classes[1].default: only one scrape class may be the default (\"a\" is too)");
  CHECK(error_of("[{name: a, default: 'yes'}]") ==
        "prometheus_cr.scrape_classes[0].default: expected boolean, got string");
  CHECK_THAT(error_of("[{name: a, tlsConfig: {ca: {secret: {name: s, key: k}}}}]"),
             Catch::StartsWith("prometheus_cr.scrape_classes[0].tlsConfig.ca: not supported in a scrape class"));
  CHECK(error_of("[{name: a, tlsConfig: {certFile: /c}}]") ==
        "prometheus_cr.scrape_classes[0].tlsConfig.certFile: client cert requires keyFile");
  CHECK_THAT(error_of("[{name: a, authorization: {credentials: {name: s, key: k}}}]"),
             Catch::StartsWith("prometheus_cr.scrape_classes[0].authorization.credentials: not supported"));
  CHECK_THAT(error_of("[{name: a, authorization: {type: Basic}}]"),
             Catch::StartsWith("prometheus_cr.scrape_classes[0].authorization.type:"));
  CHECK_THAT(error_of("[{name: a, relabelings: [{action: explode}]}]"),
             Catch::StartsWith("prometheus_cr.scrape_classes[0].relabelings[0].action:"));
  CHECK(error_of("[{name: a, fallbackScrapeProtocol: Text}]") ==
        "prometheus_cr.scrape_classes[0].fallbackScrapeProtocol: unknown scrape protocol \"Text\"");
  CHECK(error_of("[{name: a, attachMetadata: {node: 1}}]") ==
        "prometheus_cr.scrape_classes[0].attachMetadata.node: expected boolean, got integer");
  CHECK(error_of("[a]") == "prometheus_cr.scrape_classes[0]: expected object, got string");
  CHECK(error_of("{name: a}") == "prometheus_cr.scrape_classes: expected a list of scrape classes, got object");
  CHECK(error_of(kClasses) == "no error");
}

TEST_CASE("class relabelings sit between the generated rules and the monitor's own", "[metrics][scrapeclass]") {
  const auto s = settings();
  Value job = first_job(sm("{port: http, relabelings: [{targetLabel: team, replacement: a}], "
                           "metricRelabelings: [{sourceLabels: [__name__], regex: up, action: keep}]}",
                           "  scrapeClass: mtls\n"),
                        &s);
  auto t = targets(job);
  // ... job, endpoint (generated), cluster (class), team (user), sharding.
  auto endpoint = std::find(t.begin(), t.end(), "endpoint");
  REQUIRE(endpoint != t.end());
  CHECK(std::vector<std::string>(endpoint, t.end()) ==
        std::vector<std::string>{"endpoint", "cluster", "team", "__tmp_hash", ""});
  // Metric relabelings: the class's first, then the monitor's.
  CHECK(job.find("metric_relabel_configs")->as_array().at(0).find("regex")->as_string() == "debug_.*");
  CHECK(job.find("metric_relabel_configs")->as_array().at(1).find("regex")->as_string() == "up");
  // The same for PodMonitors.
  auto pt = targets(
      first_job(pm("{port: m, relabelings: [{targetLabel: team, replacement: a}]}", "  scrapeClass: mtls\n"), &s));
  CHECK(std::vector<std::string>(std::find(pt.begin(), pt.end(), "endpoint"), pt.end()) ==
        std::vector<std::string>{"endpoint", "cluster", "team", "__tmp_hash", ""});
}

TEST_CASE("class TLS fills the files a monitor leaves unset", "[metrics][scrapeclass]") {
  const auto s = settings();
  // No tlsConfig: the class's whole, insecureSkipVerify included.
  testutil::check_same(
      yaml("{ca_file: /etc/ca.crt, cert_file: /etc/tls.crt, key_file: /etc/tls.key, insecure_skip_verify: true}"),
      *first_job(sm("{port: http}", "  scrapeClass: mtls\n"), &s).find("tls_config"));
  // The monitor's CA wins; cert and key come from the class; its
  // serverName stays and the class's insecureSkipVerify does not apply.
  Value merged = *first_job(sm("{port: http, tlsConfig: {ca: {secret: {name: creds, key: ca}}, serverName: web}}",
                               "  scrapeClass: mtls\n"),
                            &s)
                      .find("tls_config");
  testutil::check_same(yaml("{ca: CA-PEM, cert_file: /etc/tls.crt, key_file: /etc/tls.key, server_name: web}"), merged);
  // An empty tlsConfig: a ServiceMonitor's counts as set (only files are
  // filled), a PodMonitor's as unset (the class's whole).
  CHECK_FALSE(first_job(sm("{port: http, tlsConfig: {}}", "  scrapeClass: mtls\n"), &s)
                  .find("tls_config")
                  ->find("insecure_skip_verify"));
  CHECK(first_job(pm("{port: m, tlsConfig: {}}", "  scrapeClass: mtls\n"), &s)
            .find("tls_config")
            ->find("insecure_skip_verify"));
}

TEST_CASE("class authorization applies to monitors without their own", "[metrics][scrapeclass]") {
  const auto s = settings();
  CHECK(*first_job(sm("{port: http}", "  scrapeClass: mtls\n"), &s).find("authorization") ==
        yaml("{type: Bearer, credentials_file: /var/run/secrets/token}"));
  // The monitor's own authorization wins.
  CHECK(*first_job(sm("{port: http, authorization: {type: Token, credentials: {name: creds, key: token}}}",
                      "  scrapeClass: mtls\n"),
                   &s)
             .find("authorization") == yaml("{type: Token, credentials: t0ken}"));
  // Prometheus allows one method per job: basicAuth next to the class's
  // authorization leaves the monitor out, naming the field.
  Out both = render_with_class(
      sm("{port: http, basicAuth: {username: {name: creds, key: user}, password: {name: creds, key: pass}}}",
         "  scrapeClass: mtls\n"),
      &s);
  REQUIRE(both.errors.size() == 1);
  CHECK_THAT(both.errors[0], Catch::StartsWith("spec.endpoints[0].basicAuth: cannot be combined with the "
                                               "authorization of scrape class \"mtls\""));
}

TEST_CASE("the default class applies unless a monitor names another, and unknown names reject",
          "[metrics][scrapeclass]") {
  const auto s = settings();
  auto plain = targets(first_job(sm("{port: http}"), &s));
  CHECK(std::find(plain.begin(), plain.end(), "tier") != plain.end());
  auto named = targets(first_job(sm("{port: http}", "  scrapeClass: mtls\n"), &s));
  CHECK(std::find(named.begin(), named.end(), "tier") == named.end());
  CHECK(std::find(named.begin(), named.end(), "cluster") != named.end());
  Out unknown = render_with_class(sm("{port: http}", "  scrapeClass: gold\n"), &s);
  CHECK(unknown.errors == std::vector<std::string>{"spec.scrapeClass: scrape class \"gold\" is not defined"});
  // Without classes at all, a monitor naming one is rejected too.
  const scrape::PromOperatorSettings none;
  CHECK(render_with_class(sm("{port: http}", "  scrapeClass: mtls\n"), &none).errors.size() == 1);
}

TEST_CASE("class attachMetadata and fallback protocol are defaults", "[metrics][scrapeclass]") {
  const auto s = settings();
  Value job = first_job(pm("{port: m}", "  scrapeClass: mtls\n"), &s);
  CHECK(testutil::at(job, "kubernetes_sd_configs[0].attach_metadata.node").as_bool());
  CHECK(job.find("fallback_scrape_protocol")->as_string() == "PrometheusText0.0.4");
  // The monitor's own attachMetadata (even without node) and protocol win.
  Value own = first_job(pm("{port: m}",
                           "  scrapeClass: mtls\n  attachMetadata: {}\n"
                           "  fallbackScrapeProtocol: OpenMetricsText1.0.0\n"),
                        &s);
  CHECK_FALSE(testutil::at(own, "kubernetes_sd_configs[0]").find("attach_metadata"));
  CHECK(own.find("fallback_scrape_protocol")->as_string() == "OpenMetricsText1.0.0");
}

TEST_CASE("Probes and ScrapeConfigs place class relabelings as prometheus-operator", "[metrics][scrapeclass]") {
  const auto s = settings();
  Value probe = first_job(R"(apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: site, namespace: ns}
spec:
  scrapeClass: mtls
  prober: {url: blackbox:9115}
  targets:
    staticConfig:
      static: [https://example.com]
      relabelingConfigs: [{targetLabel: team, replacement: a}]
)",
                          &s);
  auto pt = targets(probe);
  // After the prober's __address__ rule, before the Probe's own.
  auto address = std::find(pt.begin(), pt.end(), "__address__");
  REQUIRE(address != pt.end());
  CHECK(std::vector<std::string>(address, address + 3) == std::vector<std::string>{"__address__", "cluster", "team"});
  CHECK(probe.find("tls_config")->find("ca_file"));
  // ScrapeConfig: right after the job-name rule, before jobName and the user's.
  Value sc = first_job(R"(apiVersion: monitoring.coreos.com/v1alpha1
kind: ScrapeConfig
metadata: {name: s, namespace: ns}
spec:
  scrapeClass: mtls
  jobName: j
  staticConfigs: [{targets: [a:80]}]
  relabelings: [{targetLabel: team, replacement: a}]
)",
                       &s);
  CHECK(targets(sc) == std::vector<std::string>{"__tmp_prometheus_job_name", "cluster", "job", "team"});
  CHECK(*sc.find("authorization") == yaml("{type: Bearer, credentials_file: /var/run/secrets/token}"));
}

TEST_CASE("without PromOperatorSettings scrapeClass changes nothing", "[metrics][scrapeclass]") {
  // The operator's GrafanaAgent rendering has no scrape classes.
  CHECK(first_job(sm("{port: http}", "  scrapeClass: mtls\n"), nullptr) == first_job(sm("{port: http}"), nullptr));
  CHECK(first_job(pm("{port: m}", "  scrapeClass: gold\n  fallbackScrapeProtocol: PrometheusProto\n"), nullptr) ==
        first_job(pm("{port: m}"), nullptr));
}

TEST_CASE("wrong types in a monitor's scrapeClass and fallbackScrapeProtocol are errors", "[metrics][scrapeclass]") {
  for (const char* kind : {"ServiceMonitor", "PodMonitor", "Probe"}) {
    INFO(kind);
    const std::string head = std::string("apiVersion: monitoring.coreos.com/v1\nkind: ") + kind +
                             "\nmetadata: {name: m, namespace: ns}\nspec:\n";
    auto problems = testutil::inventory_problems(head + "  scrapeClass: 5\n  fallbackScrapeProtocol: [a]\n");
    auto has = [&](const std::string& text) {
      return std::any_of(problems.begin(), problems.end(),
                         [&](const std::string& p) { return p.find(text) != std::string::npos; });
    };
    CHECK(has("spec.scrapeClass: expected string, got integer"));
    CHECK(has("spec.fallbackScrapeProtocol: expected string, got array"));
    problems = testutil::inventory_problems(head + "  scrapeClass: \"\"\n  fallbackScrapeProtocol: Text\n");
    CHECK(has("spec.scrapeClass: must not be empty"));
    CHECK(has("spec.fallbackScrapeProtocol: unknown scrape protocol \"Text\""));
  }
}
