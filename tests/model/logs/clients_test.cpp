// Logs instances' Loki clients: their own vs the GrafanaAgent's, TLS,
// OAuth2, backoff and external labels, and the rejection of a LogsInstance
// (or of the root) whose client references fail.
#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "model/yaml_emit.hpp"
#include "test_render.hpp"

using testutil::ConfigRender;
using testutil::kLogsAgent;
using testutil::logs_instance;
using testutil::render_logs;
using testutil::valid_inventory;
using testutil::yaml;

namespace {

const char* kClientCase = R"(
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: own, namespace: team}
spec:
  targetConfig: {syncPeriod: 30s}
  clients:
  - url: https://loki.team/push
    tenantId: team
    batchWait: 2s
    batchSize: 1048576
    timeout: 15s
    proxyUrl: http://proxy:3128
    externalLabels: {cluster: team-override, env: prod}
    tlsConfig:
      ca: {configMap: {name: loki-ca, key: ca.crt}}
      cert: {secret: {name: loki-tls, key: tls.crt}}
      keySecret: {name: loki-tls, key: tls.key}
      serverName: loki.team.svc
      insecureSkipVerify: true
    oauth2:
      clientId: {secret: {name: oauth, key: id}}
      clientSecret: {name: oauth, key: secret}
      tokenUrl: https://idp/token
      scopes: [logs.write]
      endpointParams: {audience: loki}
    backoffConfig: {minPeriod: 500ms, maxPeriod: 5m, maxRetries: 10}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: shared, namespace: other}
spec: {}
---
apiVersion: v1
kind: Secret
metadata: {name: loki-tls, namespace: team}
stringData: {tls.crt: CERT, tls.key: KEY}
---
apiVersion: v1
kind: Secret
metadata: {name: oauth, namespace: team}
stringData: {id: client-1, secret: s3cr3t}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: loki-ca, namespace: team}
data: {ca.crt: CA}
)";

}  // namespace

TEST_CASE("client with TLS OAuth2 and backoff - GrafanaAgent clients as fallback", "[logs]") {
  ConfigRender r = render_logs(valid_inventory(std::string(kLogsAgent) + kClientCase));
  CHECK(r.problems.empty());
  CHECK(r.root_errors.empty());
  // Instances are sorted by namespace: other/shared, then team/own.
  CHECK(logs_instance(r, 0) == yaml(R"(
name: other/shared
clients:
- url: https://loki.global/push
  basic_auth: {username: g-user, password: g-pass}
  external_labels: {cluster: monitoring/agent, region: eu})"));
  CHECK(logs_instance(r, 1) == yaml(R"(
name: team/own
target_config: {sync_period: 30s}
clients:
- url: https://loki.team/push
  tenant_id: team
  batchwait: 2s
  batchsize: 1048576
  timeout: 15s
  proxy_url: http://proxy:3128
  external_labels: {cluster: team-override, env: prod}
  tls_config:
    ca_file: /var/lib/grafana-agent/secrets/_configMaps_team_loki_ca_ca_crt
    cert_file: /var/lib/grafana-agent/secrets/_secrets_team_loki_tls_tls_crt
    key_file: /var/lib/grafana-agent/secrets/_secrets_team_loki_tls_tls_key
    server_name: loki.team.svc
    insecure_skip_verify: true
  oauth2:
    client_id: client-1
    client_secret_file: /var/lib/grafana-agent/secrets/_secrets_team_oauth_secret
    token_url: https://idp/token
    scopes: [logs.write]
    endpoint_params: {audience: loki}
  backoff_config: {min_period: 500ms, max_period: 5m, max_retries: 10})"));
  CHECK(r.used.count("/secrets/team/oauth/secret") == 1);
  CHECK(r.used.count("/configMaps/team/loki-ca/ca.crt") == 1);
  CHECK(r.used.count("/secrets/monitoring/global-auth/pass") == 1);
  testutil::check_golden("logs", "client_tls_oauth2_backoff.yaml", model::to_yaml(r.config));
}

TEST_CASE("golden: GrafanaAgent clients resolve in the agent's namespace", "[logs]") {
  // A LogsInstance without clients uses the GrafanaAgent's, whose references
  // resolve in the GrafanaAgent's namespace even when the instance's own
  // namespace has a Secret of the same name.
  std::string text = std::string(kLogsAgent) + R"(
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: fallback, namespace: other}
spec: {}
---
apiVersion: v1
kind: Secret
metadata: {name: global-auth, namespace: other}
stringData: {user: wrong-user, pass: wrong-pass}
)";
  text.replace(text.find("      externalLabels: {region: eu}"), 0,
               "      tlsConfig: {cert: {secret: {name: global-auth, key: user}}}\n");
  ConfigRender r = render_logs(valid_inventory(text));
  CHECK(r.problems.empty());
  CHECK(r.root_errors.empty());
  CHECK(logs_instance(r, 0) == yaml(R"(
name: other/fallback
clients:
- url: https://loki.global/push
  basic_auth: {username: g-user, password: g-pass}
  tls_config: {cert_file: /var/lib/grafana-agent/secrets/_secrets_monitoring_global_auth_user}
  external_labels: {cluster: monitoring/agent, region: eu})"));
  CHECK(r.used == std::map<std::string, std::string>{{"/secrets/monitoring/global-auth/pass", "g-pass"},
                                                     {"/secrets/monitoring/global-auth/user", "g-user"}});
  testutil::check_golden("logs", "agent_clients_fallback.yaml", model::to_yaml(r.config));
}

TEST_CASE("logsExternalLabelName renames or removes the cluster label", "[logs]") {
  std::string text = std::string(kLogsAgent) + kClientCase;
  std::string renamed = text, removed = text;
  renamed.replace(renamed.find("    clients:"), 0, "    logsExternalLabelName: k8s\n");
  removed.replace(removed.find("    clients:"), 0, "    logsExternalLabelName: ''\n");
  auto labels = [](const ConfigRender& r) {
    return *logs_instance(r, 0).find("clients")->as_array()[0].find("external_labels");
  };
  CHECK(labels(render_logs(valid_inventory(renamed))) == yaml("{k8s: monitoring/agent, region: eu}"));
  CHECK(labels(render_logs(valid_inventory(removed))) == yaml("{region: eu}"));
}

TEST_CASE("a LogsInstance whose client Secret is missing is rejected alone", "[logs]") {
  std::string text = std::string(kLogsAgent) + kClientCase + R"(
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: broken, namespace: team}
spec:
  clients:
  - url: https://loki.team/push
    basicAuth: {username: {name: oauth, key: id}, password: {name: missing, key: pass}}
)";
  model::Inventory inv = valid_inventory(text);
  ConfigRender r = render_logs(inv);
  CHECK(r.root_errors.empty());
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].str() ==
        "LogsInstance team/broken: spec.clients[0].basicAuth.password: Secret team/missing not found");
  const model::Value& configs = *r.config.find("logs")->find("configs");
  REQUIRE(configs.size() == 2);
  CHECK(*configs.as_array()[1].find("name") == model::Value("team/own"));
  // The root stays valid and renders its objects.
  model::AgentRender ar = testutil::render_only_agent(inv);
  CHECK_FALSE(ar.objects.empty());
  REQUIRE(ar.problems.size() == 1);
  CHECK(ar.problems[0].kind == "LogsInstance");
}

