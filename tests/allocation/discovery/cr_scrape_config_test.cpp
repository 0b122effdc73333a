// Prometheus CR discovery, the parts of issue 15: ScrapeConfig CRs, scrape
// classes from the config, allow/deny namespaces and
// deny_fs_access_through_sms; config errors naming the field; rendered
// jobs validated by Debian's promtool.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "allocation/discovery/prometheus_cr.hpp"
#include "allocation/responses.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

using namespace allocation::discovery;
using model::Value;
namespace fs = std::filesystem;

namespace {

Value doc(const std::string& yaml) {
  return model::parse_documents(yaml, "t").at(0).value;
}

ObjectPtr object(const std::string& yaml) {
  return std::make_shared<const Value>(doc(yaml));
}

PrometheusCrConfig config(const std::string& yaml) {
  Value block = doc(yaml);
  return parse_prometheus_cr(&block, "prometheus_cr");
}

std::string scrape_config_error(const std::string& yaml) {
  try {
    config(yaml);
  } catch (const DiscoveryError& e) {
    return e.what();
  }
  return "no error";
}

std::vector<std::string> job_names(const Value& jobs) {
  std::vector<std::string> out;
  for (const auto& j : jobs.as_array()) out.push_back(j.find("job_name")->as_string());
  return out;
}

const Value& job_named(const Value& jobs, const std::string& name) {
  for (const auto& j : jobs.as_array())
    if (j.find("job_name")->as_string() == name) return j;
  FAIL("no job " << name);
  throw;
}

ObjectPtr scrape_config(const std::string& name, const std::string& ns, const std::string& spec,
                        const std::string& labels = "{}") {
  return object("apiVersion: monitoring.coreos.com/v1alpha1\nkind: ScrapeConfig\nmetadata: {name: " + name +
                ", namespace: " + ns + ", labels: " + labels + "}\nspec:\n" + spec);
}

ObjectPtr service_monitor(const std::string& name, const std::string& ns, const std::string& endpoint = "{port: http}",
                          const std::string& spec_extra = "") {
  return object("apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: " + name +
                ", namespace: " + ns + "}\nspec:\n  selector: {}\n" + spec_extra + "  endpoints: [" + endpoint + "]\n");
}

ObjectPtr pod_monitor(const std::string& name, const std::string& ns) {
  return object("apiVersion: monitoring.coreos.com/v1\nkind: PodMonitor\nmetadata: {name: " + name +
                ", namespace: " + ns + "}\nspec: {selector: {}, podMetricsEndpoints: [{port: m}]}\n");
}

ObjectPtr probe(const std::string& name, const std::string& ns) {
  return object("apiVersion: monitoring.coreos.com/v1\nkind: Probe\nmetadata: {name: " + name + ", namespace: " + ns +
                "}\nspec: {prober: {url: 'bb:9115'}, targets: {staticConfig: {static: [example.com]}}}\n");
}

ObjectPtr secret(const std::string& ns) {
  return object("apiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: " + ns +
                "}\ndata: {user: YWRtaW4=, pass: czNjcmV0, token: dG9rM24=}\n");
}

const char* kAuthSpec = R"(  basicAuth:
    username: {name: creds, key: user}
    password: {name: creds, key: pass}
  proxyUrl: http://proxy:3128
  proxyConnectHeader:
    X-Token: [{name: creds, key: token}]
  staticConfigs: [{targets: [10.0.0.1:9100]}]
  httpSDConfigs:
  - url: https://sd.example/targets
    authorization: {credentials: {name: creds, key: token}}
)";

// Prometheus 2.42 (Debian 12's promtool) predates these scrape fields;
// they are removed before the check, and Kubernetes SD (not built into
// Debian's Prometheus) becomes HTTP SD, as tests/cli/promtool_test.cpp does.
void adapt_for_promtool(Value& job) {
  for (const char* newer :
       {"scrape_protocols", "fallback_scrape_protocol", "track_timestamps_staleness", "enable_compression",
        "keep_dropped_targets", "metric_name_validation_scheme", "proxy_connect_header"})
    job.erase(newer);
  if (Value* k8s = job.find("kubernetes_sd_configs")) {
    Value http = Value::array();
    for (std::size_t i = 0; i < k8s->size(); ++i) http.push(Value::obj({{"url", "http://127.0.0.1:9/sd"}}));
    job.erase("kubernetes_sd_configs");
    job.set("http_sd_configs", std::move(http));
  }
}

}  // namespace

