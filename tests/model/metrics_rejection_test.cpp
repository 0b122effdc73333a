// Per-member rejection in the metrics config: a monitor, an instance's
// remote_write or its additionalScrapeConfigs that cannot be rendered is
// left out with a Problem naming it, and everything else still renders;
// the GrafanaAgent's own references fail the root.
#include <catch2/catch.hpp>

#include <algorithm>

#include "golden_util.hpp"
#include "test_render.hpp"

using model::Value;
using testutil::ConfigRender;
using testutil::problem_texts;

namespace {

// The metrics block of the only GrafanaAgent (rendered members only: what
// rendering reports is for the test to check).
ConfigRender render_rejections(const std::string& manifests, model::ConfigFlavor flavor = model::ConfigFlavor::full) {
  return testutil::render_metrics_flavor(testutil::valid_inventory(manifests), flavor);
}

// A GrafanaAgent mon/agent with `metrics: <agent_metrics>`, a MetricsInstance
// mon/primary selecting the ServiceMonitors of its namespace, and `objects`.
std::string agent_with_instance(const std::string& agent_metrics, const std::string& objects) {
  return testutil::metrics_agent_yaml("mon", agent_metrics) + R"(---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: mon}
spec: {serviceMonitorSelector: {}}
---
)" + objects;
}

std::vector<std::string> instance_names(const Value& block) {
  std::vector<std::string> out;
  if (const Value* configs = block.find("configs"))
    for (const auto& c : configs->as_array()) out.push_back(c.find("name")->as_string());
  return out;
}

std::vector<std::string> job_names(const Value& block, std::size_t instance = 0) {
  std::vector<std::string> out;
  const Value* jobs = block.find("configs")->as_array().at(instance).find("scrape_configs");
  if (jobs)
    for (const auto& j : jobs->as_array()) out.push_back(j.find("job_name")->as_string());
  return out;
}

const std::string kBase = testutil::metrics_agent_yaml("mon", "{instanceSelector: {}}") +
                          testutil::select_all_instance_yaml("name: primary, namespace: mon") +
                          R"(  additionalScrapeConfigs: {name: extra, key: jobs.yaml}
---
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: app}
stringData: {ca: CA, user: admin}
---
)";

const std::string kMonitors = R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: api, namespace: app}
spec:
  selector: {}
  endpoints:
  - port: https
    tlsConfig: {ca: {secret: {name: creds, key: ca}}}
    bearerTokenSecret: {name: api-token, key: token}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: app}
spec: {selector: {}, endpoints: [{port: metrics}, {port: admin, interval: 10s, scrapeTimeout: 5s}]}
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: pm, namespace: app}
spec:
  selector: {}
  podMetricsEndpoints: [{port: m, basicAuth: {username: {name: creds, key: user}, password: {name: creds, key: pass}}}]
---
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: slow, namespace: app}
spec: {interval: 10s, scrapeTimeout: 30s, prober: {url: 'bb:9115'}, targets: {staticConfig: {static: [a]}}}
---
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: ok, namespace: app}
spec: {prober: {url: 'bb:9115'}, targets: {staticConfig: {static: [a]}}}
)";

std::string extra_jobs(const std::string& text) {
  return R"(
---
apiVersion: v1
kind: Secret
metadata: {name: extra, namespace: mon}
stringData:
  jobs.yaml: |
)" + text;
}

}  // namespace

TEST_CASE("a monitor with a missing Secret is rejected alone", "[metrics]") {
  ConfigRender out = render_rejections(kBase + kMonitors + extra_jobs("    - job_name: extra\n"));
  CHECK(problem_texts(out.problems) ==
        std::vector<std::string>{
            "ServiceMonitor app/api: spec.endpoints[0].bearerTokenSecret: Secret app/api-token not found",
            "PodMonitor app/pm: spec.podMetricsEndpoints[0].basicAuth.password: key \"pass\" not found "
            "in Secret app/creds",
            "Probe app/slow: spec.scrapeTimeout: scrapeTimeout 30s is greater than the scrape interval 10s"});
  CHECK(job_names(out.config) ==
        std::vector<std::string>{"serviceMonitor/app/web/0", "serviceMonitor/app/web/1", "probe/app/ok", "extra"});
  CHECK(out.root_errors.empty());
  // Nothing a rejected member resolved reaches the assets Secret.
  CHECK(out.used.count("/secrets/app/creds/ca") == 0);
  CHECK(out.used.count("/secrets/app/creds/user") == 0);
  CHECK(out.used.count("/secrets/mon/extra/jobs.yaml") == 1);
}

TEST_CASE("render_agent reports rejected monitors and still writes the config", "[metrics]") {
  auto r = testutil::render_only_agent(testutil::valid_inventory(kBase + kMonitors + extra_jobs("    []\n")));
  REQUIRE(r.problems.size() == 3);  // sorted by namespace, kind, name
  CHECK(r.problems[2].str() ==
        "ServiceMonitor app/api: spec.endpoints[0].bearerTokenSecret: Secret app/api-token not found");
  REQUIRE(r.configs.count("agent-config") == 1);
  CHECK(r.assets.count("/secrets/app/creds/ca") == 0);
}

