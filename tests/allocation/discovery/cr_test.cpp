// Collector and Prometheus CR discovery, pure parts: config selectors, the
// Pod-backed collector set and the rendering of selected monitors.
#include <catch2/catch.hpp>

#include "allocation/discovery/collectors.hpp"
#include "allocation/discovery/prometheus_cr.hpp"
#include "allocation/responses.hpp"
#include "model/parse.hpp"

using namespace allocation::discovery;
using model::parse_json;

namespace {

std::shared_ptr<const model::Value> object(const std::string& json) {
  return std::make_shared<const model::Value>(parse_json(json));
}

model::Value pod(const std::string& name, const std::string& node, const std::string& ready,
                 const std::string& app = "col") {
  return parse_json(R"({"metadata": {"name": ")" + name + R"(", "namespace": "ns", "labels": {"app": ")" + app +
                    R"("}}, "spec": {"nodeName": ")" + node +
                    R"("}, "status": {"conditions": [{"type": "PodScheduled", "status": "True"},
                     {"type": "Ready", "status": ")" +
                    ready + R"("}]}})");
}

std::string error_of(const std::string& yaml) {
  try {
    auto doc = model::parse_documents(yaml, "t").at(0).value;
    parse_prometheus_cr(&doc, "prometheus_cr");
  } catch (const DiscoveryError& e) {
    return e.what();
  }
  return "no error";
}

std::vector<std::string> job_names(const model::Value& jobs) {
  std::vector<std::string> out;
  for (const auto& j : jobs.as_array()) out.push_back(j.find("job_name")->as_string());
  return out;
}

const char* kMonitor = R"({"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor",
  "metadata": {"name": "%s", "namespace": "%s", "labels": {"team": "%s"}},
  "spec": {"selector": {"matchLabels": {"app": "web"}}, "endpoints": [{"port": "http"}, {"port": "admin"}]}})";

std::shared_ptr<const model::Value> monitor(const std::string& name, const std::string& ns, const std::string& team) {
  char buf[1024];
  std::snprintf(buf, sizeof buf, kMonitor, name.c_str(), ns.c_str(), team.c_str());
  return object(buf);
}

// A Secret (data base64-encoded) or ConfigMap in namespace ns.
std::shared_ptr<const model::Value> asset(const std::string& kind, const std::string& name, const std::string& data,
                                          const std::string& version = "1") {
  return object(R"({"apiVersion": "v1", "kind": ")" + kind + R"(", "metadata": {"name": ")" + name +
                R"(", "namespace": "ns", "resourceVersion": ")" + version + R"("}, "data": )" + data + "}");
}

std::shared_ptr<const model::Value> auth_monitor() {
  return object(R"({"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor",
    "metadata": {"name": "auth", "namespace": "ns"},
    "spec": {"selector": {}, "endpoints": [{"port": "http",
      "basicAuth": {"username": {"name": "creds", "key": "user"}, "password": {"name": "creds", "key": "pass"}}},
      {"port": "admin", "authorization": {"credentials": {"name": "creds", "key": "token"}}}]}})");
}

const std::string& str(const model::Value& v, std::initializer_list<const char*> path) {
  const model::Value* at = &v;
  for (const char* key : path) {
    at = at->find(key);
    REQUIRE(at);
  }
  return at->as_string();
}

}  // namespace

TEST_CASE("collector_selector accepts upstream lower-case keys and renders API text", "[allocation][discovery]") {
  auto doc = parse_json(R"({"matchlabels": {"app": "col"},
    "matchexpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]},
                         {"key": "canary", "operator": "DoesNotExist"}]})");
  auto sel = parse_label_selector(&doc, "collector_selector");
  REQUIRE(sel);
  CHECK(selector_text(*sel) == "app=col,tier in (a,b),!canary");
  CHECK(sel->matches({{"app", "col"}, {"tier", "b"}}));
  CHECK_FALSE(sel->matches({{"app", "col"}, {"tier", "b"}, {"canary", "1"}}));
  auto bad = parse_json(R"({"matchExpressions": [{"key": "k", "operator": "Near"}]})");
  CHECK_THROWS_WITH(parse_label_selector(&bad, "collector_selector"),
                    Catch::StartsWith("collector_selector.matchExpressions[0].operator: unknown operator"));
  CHECK_FALSE(parse_label_selector(nullptr, "x"));
}

