// The integrations agent.yml: upstream reference cases D5 (DaemonSet and
// Deployment configs), C7 (subset assertions, as upstream's test does), and
// the scrubbing of PodLogs while additionalScrapeConfigs are kept.
#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "model/config.hpp"
#include "test_render.hpp"

using testutil::subset_mismatch;
using testutil::yaml;

namespace {

// An integrations block with the extra_labels of each config item removed.
model::Value without_extra_labels(model::Value block) {
  for (auto& [key, list] : block.as_object())
    if (list.is_array())
      for (auto& item : list.as_array()) item.erase("extra_labels");
  return block;
}

const model::Value& config(const model::AgentRender& ar, const std::string& name) {
  auto it = ar.configs.find(name);
  REQUIRE(it != ar.configs.end());
  return it->second;
}

void check_block(const model::Value& expected, const model::Value& actual, const char* key) {
  INFO("block " << key);
  REQUIRE(actual.find(key));
  testutil::check_same(*expected.find(key), *actual.find(key));
}

const char* kC7 = R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: test-agent, namespace: monitoring}
spec:
  integrations: {selector: {matchLabels: {agent: test}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: mysql-a, namespace: monitoring, labels: {agent: test}}
spec: {name: mysqld_exporter, type: {}, config: {data_source_names: root@(server-a:3306)/}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: mysql-b, namespace: monitoring, labels: {agent: test}}
spec: {name: mysqld_exporter, type: {}, config: {data_source_names: root@(server-b:3306)/}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: node, namespace: monitoring, labels: {agent: test}}
spec:
  name: node_exporter
  type: {allNodes: true, unique: true}
  config: {rootfs_path: /host/root, sysfs_path: /host/sys, procfs_path: /host/proc}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: redis, namespace: monitoring, labels: {agent: test}}
spec: {name: redis_exporter, type: {}, config: {redis_addr: redis-a:6379}}
)";

