#include <catch2/catch.hpp>

#include "actors/core/subscriptions.hpp"
#include "actors_fixtures.hpp"

using namespace actors::core;

namespace {

const char* kReferences = R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: ga, namespace: mon}
spec:
  metrics:
    instanceSelector: {matchLabels: {agent: ga}}
    remoteWrite: [{url: "https://rw", basicAuth: {username: {name: rw-user, key: u}, password: {name: rw-pass, key: p}}}]
  logs:
    instanceSelector: {matchLabels: {agent: ga}}
  integrations:
    selector: {matchLabels: {agent: ga}}
    namespaceSelector: {}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: mi, namespace: mon, labels: {agent: ga}}
spec:
  additionalScrapeConfigs: {name: extra, key: scrape.yml}
  serviceMonitorSelector: {matchLabels: {team: a}}
  probeSelector: {matchExpressions: [{key: kind, operator: Exists}]}
  probeNamespaceSelector: {matchLabels: {probes: "on"}}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: sm, namespace: mon, labels: {team: a}}
spec:
  selector: {}
  endpoints: [{port: m, tlsConfig: {ca: {configMap: {name: ca-bundle, key: ca.crt}}}}]
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: li, namespace: mon, labels: {agent: ga}}
spec:
  clients: [{url: "https://loki", basicAuth: {password: {name: loki-pass, key: p}}}]
  podLogsSelector: {matchLabels: {x: y}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: node, namespace: infra, labels: {agent: ga}}
spec:
  name: node_exporter
  config: {}
  secrets: [{name: int-secret, key: k}]
  configMaps: [{name: int-cm, key: k}]
)";

}  // namespace

TEST_CASE("subscriptions cover every selector and reference of a hierarchy", "[actors][routing]") {
  model::Inventory inv;
  for (const auto& d : actors_test::docs(kReferences)) inv.add(d);
  REQUIRE(inv.problems().empty());
  Subscriptions s = subscriptions_for(model::build_hierarchy(inv, inv.agents.at({"mon", "ga"}).obj));
  std::vector<std::string> selectors;
  for (const auto& sel : s.selectors) selectors.push_back(sel.canonical());
  CHECK(selectors == std::vector<std::string>{
                         "Integration|agent=ga,|{}|mon",
                         "LogsInstance|agent=ga,|nil|mon",
                         "MetricsInstance|agent=ga,|nil|mon",
                         "PodLogs|x=y,|nil|mon",
                         "Probe|;kind Exists ()|{probes=on,}|mon",
                         "ServiceMonitor|team=a,|nil|mon",
                     });  // the MetricsInstance's nil podMonitorSelector selects nothing: no subscription
  CHECK(s.secrets ==
        std::set<model::Key>{
            {"mon", "rw-user"}, {"mon", "rw-pass"}, {"mon", "extra"}, {"mon", "loki-pass"}, {"infra", "int-secret"}});
  CHECK(s.config_maps == std::set<model::Key>{{"mon", "ca-bundle"}, {"infra", "int-cm"}});
  CHECK(s.selectors[4].uses_namespace_labels());
  CHECK_FALSE(s.selectors[0].uses_namespace_labels());
  CHECK(s.selectors[5].selects_namespace("mon", {}));
  CHECK_FALSE(s.selectors[5].selects_namespace("other", {}));

  Subscriptions again = subscriptions_for(model::build_hierarchy(inv, inv.agents.at({"mon", "ga"}).obj));
  CHECK(again.same_as(s));
  again.secrets.erase({"mon", "extra"});
  CHECK_FALSE(again.same_as(s));
}

TEST_CASE("subscriptions cover MetricsIntegrations and IntegrationMonitors with their references",
          "[actors][routing][integrations]") {
  model::Inventory inv;
  for (const auto& d : actors_test::docs(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: ga, namespace: mon}
spec:
  metrics: {instanceSelector: {}}
  metricsIntegrations: {selector: {matchLabels: {agent: ga}}, namespaceSelector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: mi, namespace: mon}
spec: {integrationMonitorSelector: {matchLabels: {i: mi}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: db, namespace: shop, labels: {agent: ga}}
spec: {name: mysqld_exporter, secrets: [{name: dsn, key: k}], configMaps: [{name: cfg, key: k}]}
)"))
    inv.add(d);
  REQUIRE(inv.problems().empty());
  Subscriptions s = subscriptions_for(model::build_hierarchy(inv, inv.agents.at({"mon", "ga"}).obj));
  std::vector<std::string> selectors;
  for (const auto& sel : s.selectors) selectors.push_back(sel.canonical());
  CHECK(selectors == std::vector<std::string>{"IntegrationMonitor|i=mi,|nil|mon", "MetricsInstance||nil|mon",
                                              "MetricsIntegration|agent=ga,|{}|mon"});
  CHECK(s.secrets == std::set<model::Key>{{"shop", "dsn"}});
  CHECK(s.config_maps == std::set<model::Key>{{"shop", "cfg"}});
}

// Every Secret a monitor's render reads must be subscribed, or the root
// never holds it and the member fails with a missing Secret in the
// controller only: OAuth2's TLS files and the proxy connect headers of
// endpoints, OAuth2 and a Probe's prober were once missed.
TEST_CASE("subscriptions cover OAuth2 TLS and proxy connect header Secrets of monitors", "[actors][routing]") {
  model::Inventory inv;
  for (const auto& d : actors_test::docs(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: ga, namespace: mon}
spec: {metrics: {instanceSelector: {}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: mi, namespace: mon}
spec: {serviceMonitorSelector: {}, probeSelector: {}, serviceMonitorNamespaceSelector: {}, probeNamespaceSelector: {}}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: sm, namespace: app}
spec:
  selector: {}
  endpoints:
  - port: m
    proxyUrl: "http://proxy:3128"
    proxyConnectHeader: {X-Auth: [{name: ep-proxy, key: k}]}
    oauth2:
      clientId: {secret: {name: oauth-id, key: id}}
      clientSecret: {name: oauth-secret, key: s}
      tokenUrl: "https://token"
      tlsConfig: {ca: {configMap: {name: oauth-ca, key: ca}}, keySecret: {name: oauth-key, key: k}}
      proxyUrl: "http://proxy:3128"
      proxyConnectHeader: {X-Auth: [{name: oauth-proxy, key: k}]}
---
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: p, namespace: app}
spec:
  prober: {url: "blackbox:9115", proxyUrl: "http://proxy:3128", proxyConnectHeader: {X-A: [{name: prober-proxy, key: k}]}}
  targets: {staticConfig: {static: ["https://example.com"]}}
)"))
    inv.add(d);
  REQUIRE(inv.problems().empty());
  Subscriptions s = subscriptions_for(model::build_hierarchy(inv, inv.agents.at({"mon", "ga"}).obj));
  CHECK(s.secrets == std::set<model::Key>{{"app", "ep-proxy"},
                                          {"app", "oauth-id"},
                                          {"app", "oauth-key"},
                                          {"app", "oauth-proxy"},
                                          {"app", "oauth-secret"},
                                          {"app", "prober-proxy"}});
  CHECK(s.config_maps == std::set<model::Key>{{"app", "oauth-ca"}});
}