TEST_CASE("the collector set follows pod readiness nodes and deletions", "[allocation][discovery]") {
  CollectorSet set(model::LabelSelector{{{"app", "col"}}, {}});
  const allocation::TimePoint t0{std::chrono::seconds(100)}, t1{std::chrono::seconds(200)};
  CHECK(set.apply(Change::added, pod("c1", "n1", "False"), t0));
  CHECK(set.apply(Change::added, pod("c2", "n2", "True"), t0));
  CHECK_FALSE(set.apply(Change::added, pod("other", "n1", "True", "web"), t0));
  auto cs = set.collectors();
  REQUIRE(cs.size() == 2);
  CHECK((cs[0].name == "c1" && cs[0].node == "n1" && !cs[0].ready));
  CHECK((cs[1].name == "c2" && cs[1].ready && cs[1].ready_since == t0));
  // An unrelated status change is no change; readiness keeps its first time.
  CHECK_FALSE(set.apply(Change::modified, pod("c2", "n2", "True"), t1));
  CHECK(set.collectors()[1].ready_since == t0);
  CHECK(set.apply(Change::modified, pod("c1", "n1", "True"), t1));
  CHECK((set.collectors()[0].ready && set.collectors()[0].ready_since == t1));
  // A terminating pod is not Ready, whatever its condition says.
  auto terminating = pod("c1", "n1", "True");
  terminating.find("metadata")->set("deletionTimestamp", "2024-05-01T12:00:00Z");
  CHECK(set.apply(Change::modified, terminating, t1));
  CHECK_FALSE(set.collectors()[0].ready);
  CHECK(set.apply(Change::modified, pod("c1", "n1", "True"), t1));
  // Relabeled away from the selector counts as deleted, as does a deletion.
  CHECK(set.apply(Change::modified, pod("c1", "n1", "True", "web"), t1));
  CHECK(set.apply(Change::deleted, pod("c2", "n2", "True"), t1));
  CHECK(set.collectors().empty());
}

TEST_CASE("prometheus_cr config reads selectors and rejects bad ones", "[allocation][discovery]") {
  auto doc = model::parse_documents(R"(enabled: true
scrape_interval: 15s
service_monitor_selector: {matchlabels: {team: a}}
pod_monitor_namespace_selector: {matchLabels: {env: prod}}
)",
                                    "t")
                 .at(0)
                 .value;
  auto c = parse_prometheus_cr(&doc, "prometheus_cr");
  CHECK(c.enabled);
  CHECK(c.scrape_interval == "15s");
  REQUIRE(c.service_monitor_selector);
  CHECK(c.service_monitor_selector->match_labels.at("team") == "a");
  CHECK_FALSE(c.pod_monitor_selector);
  CHECK(c.needs_namespaces());
  CHECK(error_of("enabled: 1") == "prometheus_cr.enabled: must be a boolean");
  CHECK(error_of("probe_selector: [a]") ==
        "prometheus_cr.probe_selector: must be a label selector (matchLabels/matchExpressions)");
  CHECK(error_of("scrape_interval: soon") == "prometheus_cr.scrape_interval: must be a duration such as 30s");
}

