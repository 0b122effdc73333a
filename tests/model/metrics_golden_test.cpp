// Own golden files for the metrics agent.yml (tests/golden/metrics/), for
// the features no upstream case covers: every remote_write auth kind with
// queue and metadata config, oauth2 and authorization on monitors,
// additionalScrapeConfigs with shards, limits and an ingress Probe.
// Regenerate with UPDATE_GOLDEN=1 and review the diff.
#include <catch2/catch.hpp>

#include <algorithm>

#include "golden_util.hpp"
#include "model/yaml_emit.hpp"
#include "test_render.hpp"

using testutil::metrics_agent_yaml;

namespace {

// The metrics agent.yml of the only GrafanaAgent; any Problem but the
// expected warnings fails.
std::string render_yaml(const std::string& manifests, bool compat = false, std::vector<std::string> warnings = {}) {
  testutil::ConfigRender r = testutil::render_metrics(testutil::valid_inventory(manifests), compat);
  testutil::require_warnings(r, std::move(warnings));
  return model::to_yaml(r.config);
}

// tests/golden/metrics/<name>.yaml, and <name>.compat.yaml with
// upstream_compat, which warns about each field it leaves out.
void check_goldens(const std::string& name, const std::string& manifests,
                   std::vector<std::string> compat_warnings = {}) {
  testutil::check_golden("metrics", name + ".yaml", render_yaml(manifests));
  testutil::check_golden("metrics", name + ".compat.yaml", render_yaml(manifests, true, std::move(compat_warnings)));
}

const std::string kAgent = metrics_agent_yaml("mon", "{instanceSelector: {}}");

const std::string kInstance = testutil::select_all_instance_yaml("name: primary, namespace: mon");

const std::string kCreds = R"(
---
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: app}
stringData: {user: u, pass: p, token: t, client: c, csecret: cs, ca: ca, cert: cert, key: key}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: oauth, namespace: app}
data: {client-id: cm-client}
)";

}  // namespace

TEST_CASE("golden: remote_write with every auth kind queue and metadata config", "[metrics]") {
  std::string in = R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: mon}
spec:
  metrics:
    instanceSelector: {}
    remoteWrite:
    - url: https://global.example/push
      sigv4: {region: eu-west-1, accessKey: {name: aws, key: id}, secretKey: {name: aws, key: secret}, profile: p, roleARN: 'arn:aws:iam::1:role/w'}
---
apiVersion: v1
kind: Secret
metadata: {name: aws, namespace: mon}
stringData: {id: AKIA, secret: s3cr3t}
---
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: mon}
stringData: {user: u, pass: p, client: c, csecret: cs, ca: ca, cert: cert, key: key}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: oauth, namespace: mon}
data: {client-id: cm-client}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: mon}
spec:
  walTruncateFrequency: 1m
  minWALTime: 5m
  maxWALTime: 4h
  remoteFlushDeadline: 1m
  writeStaleOnShutdown: true
  remoteWrite:
  - name: basic
    url: https://a.example/push
    remoteTimeout: 30s
    headers: {X-Scope-OrgID: team}
    proxyUrl: http://proxy.example:3128
    basicAuth: {username: {name: creds, key: user}, password: {name: creds, key: pass}}
    tlsConfig:
      ca: {secret: {name: creds, key: ca}}
      cert: {secret: {name: creds, key: cert}}
      keySecret: {name: creds, key: key}
      caFile: /etc/ca/override.crt
      serverName: a.example
      insecureSkipVerify: true
    queueConfig: {capacity: 2500, minShards: 1, maxShards: 50, maxSamplesPerSend: 500, batchSendDeadline: 5s,
                  minBackoff: 30ms, maxBackoff: 5s, maxRetries: 3, retryOnRateLimit: true}
    metadataConfig: {send: true, sendInterval: 1m}
    writeRelabelConfigs:
    - {sourceLabels: [__name__], regex: 'up|scrape_.*', action: keep}
    - {targetLabel: tmp, replacement: ''}
  - url: https://b.example/push
    oauth2:
      clientId: {secret: {name: creds, key: client}}
      clientSecret: {name: creds, key: csecret}
      tokenUrl: https://auth.example/token
      scopes: [write]
      endpointParams: {audience: metrics}
  - url: https://c.example/push
    oauth2:
      clientId: {configMap: {name: oauth, key: client-id}}
      clientSecret: {name: creds, key: csecret}
      tokenUrl: https://auth.example/token
    metadataConfig: {sendInterval: 30s}
  - url: https://d.example/push
    bearerToken: literal-token
  - url: https://e.example/push
    bearerTokenFile: /var/run/secrets/token
)";
  // Upstream: no retry_on_http_429, no ConfigMap client_id, `replacement: ''` dropped.
  check_goldens("remote_write_auth", in);
}