TEST_CASE("prometheus_cr reads the ScrapeConfig, namespace, file and class keys", "[allocation][discovery]") {
  auto c = config(R"(enabled: true
scrape_config_selector: {matchLabels: {team: a}}
scrape_config_namespace_selector: {matchLabels: {env: prod}}
deny_namespaces: [kube-system]
scrape_classes:
- {name: default, default: true, relabelings: [{targetLabel: cluster, replacement: east}]}
)");
  REQUIRE(c.scrape_config_selector);
  CHECK(c.scrape_config_selector->match_labels.at("team") == "a");
  CHECK(c.needs_namespaces());
  CHECK(c.deny_namespaces == std::vector<std::string>{"kube-system"});
  CHECK(c.deny_fs_access_through_sms);  // ours defaults to true
  REQUIRE(c.scrape_classes.default_class());
  CHECK(c.scrape_classes.default_class()->name == "default");
  CHECK_FALSE(config("deny_fs_access_through_sms: false").deny_fs_access_through_sms);

  CHECK(scrape_config_error("allow_namespaces: [a]\ndeny_namespaces: [b]") ==
        "prometheus_cr.deny_namespaces: cannot be set together with prometheus_cr.allow_namespaces");
  CHECK(scrape_config_error("allow_namespaces: a") ==
        "prometheus_cr.allow_namespaces: must be a list of namespace names");
  CHECK(scrape_config_error("deny_namespaces: [a, 3]") ==
        "prometheus_cr.deny_namespaces[1]: must be a non-empty string");
  CHECK(scrape_config_error("deny_fs_access_through_sms: 'no'") ==
        "prometheus_cr.deny_fs_access_through_sms: must be a boolean");
  CHECK(scrape_config_error("scrape_config_selector: [a]") ==
        "prometheus_cr.scrape_config_selector: must be a label selector (matchLabels/matchExpressions)");
  CHECK(scrape_config_error("scrape_config_namespace_selector: 1") ==
        "prometheus_cr.scrape_config_namespace_selector: must be a label selector (matchLabels/matchExpressions)");
  CHECK(scrape_config_error("scrape_classes: [{name: a}, {}]") == "prometheus_cr.scrape_classes[1].name: is required");
  CHECK(scrape_config_error("scrape_classes: [{name: a, metricRelabelings: {}}]") ==
        "prometheus_cr.scrape_classes[0].metricRelabelings: expected array, got object");
}

TEST_CASE("a wrong type in any scrape class field is a config error naming it", "[allocation][discovery][fuzz]") {
  const Value full = doc(R"(scrape_classes:
- name: a
  default: true
  tlsConfig: {caFile: /ca, certFile: /c, keyFile: /k, serverName: s, insecureSkipVerify: true}
  authorization: {type: Bearer, credentialsFile: /t}
  relabelings: [{sourceLabels: [a], targetLabel: b, regex: (.*), replacement: $1, action: replace}]
  metricRelabelings: [{sourceLabels: [__name__], regex: x, action: drop}]
  attachMetadata: {node: true}
  fallbackScrapeProtocol: PrometheusProto
)");
  const Value& item = full.find("scrape_classes")->as_array()[0];
  std::vector<std::pair<std::string, const Value*>> fields;  // relative path, value
  for (const auto& [k, v] : item.as_object()) {
    fields.emplace_back(k, &v);
    if (v.is_object())
      for (const auto& [k2, v2] : v.as_object()) fields.emplace_back(k + "." + k2, &v2);
    if (v.is_array())
      for (const auto& [k2, v2] : v.as_array()[0].as_object()) fields.emplace_back(k + "[0]." + k2, &v2);
  }
  REQUIRE(fields.size() > 20);
  for (const auto& [path, value] : fields) {
    INFO(path);
    Value broken = full;
    // Walk to the field and give it a type it never accepts.
    Value* at = &broken.find("scrape_classes")->as_array()[0];
    std::string rest = path;
    while (!rest.empty()) {
      auto dot = rest.find('.');
      std::string step = rest.substr(0, dot);
      rest = dot == std::string::npos ? "" : rest.substr(dot + 1);
      bool index = step.ends_with("[0]");
      at = at->find(index ? step.substr(0, step.size() - 3) : step);
      if (index) at = &at->as_array()[0];
    }
    *at = value->is_bool() ? Value("yes") : value->is_string() ? Value::arr({1}) : Value(true);
    try {
      parse_prometheus_cr(&broken, "prometheus_cr");
      FAIL("accepted");
    } catch (const DiscoveryError& e) {
      CHECK_THAT(e.what(), Catch::StartsWith("prometheus_cr.scrape_classes[0]." + path));
    }
  }
}