TEST_CASE("selected ServiceMonitors render as prometheus-operator jobs", "[allocation][discovery]") {
  PrometheusCrConfig config;
  config.enabled = true;
  config.scrape_interval = "15s";
  config.service_monitor_selector = model::LabelSelector{{{"team", "a"}}, {}};
  config.service_monitor_namespace_selector = model::LabelSelector{{{"env", "prod"}}, {}};
  PrometheusCrIndex index(config);
  CHECK(index.apply("ServiceMonitor", Change::added, monitor("web", "prod1", "a")));
  CHECK(index.apply("ServiceMonitor", Change::added, monitor("other", "prod1", "b")));
  CHECK(index.apply("ServiceMonitor", Change::added, monitor("web", "dev", "a")));
  CHECK(
      index.apply("Namespace", Change::added, object(R"({"metadata": {"name": "prod1", "labels": {"env": "prod"}}})")));
  CHECK(index.apply("Namespace", Change::added, object(R"({"metadata": {"name": "dev", "labels": {"env": "dev"}}})")));
  CHECK_FALSE(index.apply("Pod", Change::added, object(R"({"metadata": {"name": "x"}})")));
  std::vector<std::string> problems;
  auto jobs = index.jobs(problems);
  CHECK(problems.empty());
  CHECK(job_names(jobs) == std::vector<std::string>{"serviceMonitor/prod1/web/0", "serviceMonitor/prod1/web/1"});
  const auto& job = jobs.as_array()[0];
  CHECK(job.find("scrape_interval")->as_string() == "15s");
  const auto& sd = job.find("kubernetes_sd_configs")->as_array().at(0);
  CHECK(sd.find("role")->as_string() == "endpoints");
  CHECK(sd.find("namespaces")->find("names")->as_array().at(0).as_string() == "prod1");
  // The namespace loses its label: nothing is selected any more.
  index.apply("Namespace", Change::modified, object(R"({"metadata": {"name": "prod1"}})"));
  CHECK(index.jobs(problems).as_array().empty());
}

TEST_CASE("monitors that need Secrets are left out with a problem", "[allocation][discovery]") {
  PrometheusCrIndex index(PrometheusCrConfig{});
  index.apply("ServiceMonitor", Change::added, monitor("plain", "ns", "a"));
  index.apply("PodMonitor", Change::added, object(R"({"apiVersion": "monitoring.coreos.com/v1", "kind": "PodMonitor",
    "metadata": {"name": "auth", "namespace": "ns"},
    "spec": {"selector": {}, "podMetricsEndpoints": [{"port": "m",
      "basicAuth": {"username": {"name": "creds", "key": "user"}, "password": {"name": "creds", "key": "pass"}}}]}})"));
  std::vector<std::string> problems;
  auto jobs = index.jobs(problems);
  CHECK(job_names(jobs) == std::vector<std::string>{"serviceMonitor/ns/plain/0", "serviceMonitor/ns/plain/1"});
  REQUIRE(problems.size() >= 1);
  CHECK_THAT(problems[0], Catch::StartsWith("PodMonitor ns/auth: spec.podMetricsEndpoints[0].basicAuth"));
  CHECK(index.apply("PodMonitor", Change::deleted, object(R"({"metadata": {"name": "auth", "namespace": "ns"}})")));
  problems.clear();
  index.jobs(problems);
  CHECK(problems.empty());
}