TEST_CASE("golden: oauth2 on monitors", "[metrics]") {
  std::string in = kAgent + kInstance + kCreds + R"(
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: oauth-sm, namespace: app}
spec:
  selector: {matchLabels: {app: api}}
  endpoints:
  - port: web
    scheme: https
    oauth2:
      clientId: {configMap: {name: oauth, key: client-id}}
      clientSecret: {name: creds, key: csecret}
      tokenUrl: https://auth.example/token
      scopes: [read, write]
      endpointParams: {audience: metrics}
    tlsConfig: {ca: {secret: {name: creds, key: ca}}, serverName: api.app.svc}
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: oauth-pm, namespace: app}
spec:
  selector: {matchLabels: {app: worker}}
  podMetricsEndpoints:
  - port: metrics
    oauth2:
      clientId: {secret: {name: creds, key: client}}
      clientSecret: {name: creds, key: csecret}
      tokenUrl: https://auth.example/token
)";
  testutil::check_golden("metrics", "oauth2_monitor.yaml", render_yaml(in));
}

TEST_CASE("golden: authorization on monitors", "[metrics]") {
  std::string in = kAgent + kInstance + kCreds + R"(
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: authz, namespace: app}
spec:
  selector: {}
  endpoints:
  - port: web
    authorization: {credentials: {name: creds, key: token}}
  - port: admin
    authorization: {type: Token, credentials: {name: creds, key: token}}
    followRedirects: false
    enableHttp2: false
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: authz, namespace: app}
spec:
  selector: {}
  podMetricsEndpoints:
  - targetPort: 9000
    authorization: {type: Bearer, credentials: {name: creds, key: token}}
)";
  testutil::check_golden("metrics", "authorization_monitor.yaml", render_yaml(in));
}

TEST_CASE("golden: additionalScrapeConfigs with 3 shards", "[metrics]") {
  std::string in = metrics_agent_yaml("mon", "{instanceSelector: {}, shards: 3}") + R"(
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: mon}
spec:
  additionalScrapeConfigs: {name: extra-jobs, key: jobs.yaml}
---
apiVersion: v1
kind: Secret
metadata: {name: extra-jobs, namespace: mon}
stringData:
  jobs.yaml: |
    - job_name: static
      static_configs: [{targets: ['a:9100', 'b:9100']}]
    - job_name: relabelled
      static_configs: [{targets: ['c:9100']}]
      relabel_configs: [{source_labels: [__address__], target_label: host}]
    - job_name: kubelet
      kubernetes_sd_configs: [{role: node}]
      relabel_configs:
      - {source_labels: [__address__], action: hashmod, modulus: $(SHARDS), target_label: __tmp_hash}
      - {source_labels: [__tmp_hash], action: keep, regex: $(SHARD)}
)";
  // Upstream leaves additional jobs untouched.
  check_goldens("additional_shards", in);
}

TEST_CASE("golden: scrape limits", "[metrics]") {
  std::string in =
      metrics_agent_yaml("mon", "{instanceSelector: {}, enforcedSampleLimit: 5000, enforcedTargetLimit: 0}") +
      kInstance + R"(
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: lower-user, namespace: app}
spec:
  selector: {}
  sampleLimit: 1000
  targetLimit: 20
  labelLimit: 40
  labelNameLengthLimit: 100
  labelValueLengthLimit: 200
  endpoints: [{port: web}]
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: higher-user, namespace: app}
spec:
  selector: {}
  sampleLimit: 90000
  podMetricsEndpoints: [{port: web}]