TEST_CASE("selected ScrapeConfigs render after Probes", "[allocation][discovery][scrapeconfig]") {
  auto c = config(
      "scrape_config_selector: {matchLabels: {team: a}}\n"
      "scrape_config_namespace_selector: {matchLabels: {env: prod}}\n");
  PrometheusCrIndex index(c);
  CHECK(
      index.apply("ScrapeConfig", Change::added,
                  scrape_config("static", "prod1", "  staticConfigs: [{targets: ['10.0.0.1:9100']}]\n", "{team: a}")));
  CHECK(index.apply("ScrapeConfig", Change::added,
                    scrape_config("other", "prod1", "  staticConfigs: [{targets: ['10.0.0.2:9100']}]\n", "{team: b}")));
  CHECK(index.apply("ScrapeConfig", Change::added,
                    scrape_config("dev", "dev", "  staticConfigs: [{targets: ['10.0.0.3:9100']}]\n", "{team: a}")));
  index.apply("Namespace", Change::added, object("metadata: {name: prod1, labels: {env: prod}}"));
  index.apply("Namespace", Change::added, object("metadata: {name: dev, labels: {env: dev}}"));
  index.apply("Probe", Change::added, probe("site", "prod1"));
  index.apply("ServiceMonitor", Change::added, service_monitor("web", "prod1"));
  std::vector<std::string> problems;
  auto jobs = index.jobs(problems);
  CHECK(problems.empty());
  CHECK(job_names(jobs) ==
        std::vector<std::string>{"serviceMonitor/prod1/web/0", "probe/prod1/site", "scrapeConfig/prod1/static"});
  const Value& sc = job_named(jobs, "scrapeConfig/prod1/static");
  CHECK(sc.find("static_configs")->as_array().at(0).find("targets")->as_array().at(0).as_string() == "10.0.0.1:9100");
  // Deleting it removes the job.
  CHECK(index.apply("ScrapeConfig", Change::deleted, scrape_config("static", "prod1", "  {}\n")));
  CHECK(job_names(index.jobs(problems)).size() == 2);
}

TEST_CASE("ScrapeConfigs that cannot be served are left out with a problem", "[allocation][discovery][scrapeconfig]") {
  PrometheusCrIndex index(PrometheusCrConfig{});
  index.apply("ScrapeConfig", Change::added,
              scrape_config("consul", "ns", "  consulSDConfigs: [{server: 'consul:8500'}]\n"));
  index.apply("ScrapeConfig", Change::added, scrape_config("typo", "ns", "  staticConfigs: {targets: [a]}\n"));
  index.apply("ScrapeConfig", Change::added, scrape_config("auth", "ns", kAuthSpec));  // no Secret yet
  index.apply("ScrapeConfig", Change::added, scrape_config("gold", "ns", "  scrapeClass: gold\n"));
  std::vector<std::string> problems;
  CHECK(index.jobs(problems).as_array().empty());
  std::sort(problems.begin(), problems.end());
  INFO(Catch::Detail::stringify(problems));
  // Every missing reference is named, each with its field.
  REQUIRE(problems.size() == 7);
  CHECK(problems[0] == "ScrapeConfig ns/auth: spec.basicAuth.password: Secret ns/creds not found");
  CHECK(problems[2] ==
        "ScrapeConfig ns/auth: spec.httpSDConfigs[0].authorization.credentials: Secret ns/creds not found");
  CHECK(problems[3] == "ScrapeConfig ns/auth: spec.proxyConnectHeader.X-Token[0]: Secret ns/creds not found");
  CHECK_THAT(problems[4], Catch::StartsWith("ScrapeConfig ns/consul: spec.consulSDConfigs: not supported"));
  CHECK(problems[5] == "ScrapeConfig ns/gold: spec.scrapeClass: scrape class \"gold\" is not defined");
  CHECK(problems[6] == "ScrapeConfig ns/typo: spec.staticConfigs: expected array, got object");
  // The Secret arrives: the job renders, and /scrape_configs masks every
  // credential it carries (basic auth, SD authorization, proxy headers).
  CHECK(index.apply("Secret", Change::added, secret("ns")));
  problems.clear();
  auto jobs = index.jobs(problems);
  REQUIRE(job_names(jobs) == std::vector<std::string>{"scrapeConfig/ns/auth"});
  const Value& job = jobs.as_array()[0];
  CHECK(job.find("basic_auth")->find("password")->as_string() == "s3cret");
  CHECK(job.find("http_sd_configs")->as_array()[0].find("authorization")->find("credentials")->as_string() == "tok3n");
  const std::string body = allocation::scrape_configs_json(jobs);
  for (const char* secret_value : {"s3cret", "tok3n"}) CHECK(body.find(secret_value) == std::string::npos);
  auto served = model::parse_json(body);
  const Value& s = *served.find("scrapeConfig/ns/auth");
  CHECK(s.find("basic_auth")->find("username")->as_string() == "admin");
  CHECK(s.find("basic_auth")->find("password")->as_string() == "<secret>");
  CHECK(s.find("http_sd_configs")->as_array()[0].find("authorization")->find("credentials")->as_string() == "<secret>");
  CHECK(s.find("proxy_connect_header")->find("X-Token")->as_array()[0].as_string() == "<secret>");
}