TEST_CASE("PodMonitors and Probes render after ServiceMonitors", "[allocation][discovery]") {
  PrometheusCrConfig config;
  config.probe_selector = model::LabelSelector{{{"probe", "yes"}}, {}};
  PrometheusCrIndex index(config);
  index.apply("Probe", Change::added, object(R"({"apiVersion": "monitoring.coreos.com/v1", "kind": "Probe",
    "metadata": {"name": "site", "namespace": "ns", "labels": {"probe": "yes"}},
    "spec": {"prober": {"url": "blackbox:9115"}, "targets": {"staticConfig": {"static": ["https://example.com"]}}}})"));
  index.apply("Probe", Change::added, object(R"({"apiVersion": "monitoring.coreos.com/v1", "kind": "Probe",
    "metadata": {"name": "unselected", "namespace": "ns"},
    "spec": {"prober": {"url": "blackbox:9115"}, "targets": {"staticConfig": {"static": ["https://example.org"]}}}})"));
  index.apply("PodMonitor", Change::added, object(R"({"apiVersion": "monitoring.coreos.com/v1", "kind": "PodMonitor",
    "metadata": {"name": "pods", "namespace": "ns"}, "spec": {"selector": {}, "podMetricsEndpoints": [{"port": "m"}]}})"));
  index.apply("ServiceMonitor", Change::added, monitor("svc", "ns", "a"));
  std::vector<std::string> problems;
  auto jobs = index.jobs(problems);
  CHECK(problems.empty());
  CHECK(job_names(jobs) == std::vector<std::string>{"serviceMonitor/ns/svc/0", "serviceMonitor/ns/svc/1",
                                                    "podMonitor/ns/pods/0", "probe/ns/site"});
  const auto& probe = jobs.as_array()[3];
  const auto& targets = probe.find("static_configs")->as_array().at(0).find("targets")->as_array();
  CHECK(targets.at(0).as_string() == "https://example.com");
  CHECK(jobs.as_array()[2].find("kubernetes_sd_configs")->as_array().at(0).find("role")->as_string() == "pod");
}

TEST_CASE("monitor credentials come from indexed Secrets and follow rotation", "[allocation][discovery]") {
  PrometheusCrIndex index(PrometheusCrConfig{});
  CHECK(index.apply("ServiceMonitor", Change::added, auth_monitor()));
  std::vector<std::string> problems;
  CHECK(index.jobs(problems).as_array().empty());
  REQUIRE(problems.size() >= 1);
  CHECK(problems[0] == "ServiceMonitor ns/auth: spec.endpoints[0].basicAuth.username: Secret ns/creds not found");
  // A key missing from the Secret still leaves the monitor out, naming the field.
  CHECK(index.apply("Secret", Change::added, asset("Secret", "creds", R"({"user": "YWRtaW4=", "token": "dG9rM24="})")));
  problems.clear();
  CHECK(index.jobs(problems).as_array().empty());
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] ==
        "ServiceMonitor ns/auth: spec.endpoints[0].basicAuth.password: key \"pass\" not found in "
        "Secret ns/creds");
  CHECK(index.apply("Secret", Change::modified,
                    asset("Secret", "creds", R"({"user": "YWRtaW4=", "pass": "czNjcmV0", "token": "dG9rM24="})", "2")));
  problems.clear();
  auto jobs = index.jobs(problems);
  CHECK(problems.empty());
  REQUIRE(job_names(jobs) == std::vector<std::string>{"serviceMonitor/ns/auth/0", "serviceMonitor/ns/auth/1"});
  CHECK(str(jobs.as_array()[0], {"basic_auth", "username"}) == "admin");
  CHECK(str(jobs.as_array()[0], {"basic_auth", "password"}) == "s3cret");
  CHECK(str(jobs.as_array()[1], {"authorization", "type"}) == "Bearer");
  CHECK(str(jobs.as_array()[1], {"authorization", "credentials"}) == "tok3n");
  // Rotation re-renders; a metadata-only update and unrelated objects do not.
  CHECK(index.apply(
      "Secret", Change::modified,
      asset("Secret", "creds", R"({"user": "YWRtaW4=", "pass": "bjN3LXBhc3M=", "token": "dG9rM24="})", "3")));
  CHECK(str(index.jobs(problems).as_array()[0], {"basic_auth", "password"}) == "n3w-pass");
  CHECK_FALSE(index.apply(
      "Secret", Change::modified,
      asset("Secret", "creds", R"({"user": "YWRtaW4=", "pass": "bjN3LXBhc3M=", "token": "dG9rM24="})", "4")));
  auto elsewhere = object(R"({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "x", "namespace": "other"},
    "data": {"k": "dg=="}})");
  CHECK_FALSE(index.apply("Secret", Change::added, elsewhere));
  // Deleting the Secret takes the monitor out again.
  CHECK(index.apply("Secret", Change::deleted, asset("Secret", "creds", "{}")));
  problems.clear();
  CHECK(index.jobs(problems).as_array().empty());
  CHECK_FALSE(problems.empty());
}