TEST_CASE("unusable additionalScrapeConfigs are left out of their instance", "[metrics]") {
  const std::string monitor = R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: app}
spec: {selector: {}, endpoints: [{port: metrics}]}
)";
  auto problems_for = [&](const std::string& secret) {
    ConfigRender out = render_rejections(kBase + monitor + secret);
    CHECK(job_names(out.config) == std::vector<std::string>{"serviceMonitor/app/web/0"});
    CHECK(out.used.count("/secrets/mon/extra/jobs.yaml") == 0);
    REQUIRE(out.problems.size() == 1);
    return out.problems[0].str();
  };
  const std::string prefix = "MetricsInstance mon/primary: spec.additionalScrapeConfigs: ";
  CHECK(problems_for(extra_jobs("    - job_name: [unclosed\n")).rfind(prefix + "invalid YAML (line ", 0) == 0);
  CHECK(problems_for(extra_jobs("    job_name: not-a-list\n")) ==
        prefix + "must be a YAML list of scrape configs, got object");
  CHECK(problems_for(extra_jobs("    - just-a-string\n")) == prefix + "item 0 is not a scrape config object");
  CHECK(problems_for(extra_jobs("    - {job_name: x, relabel_configs: {a: b}}\n")) ==
        prefix + "item 0: relabel_configs must be a list");
  CHECK(problems_for("") == prefix + "Secret mon/extra not found");
}

TEST_CASE("an instance whose remote_write fails is rejected - the agent's own fails the root", "[metrics]") {
  ConfigRender out = render_rejections(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: mon}
spec:
  metrics:
    instanceSelector: {}
    remoteWrite: [{url: 'https://g/push', basicAuth: {username: {name: gone, key: u}, password: {name: gone, key: p}}}]
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: a-bad, namespace: mon}
spec:
  remoteWrite: [{url: 'https://x/push', sigv4: {accessKey: {name: aws, key: id}}}]
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: b-good, namespace: mon}
spec:
  remoteWrite: [{url: 'https://y/push'}]
)");
  CHECK(problem_texts(out.problems) ==
        std::vector<std::string>{
            "MetricsInstance mon/a-bad: spec.remoteWrite[0].sigv4.accessKey: Secret mon/aws not found"});
  CHECK(instance_names(out.config) == std::vector<std::string>{"mon/b-good"});
  REQUIRE(out.root_errors.size() == 2);
  CHECK(out.root_errors[0].path == "spec.metrics.remoteWrite[0].basicAuth.username");
  CHECK(out.root_errors[1].path == "spec.metrics.remoteWrite[0].basicAuth.password");
}

TEST_CASE("arbitraryFSAccessThroughSMs.deny rejects ServiceMonitors that read files", "[metrics]") {
  auto manifests = [](bool deny) {
    return agent_with_instance(
        std::string("{instanceSelector: {}, arbitraryFSAccessThroughSMs: {deny: ") + (deny ? "true" : "false") + "}}",
        R"(apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: kubelet, namespace: mon}
spec:
  selector: {}
  endpoints:
  - {port: https, bearerTokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token}
  - {port: cadvisor, tlsConfig: {caFile: /etc/ca.crt, insecureSkipVerify: true}}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: plain, namespace: mon}
spec: {selector: {}, endpoints: [{port: web}]}
)");
  };
  ConfigRender denied = render_rejections(manifests(true));
  const std::string why =
      "reading files is denied by GrafanaAgent mon/agent (spec.metrics.arbitraryFSAccessThroughSMs.deny)";
  CHECK(problem_texts(denied.problems) ==
        std::vector<std::string>{"ServiceMonitor mon/kubelet: spec.endpoints[0].bearerTokenFile: " + why,
                                 "ServiceMonitor mon/kubelet: spec.endpoints[1].tlsConfig.caFile: " + why});
  CHECK(job_names(denied.config) == std::vector<std::string>{"serviceMonitor/mon/plain/0"});

  ConfigRender allowed = render_rejections(manifests(false));
  CHECK(allowed.problems.empty());
  const Value& job = allowed.config.find("configs")->as_array()[0].find("scrape_configs")->as_array()[0];
  CHECK(*job.find("bearer_token_file") == Value("/var/run/secrets/kubernetes.io/serviceaccount/token"));
}