TEST_CASE("allow_namespaces and deny_namespaces restrict all four kinds", "[allocation][discovery]") {
  auto fill = [](PrometheusCrIndex& index) {
    for (const char* ns : {"a", "b"}) {
      index.apply("ServiceMonitor", Change::added, service_monitor("sm", ns));
      index.apply("PodMonitor", Change::added, pod_monitor("pm", ns));
      index.apply("Probe", Change::added, probe("p", ns));
      index.apply("ScrapeConfig", Change::added, scrape_config("sc", ns, "  staticConfigs: [{targets: [x:1]}]\n"));
    }
  };
  std::vector<std::string> problems;
  PrometheusCrIndex allow(config("allow_namespaces: [a]"));
  fill(allow);
  CHECK(job_names(allow.jobs(problems)) ==
        std::vector<std::string>{"serviceMonitor/a/sm/0", "podMonitor/a/pm/0", "probe/a/p", "scrapeConfig/a/sc"});
  PrometheusCrIndex deny(config("deny_namespaces: [a]"));
  fill(deny);
  CHECK(job_names(deny.jobs(problems)) ==
        std::vector<std::string>{"serviceMonitor/b/sm/0", "podMonitor/b/pm/0", "probe/b/p", "scrapeConfig/b/sc"});
  CHECK(problems.empty());
}

TEST_CASE("deny_fs_access_through_sms leaves out ServiceMonitors reading files", "[allocation][discovery]") {
  const std::string endpoints =
      "{port: http, bearerTokenFile: /var/run/secrets/token}, "
      "{port: admin, tlsConfig: {caFile: /etc/ca.crt}}";
  PrometheusCrIndex strict(PrometheusCrConfig{});  // the default: true
  strict.apply("ServiceMonitor", Change::added, service_monitor("files", "ns", endpoints));
  strict.apply("ServiceMonitor", Change::added, service_monitor("plain", "ns"));
  std::vector<std::string> problems;
  CHECK(job_names(strict.jobs(problems)) == std::vector<std::string>{"serviceMonitor/ns/plain/0"});
  CHECK(problems == std::vector<std::string>{
                        "ServiceMonitor ns/files: spec.endpoints[0].bearerTokenFile: reading files is denied by "
                        "prometheus_cr.deny_fs_access_through_sms",
                        "ServiceMonitor ns/files: spec.endpoints[1].tlsConfig.caFile: reading files is denied by "
                        "prometheus_cr.deny_fs_access_through_sms"});
  PrometheusCrIndex lax(config("deny_fs_access_through_sms: false"));
  lax.apply("ServiceMonitor", Change::added, service_monitor("files", "ns", endpoints));
  problems.clear();
  auto jobs = lax.jobs(problems);
  CHECK(problems.empty());
  CHECK(job_named(jobs, "serviceMonitor/ns/files/0").find("bearer_token_file")->as_string() ==
        "/var/run/secrets/token");
  CHECK(job_named(jobs, "serviceMonitor/ns/files/1").find("tls_config")->find("ca_file")->as_string() == "/etc/ca.crt");
}