TEST_CASE("TLS material from ConfigMaps and Secrets renders as inline PEM", "[allocation][discovery]") {
  PrometheusCrIndex index(PrometheusCrConfig{});
  index.apply("PodMonitor", Change::added, object(R"({"apiVersion": "monitoring.coreos.com/v1", "kind": "PodMonitor",
    "metadata": {"name": "tls", "namespace": "ns"},
    "spec": {"selector": {}, "podMetricsEndpoints": [{"port": "m", "scheme": "https", "tlsConfig": {
      "ca": {"configMap": {"name": "ca", "key": "ca.crt"}}, "cert": {"secret": {"name": "client", "key": "tls.crt"}},
      "keySecret": {"name": "client", "key": "tls.key"}, "serverName": "web.ns"}}]}})"));
  index.apply(
      "ConfigMap", Change::added,
      asset("ConfigMap", "ca", R"({"ca.crt": "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n"})"));
  index.apply("Secret", Change::added, asset("Secret", "client", R"({
    "tls.crt": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkNFUlQKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=",
    "tls.key": "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCkszWQotLS0tLUVORCBQUklWQVRFIEtFWS0tLS0tCg=="})"));
  std::vector<std::string> problems;
  auto jobs = index.jobs(problems);
  CHECK(problems.empty());
  REQUIRE(jobs.as_array().size() == 1);
  const auto& tls = *jobs.as_array()[0].find("tls_config");
  CHECK(str(tls, {"ca"}) == "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n");
  CHECK(str(tls, {"cert"}) == "-----BEGIN CERTIFICATE-----\nCERT\n-----END CERTIFICATE-----\n");
  CHECK(str(tls, {"key"}) == "-----BEGIN PRIVATE KEY-----\nK3Y\n-----END PRIVATE KEY-----\n");
  CHECK(str(tls, {"server_name"}) == "web.ns");
  CHECK_FALSE((tls.find("ca_file") || tls.find("cert_file") || tls.find("key_file")));

  // /scrape_configs shows the job but masks its secrets, as upstream does.
  const std::string body = allocation::scrape_configs_json(jobs);
  CHECK(body.find("K3Y") == std::string::npos);
  auto served = parse_json(body);
  CHECK(str(served, {"podMonitor/ns/tls/0", "tls_config", "key"}) == "<secret>");
  CHECK(str(served, {"podMonitor/ns/tls/0", "tls_config", "server_name"}) == "web.ns");
}

TEST_CASE("/scrape_configs masks credentials rendered from Secrets", "[allocation][discovery]") {
  PrometheusCrIndex index(PrometheusCrConfig{});
  index.apply("ServiceMonitor", Change::added, auth_monitor());
  index.apply("Secret", Change::added,
              asset("Secret", "creds", R"({"user": "YWRtaW4=", "pass": "czNjcmV0", "token": "dG9rM24="})"));
  std::vector<std::string> problems;
  const std::string body = allocation::scrape_configs_json(index.jobs(problems));
  CHECK(problems.empty());
  CHECK(body.find("s3cret") == std::string::npos);
  CHECK(body.find("tok3n") == std::string::npos);
  auto served = parse_json(body);
  CHECK(str(served, {"serviceMonitor/ns/auth/0", "basic_auth", "password"}) == "<secret>");
  CHECK(str(served, {"serviceMonitor/ns/auth/1", "authorization", "credentials"}) == "<secret>");
  CHECK(str(served, {"serviceMonitor/ns/auth/1", "authorization", "type"}) == "Bearer");
}