TEST_CASE("scrape timeouts are checked against the effective interval", "[metrics]") {
  auto problems = [](const std::string& agent_metrics, const std::string& endpoint) {
    const std::string monitor = R"(apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: sm, namespace: mon}
spec: {selector: {}, endpoints: [)" +
                                endpoint + "]}\n";
    return problem_texts(render_rejections(agent_with_instance(agent_metrics, monitor)).problems);
  };
  const std::string sm = "ServiceMonitor mon/sm: spec.endpoints[0].";
  // No interval: the agent's scrapeInterval, else Prometheus' default 1m.
  CHECK(problems("{instanceSelector: {}}", "{port: a, scrapeTimeout: 2m}") ==
        std::vector<std::string>{sm + "scrapeTimeout: scrapeTimeout 2m is greater than the scrape interval 1m"});
  CHECK(problems("{instanceSelector: {}, scrapeInterval: 5m}", "{port: a, scrapeTimeout: 2m}").empty());
  CHECK(problems("{instanceSelector: {}}", "{port: a, interval: 1m30s, scrapeTimeout: 90s}").empty());
  CHECK(problems("{instanceSelector: {}}", "{port: a, interval: 1m, scrapeTimeout: 61s}").size() == 1);
  CHECK(problems("{instanceSelector: {}}", "{port: a, interval: 10 seconds}") ==
        std::vector<std::string>{sm + "interval: invalid duration \"10 seconds\""});
}

TEST_CASE("target labels that cannot be label names reject the monitor", "[metrics]") {
  ConfigRender out =
      render_rejections(agent_with_instance("{instanceSelector: {}}", R"(apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: sm, namespace: mon}
spec: {selector: {}, targetLabels: [team, 9lives], endpoints: [{port: a}, {port: b}]}
)"));
  CHECK(problem_texts(out.problems) ==
        std::vector<std::string>{
            "ServiceMonitor mon/sm: spec.targetLabels[1]: \"9lives\" cannot be used as a label name"});
  CHECK(out.config.find("configs")->as_array()[0].find("scrape_configs") == nullptr);
}

TEST_CASE("the integrations flavor drops monitors and the replica label keeps additional jobs", "[metrics]") {
  ConfigRender full = render_rejections(kBase + kMonitors + extra_jobs("    - job_name: extra\n"));
  ConfigRender integ =
      render_rejections(kBase + kMonitors + extra_jobs("    - job_name: extra\n"), model::ConfigFlavor::integrations);
  CHECK(job_names(integ.config) == std::vector<std::string>{"extra"});
  CHECK(integ.problems.empty());  // monitors are not rendered, so not rejected either
  CHECK(*integ.config.find("global")->find("external_labels") == Value::obj({{"cluster", "mon/agent"}}));
  CHECK(full.config.find("global")->find("external_labels")->find("__replica__") != nullptr);
}

TEST_CASE("missing optional references leave their fields out", "[metrics]") {
  std::string text = testutil::metrics_agent_yaml("mon", "{instanceSelector: {}}") + R"(---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: mon}
spec:
  serviceMonitorNamespaceSelector: {}
  serviceMonitorSelector: {}
  remoteWrite:
  - url: https://rw.example/push
    basicAuth:
      username: {name: rw, key: user}
      password: {name: rw, key: nope, optional: true}
    tlsConfig:
      ca: {configMap: {name: gone, key: ca.crt, optional: true}}
      cert: {secret: {name: gone, key: tls.crt, optional: true}}
      keySecret: {name: rw, key: nope, optional: true}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: secondary, namespace: mon}
spec:
  remoteWrite:
  - url: https://rw2.example/push
    oauth2:
      clientId: {secret: {name: gone, key: id, optional: true}}
      clientSecret: {name: gone, key: secret, optional: true}
      tokenUrl: https://idp/token
---
apiVersion: v1
kind: Secret
metadata: {name: rw, namespace: mon}
stringData: {user: u}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: api, namespace: app}
spec:
  selector: {}
  endpoints:
  - port: web
    bearerTokenSecret: {name: gone, key: token, optional: true}
  - port: web
    basicAuth:
      username: {name: gone, key: u, optional: true}
      password: {name: gone, key: p, optional: true}
)";
  ConfigRender r = testutil::render_metrics(testutil::valid_inventory(text));
  CHECK(r.root_errors.empty());
  // Prometheus rejects oauth2 without client_id or client_secret(_file), so
  // an instance whose optional OAuth2 references are missing is rejected.
  CHECK(problem_texts(r.problems) ==
        std::vector<std::string>{
            "MetricsInstance mon/secondary: spec.remoteWrite[0].oauth2.clientId: resolves to an empty value (a "
            "missing optional reference?), but oauth2 requires client_id",
            "MetricsInstance mon/secondary: spec.remoteWrite[0].oauth2.clientSecret: resolves to an empty value (a "
            "missing optional reference?), but oauth2 requires client_secret"});
  CHECK(instance_names(r.config.find("metrics") ? *r.config.find("metrics") : r.config) ==
        std::vector<std::string>{"mon/primary"});
  const Value& rw = testutil::at(r.config, "metrics.configs[0].remote_write");
  REQUIRE(rw.size() == 1);
  CHECK(rw.as_array().at(0) ==
        testutil::yaml("{url: 'https://rw.example/push', basic_auth: {username: u}, tls_config: {}}"));
  const Value& jobs = testutil::metrics_jobs(r.config);
  REQUIRE(jobs.size() == 2);
  for (const auto& job : jobs.as_array()) {
    CHECK(job.find("bearer_token") == nullptr);
    CHECK(job.find("basic_auth") == nullptr);
  }
}