---
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: no-user, namespace: app}
spec:
  prober: {url: 'blackbox:9115'}
  targets: {staticConfig: {static: [example.com]}}
)";
  // Upstream: enforced wins whenever set (also an enforced 0), no label
  // limits, and no limits on Probes.
  check_goldens("limits", in,
                {testutil::compat_ignored("ServiceMonitor app/lower-user", "spec.labelLimit"),
                 testutil::compat_ignored("ServiceMonitor app/lower-user", "spec.labelNameLengthLimit"),
                 testutil::compat_ignored("ServiceMonitor app/lower-user", "spec.labelValueLengthLimit")});
}

TEST_CASE("golden: ingress Probe", "[metrics]") {
  std::string in = metrics_agent_yaml("mon", "{instanceSelector: {}, shards: 2, enforcedNamespaceLabel: tenant}") +
                   kInstance + kCreds + R"(
---
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: sites, namespace: app}
spec:
  jobName: ingress-probe
  module: http_2xx
  interval: 60s
  scrapeTimeout: 30s
  prober: {url: 'blackbox:9115', scheme: https, path: /probe/v2, proxyUrl: 'http://proxy:3128'}
  targets:
    ingress:
      selector:
        matchLabels: {probe.example.com/enabled: 'true', tier: web.v1}
        matchExpressions:
        - {key: env, operator: NotIn, values: [dev, test+1]}
        - {key: public, operator: Exists}
      namespaceSelector: {matchNames: [app, web]}
      relabelingConfigs:
      - {sourceLabels: [__meta_kubernetes_ingress_name], targetLabel: ing}
  tlsConfig: {ca: {secret: {name: creds, key: ca}}, insecureSkipVerify: true}
  basicAuth: {username: {name: creds, key: user}, password: {name: creds, key: pass}}
  metricRelabelings:
  - {sourceLabels: [__name__], regex: 'probe_http_.*', action: keep}
  - {targetLabel: tenant, replacement: spoofed}
  sampleLimit: 100
)";
  // Upstream: single-source selector rules with raw regex values, no
  // sharding, no proxy_url, metric relabelings or limits.
  check_goldens("ingress_probe", in,
                {testutil::compat_ignored("Probe app/sites", "spec.sampleLimit"),
                 testutil::compat_ignored("Probe app/sites", "spec.prober.proxyUrl"),
                 testutil::compat_ignored("Probe app/sites", "spec.metricRelabelings")});
}

TEST_CASE("the promtool edge-case input renders cleanly", "[metrics]") {
  // tests/golden/promtool/edge-cases.yaml must not be rejected, or the
  // promtool test would silently check less than it claims.
  auto inv =
      testutil::valid_inventory(testutil::read_text(testutil::source_path("tests/golden/promtool/edge-cases.yaml")));
  auto r = testutil::render_metrics(inv);
  testutil::require_clean(r);
  const auto& job = testutil::only_metrics_job(r.config);
  std::vector<std::string> targets;
  for (const auto& rule : job.find("relabel_configs")->as_array())
    if (const auto* t = rule.find("target_label")) targets.push_back(t->as_string());
  for (const char* want : {"$1", "label_${1}_x", "${n}suffix", "joined"})
    CHECK(std::find(targets.begin(), targets.end(), want) != targets.end());
  CHECK(job.find("bearer_token") == nullptr);
  const auto& rw = testutil::at(r.config, "metrics.configs[0].remote_write");
  CHECK(testutil::at(rw, "[0].basic_auth") == testutil::yaml("{username: u}"));
  CHECK(testutil::at(rw, "[1].write_relabel_configs[0]") ==
        testutil::yaml("{source_labels: [__name__], action: keep}"));
}