TEST_CASE("a missing Secret in the GrafanaAgent's clients invalidates the root", "[logs]") {
  std::string text = std::string(kLogsAgent) + kClientCase;
  const std::string from = "{name: global-auth, key: pass}";
  text.replace(text.find(from), from.size(), "{name: global-auth, key: nope}");
  model::Inventory inv = valid_inventory(text);
  ConfigRender r = render_logs(inv);
  REQUIRE(r.root_errors.size() == 1);
  CHECK(r.root_errors[0].path == "spec.logs.clients[0].basicAuth.password");
  model::AgentRender ar = testutil::render_only_agent(inv);
  CHECK(ar.objects.empty());
  REQUIRE(ar.problems.size() == 1);
  CHECK(ar.problems[0].str() ==
        "GrafanaAgent monitoring/agent: spec.logs.clients[0].basicAuth.password: "
        "key \"nope\" not found in Secret monitoring/global-auth");
}

TEST_CASE("compat mode ignores an OAuth2 clientId from a ConfigMap like upstream", "[logs]") {
  std::string text = std::string(kLogsAgent) + kClientCase + R"(
---
apiVersion: v1
kind: ConfigMap
metadata: {name: oauth-id, namespace: team}
data: {id: cm-client}
)";
  const std::string from = "clientId: {secret: {name: oauth, key: id}}";
  text.replace(text.find(from), from.size(), "clientId: {configMap: {name: oauth-id, key: id}}");
  model::Inventory inv = valid_inventory(text);
  auto oauth2 = [](const ConfigRender& r) {
    return *logs_instance(r, 1).find("clients")->as_array()[0].find("oauth2");
  };
  ConfigRender fixed = render_logs(inv);
  testutil::require_clean(fixed);
  CHECK(*oauth2(fixed).find("client_id") == model::Value("cm-client"));
  CHECK(fixed.used.count("/configMaps/team/oauth-id/id") == 1);
  ConfigRender compat = render_logs(inv, true);
  testutil::require_clean(compat);
  CHECK(oauth2(compat).find("client_id") == nullptr);
  CHECK(compat.used.count("/configMaps/team/oauth-id/id") == 0);
  // Not read at all: a missing ConfigMap does not reject the instance.
  std::string missing = text;
  const std::string cm = "name: oauth-id, key: id";
  missing.replace(missing.find(cm), cm.size(), "name: absent, key: id");
  ConfigRender m = render_logs(valid_inventory(missing), true);
  testutil::require_clean(m);
}
