// Scrape configs of logs instances beyond the PodLogs rules: the user's
// additionalScrapeConfigs (appended, or left out with a Problem) and the
// golden of a PodLogs using every stage type.
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

TEST_CASE("additionalScrapeConfigs are appended after PodLogs", "[logs]") {
  std::string text = std::string(kLogsAgent) + R"(
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: main, namespace: monitoring}
spec:
  podLogsSelector: {}
  additionalScrapeConfigs: {name: extra, key: jobs.yaml}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: PodLogs
metadata: {name: app, namespace: monitoring}
spec: {selector: {matchLabels: {app: x}}, pipelineStages: [{cri: {}}]}
---
apiVersion: v1
kind: Secret
metadata: {name: extra, namespace: monitoring}
stringData:
  jobs.yaml: |
    - job_name: journal
      journal: {path: /var/log/journal, labels: {job: systemd}}
      relabel_configs: [{source_labels: [__journal__systemd_unit], target_label: unit}]
)";
  ConfigRender r = render_logs(valid_inventory(text));
  CHECK(r.problems.empty());
  const model::Value& scs = *logs_instance(r, 0).find("scrape_configs");
  REQUIRE(scs.size() == 2);
  CHECK(*scs.as_array()[0].find("job_name") == model::Value("podLogs/monitoring/app"));
  CHECK(scs.as_array()[1] == yaml(R"({job_name: journal, journal: {path: /var/log/journal, labels: {job: systemd}},
      relabel_configs: [{source_labels: [__journal__systemd_unit], target_label: unit}]})"));
  CHECK(r.used.count("/secrets/monitoring/extra/jobs.yaml") == 1);
  testutil::check_golden("logs", "additional_scrape_configs.yaml", model::to_yaml(r.config));
}

TEST_CASE("unreadable additionalScrapeConfigs are left out with a Problem", "[logs]") {
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"jobs.yaml: '- job_name: [unclosed'", "invalid YAML"},
      {"jobs.yaml: 'job_name: not-a-list'", "must be a YAML list of scrape configs, got object"},
      {"jobs.yaml: '- just-a-string'", "item 0 is not a scrape config object"},
      {"other: x", "key \"jobs.yaml\" not found in Secret monitoring/extra"},
  };
  for (const auto& [data, message] : rows) {
    std::string text = std::string(kLogsAgent) + R"(
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: main, namespace: monitoring}
spec: {additionalScrapeConfigs: {name: extra, key: jobs.yaml}}
---
apiVersion: v1
kind: Secret
metadata: {name: extra, namespace: monitoring}
stringData: {)" + data +
                       "}\n";
    INFO(data);
    ConfigRender r = render_logs(valid_inventory(text));
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].kind == "LogsInstance");
    CHECK(r.problems[0].path == "spec.additionalScrapeConfigs");
    CHECK_THAT(r.problems[0].message, Catch::Contains(message));
    CHECK(logs_instance(r, 0).find("scrape_configs") == nullptr);
    CHECK(r.used.count("/secrets/monitoring/extra/jobs.yaml") == 0);
  }
}

TEST_CASE("golden: every stage type including nested match stages", "[logs]") {
  std::string text = std::string(kLogsAgent) + R"(
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: main, namespace: monitoring}
spec: {podLogsSelector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: PodLogs
metadata: {name: everything, namespace: monitoring}
spec:
  selector: {matchLabels: {app: web}}
  pipelineStages:
  - cri: {}
  - docker: {}
  - drop: {source: level, value: trace, dropCounterReason: too_verbose}
  - json: {expressions: {level: lvl, msg: ''}, source: log}
  - labelAllow: [level, app]
  - labelDrop: [filename]
  - labels: {level: ''}
  - limit: {rate: 100, burst: 200, drop: true}
  - metrics:
      lines_total: {type: counter, description: lines, prefix: web_, maxIdleDuration: 1h, matchAll: true, action: inc}
      latency_seconds: {type: Histogram, source: latency, action: inc, buckets: ['0.1', '1', '2.5']}
      queue: {type: gauge, source: depth, action: set}
  - multiline: {firstLine: '^\d{4}-', maxWaitTime: 3s, maxLines: 128}
  - output: {source: msg}
  - pack: {labels: [pod], ingestTimestamp: false}
  - regex: {expression: '^(?P<ts>\S+) (?P<rest>.*)$', source: log}
  - replace: {expression: 'token=(\S+)', replace: '***', source: msg}
  - template: {source: level, template: '{{ ToLower .Value }}'}
  - tenant: {label: team}
  - timestamp: {source: ts, format: RFC3339, fallbackFormats: [UnixMs], location: UTC, actionOnFailure: skip}
  - match:
      selector: '{app="web"} |= "error"'
      pipelineName: errors
      stages: |
        - regex: {expression: 'code=(?P<code>\d+)'}
        - labels: {code: null}
        - match:
            selector: '{code="500"}'
            action: drop
            dropCounterReason: server_errors
)";
  ConfigRender r = render_logs(valid_inventory(text));
  CHECK(r.problems.empty());
  const model::Value& stages = *logs_instance(r, 0).find("scrape_configs")->as_array()[0].find("pipeline_stages");
  REQUIRE(stages.size() == 18);
  CHECK(stages.as_array()[17] == yaml(R"(match:
      selector: '{app="web"} |= "error"'
      pipeline_name: errors
      stages:
      - regex: {expression: 'code=(?P<code>\d+)'}
      - labels: {code: ''}
      - match: {selector: '{code="500"}', action: drop, drop_counter_reason: server_errors})"));
  testutil::check_golden("logs", "all_stages.yaml", model::to_yaml(r.config));
}