TEST_CASE("scrape classes from the config apply to every kind", "[allocation][discovery][scrapeclass]") {
  PrometheusCrIndex index(config(R"(scrape_classes:
- {name: east, default: true, relabelings: [{targetLabel: cluster, replacement: east}]}
- {name: gold, tlsConfig: {caFile: /etc/gold-ca.crt}}
)"));
  index.apply("ServiceMonitor", Change::added, service_monitor("sm", "ns"));
  index.apply("ServiceMonitor", Change::added, service_monitor("gold", "ns", "{port: http}", "  scrapeClass: gold\n"));
  index.apply("ServiceMonitor", Change::added, service_monitor("lost", "ns", "{port: http}", "  scrapeClass: x\n"));
  index.apply("PodMonitor", Change::added, pod_monitor("pm", "ns"));
  index.apply("Probe", Change::added, probe("p", "ns"));
  index.apply("ScrapeConfig", Change::added, scrape_config("sc", "ns", "  staticConfigs: [{targets: [x:1]}]\n"));
  std::vector<std::string> problems;
  auto jobs = index.jobs(problems);
  CHECK(problems == std::vector<std::string>{"ServiceMonitor ns/lost: spec.scrapeClass: scrape class \"x\" is not "
                                             "defined"});
  auto has_cluster = [](const Value& job) {
    for (const auto& r : job.find("relabel_configs")->as_array())
      if (const Value* t = r.find("target_label"); t && t->as_string() == "cluster") return true;
    return false;
  };
  for (const char* name : {"serviceMonitor/ns/sm/0", "podMonitor/ns/pm/0", "probe/ns/p", "scrapeConfig/ns/sc"})
    CHECK(has_cluster(job_named(jobs, name)));
  const Value& gold = job_named(jobs, "serviceMonitor/ns/gold/0");
  CHECK_FALSE(has_cluster(gold));
  CHECK(gold.find("tls_config")->find("ca_file")->as_string() == "/etc/gold-ca.crt");
}

TEST_CASE("a ScrapeConfig job and a scrape-class job pass promtool check config", "[allocation][discovery][promtool]") {
  REQUIRE(std::system("promtool --version >/dev/null 2>&1") == 0);
  fs::path tmp = fs::temp_directory_path() / ("ao-cr-promtool-" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  for (const char* f : {"ca.crt", "tls.crt", "tls.key", "token"}) std::ofstream(tmp / f) << "x";
  const std::string dir = tmp.string();
  PrometheusCrIndex index(config("scrape_classes:\n- name: mtls\n  tlsConfig: {caFile: " + dir +
                                 "/ca.crt, certFile: " + dir + "/tls.crt, keyFile: " + dir +
                                 "/tls.key}\n  authorization: {credentialsFile: " + dir +
                                 "/token}\n  relabelings: [{targetLabel: cluster, replacement: east}]\n"
                                 "  metricRelabelings: [{sourceLabels: [__name__], regex: debug_.*, action: drop}]\n"
                                 "deny_fs_access_through_sms: false\n"));
  index.apply("Secret", Change::added, secret("ns"));
  index.apply("ScrapeConfig", Change::added, scrape_config("full", "ns", std::string(kAuthSpec) + R"(  jobName: nodes
  metricsPath: /m
  params: {module: [a]}
  scrapeInterval: 30s
  scrapeTimeout: 10s
  scheme: HTTPS
  honorLabels: true
  sampleLimit: 10
  fileSDConfigs: [{files: [/etc/sd/*.json], refreshInterval: 5m}]
  kubernetesSDConfigs:
  - {role: Pod, namespaces: {names: [a]}, selectors: [{role: Pod, label: app=web}]}
  relabelings: [{sourceLabels: [__address__], targetLabel: instance}]
  metricRelabelings: [{sourceLabels: [__name__], regex: go_.*, action: drop}]
)"));
  index.apply("ServiceMonitor", Change::added,
              service_monitor("classy", "ns", "{port: http, relabelings: [{targetLabel: team, replacement: a}]}",
                              "  scrapeClass: mtls\n"));
  std::vector<std::string> problems;
  Value jobs = index.jobs(problems);
  for (const auto& p : problems) FAIL_CHECK(p);
  REQUIRE(job_names(jobs) == std::vector<std::string>{"serviceMonitor/ns/classy/0", "scrapeConfig/ns/full"});
  for (auto& job : jobs.as_array()) adapt_for_promtool(job);
  std::ofstream(tmp / "prometheus.yml") << model::to_yaml(Value::obj({{"scrape_configs", jobs}}));
  const std::string cmd =
      "promtool check config " + (tmp / "prometheus.yml").string() + " >" + (tmp / "out").string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream out(tmp / "out");
  std::string output((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  INFO(output << "\n--- config ---\n" << model::to_yaml(jobs));
  CHECK(WEXITSTATUS(rc) == 0);
  fs::remove_all(tmp);
}