const char* kC7Instances = R"(
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: operator-metrics, namespace: primary, labels: {agent: test}}
spec: {remoteWrite: [{url: http://cortex:80/api/prom/push}]}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: operator-logs, namespace: primary, labels: {agent: test}}
spec:
  clients: [{url: http://loki:80/loki/api/v1/push}]
  podLogsSelector: {}
  additionalScrapeConfigs: {name: extra, key: jobs}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: PodLogs
metadata: {name: scrubbed, namespace: primary}
spec: {selector: {}}
---
apiVersion: v1
kind: Secret
metadata: {name: extra, namespace: primary}
stringData: {jobs: '[{job_name: journal, journal: {}}]'}
)";

}  // namespace

TEST_CASE("D5: integrations DaemonSet and Deployment configs (upstream_compat)", "[logs]") {
  // D5 evaluated the template directly with both Integrations in its
  // context (cache/redis-a is outside the agent's namespace, so hierarchy
  // discovery would not select it); the test builds the same context.
  const std::vector<std::pair<std::string, bool>> cases = {
      {"D5_integrations_ds", true},
      {"D5_integrations_deploy", false},
  };
  for (const auto& [name, all_nodes] : cases) {
    INFO(name);
    auto rc = testutil::load_reference_case(name);
    REQUIRE(rc.entry == "agent-integrations.libsonnet");
    testutil::require_no_problems(rc.inventory);
    model::Hierarchy h = model::build_hierarchy(rc.inventory, testutil::only_agent(rc.inventory));
    h.integrations.clear();
    for (const auto& [key, entry] : rc.inventory.integrations)
      if (entry.obj.all_nodes == all_nodes) h.integrations.push_back(&entry.obj);
    REQUIRE(h.integrations.size() == 1);
    model::RenderOptions opts;
    opts.upstream_compat = true;
    model::AssetRefs assets(rc.inventory);
    std::vector<model::Problem> problems;
    model::Value cfg = model::render_integrations_config(h, all_nodes, opts, assets, problems);
    CHECK(problems.empty());
    CHECK(assets.errors.empty());
    check_block(rc.expected, cfg, "integrations");
    check_block(rc.expected, cfg, "logs");
    check_block(rc.expected, cfg, "server");
    testutil::check_same(rc.expected, cfg);
  }
}

TEST_CASE("D5 through render_agent: the DaemonSet config of the selected Integration", "[logs]") {
  auto rc = testutil::load_reference_case("D5_integrations_ds");
  testutil::require_no_problems(rc.inventory);
  model::AgentRender ar = testutil::render_only_agent(rc.inventory, true);
  CHECK(ar.problems.empty());
  const model::Value& cfg = config(ar, "agent-integrations-ds-config");
  check_block(rc.expected, cfg, "integrations");
  check_block(rc.expected, cfg, "logs");
  // cache/redis-a is not in the agent's namespace: no Deployment config.
  CHECK(ar.configs.count("agent-integrations-deploy-config") == 0);
}

TEST_CASE("C7: integrations config subset as upstream asserts", "[logs]") {
  model::AgentRender ar = testutil::render_only_agent(testutil::valid_inventory(kC7));
  CHECK(ar.problems.empty());
  const model::Value& ds = config(ar, "test-agent-integrations-ds-config");
  const model::Value& deploy = config(ar, "test-agent-integrations-deploy-config");
  model::Value common = yaml("{server: {}, logs: {positions_directory: /var/lib/grafana-agent/data}}");
  CHECK(subset_mismatch(common, ds) == "");
  CHECK(subset_mismatch(common, deploy) == "");
  // Outside compat mode every block also carries the operator's target
  // labels (tests/model/integrations_render_test.cpp checks them).
  CHECK(without_extra_labels(*ds.find("integrations")) == yaml(R"(
metrics: {autoscrape: {enable: false}}
node_exporter_configs: [{rootfs_path: /host/root, sysfs_path: /host/sys, procfs_path: /host/proc}])"));
  CHECK(without_extra_labels(*deploy.find("integrations")) == yaml(R"(
metrics: {autoscrape: {enable: false}}
mysqld_exporter_configs: [{data_source_names: root@(server-a:3306)/}, {data_source_names: root@(server-b:3306)/}]
redis_exporter_configs: [{redis_addr: redis-a:6379}])"));
  model::Value metrics = yaml(R"({metrics: {wal_directory: /var/lib/grafana-agent/data,
                                            global: {external_labels: {cluster: monitoring/test-agent}}}})");
  CHECK(subset_mismatch(metrics, ds) == "");
  CHECK(subset_mismatch(metrics, deploy) == "");
}

TEST_CASE("C7 with instances: PodLogs scrubbed clients and additional configs kept", "[logs]") {
  std::string text = kC7;
  text.replace(text.find("  integrations:"), 0,
               "  metrics: {instanceSelector: {matchLabels: {agent: test}}, instanceNamespaceSelector: {}}\n"
               "  logs: {instanceSelector: {matchLabels: {agent: test}}, instanceNamespaceSelector: {}}\n");
  model::AgentRender ar = testutil::render_only_agent(testutil::valid_inventory(text + kC7Instances));
  CHECK(ar.problems.empty());
  model::Value logs = yaml(R"(
positions_directory: /var/lib/grafana-agent/data
configs:
- name: primary/operator-logs
  clients: [{url: 'http://loki:80/loki/api/v1/push', external_labels: {cluster: monitoring/test-agent}}]
  scrape_configs: [{job_name: journal, journal: {}}])");
  for (const char* name : {"test-agent-integrations-ds-config", "test-agent-integrations-deploy-config"}) {
    INFO(name);
    const model::Value& cfg = config(ar, name);
    testutil::check_same(logs, *cfg.find("logs"));
    CHECK(subset_mismatch(yaml(R"({metrics: {configs: [{name: primary/operator-metrics,
                                  remote_write: [{url: 'http://cortex:80/api/prom/push'}]}]}})"),
                          cfg) == "");
  }
  // The logs DaemonSet config still has the PodLogs.
  const model::Value& full = config(ar, "test-agent-logs-config");
  const model::Value& scs = *full.find("logs")->find("configs")->as_array()[0].find("scrape_configs");
  REQUIRE(scs.size() == 2);
  CHECK(*scs.as_array()[0].find("job_name") == model::Value("podLogs/primary/scrubbed"));
}

TEST_CASE("render_integrations_config lists only integrations of the requested kind", "[logs]") {
  model::Inventory inv = testutil::inventory_from_yaml(kC7);
  model::Hierarchy h = model::build_hierarchy(inv, testutil::only_agent(inv));
  REQUIRE(h.integrations.size() == 4);
  model::AssetRefs assets(inv);
  std::vector<model::Problem> problems;
  model::Value ds = model::render_integrations_config(h, true, model::RenderOptions{}, assets, problems);
  model::Value deploy = model::render_integrations_config(h, false, model::RenderOptions{}, assets, problems);
  CHECK(ds.find("integrations")->size() == 2);
  CHECK(ds.find("integrations")->find("node_exporter_configs"));
  CHECK(deploy.find("integrations")->size() == 3);
  CHECK_FALSE(deploy.find("integrations")->find("node_exporter_configs"));
  CHECK(problems.empty());
}
