// Issue 14 end to end: the live controller watches MetricsIntegrations and
// IntegrationMonitors. Creating, editing and deleting one makes the
// operator converge to what render_all wants: the integrations DaemonSet,
// its config Secret and the integrations Service appear, change and go;
// an IntegrationMonitor's job appears in, changes in and leaves the
// metrics config.
#include <catch2/catch.hpp>

#include "e2e_checks.hpp"
#include "model/codec.hpp"

using e2e::OperatorFixture;
using e2e::require_converged;

namespace {

// agent.yml of a config Secret, gunzipped when needed; "" when absent.
std::string agent_yml(OperatorFixture& f, const std::string& ns, const std::string& name) {
  auto s = f.get("Secret", ns, name);
  if (!s) return "";
  const model::Value* data = s->find("data");
  const model::Value* yml = data ? data->find("agent.yml") : nullptr;
  if (!yml) return "";
  std::string text = model::base64_decode(yml->as_string()).value_or("");
  if (auto unzipped = model::gzip_decompress(text)) text = *unzipped;
  return text;
}

// A GrafanaAgent with no integrations yet, selecting MetricsIntegrations
// labelled agent: second.
const char* kSecondAgent = R"(apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: second, namespace: monitoring}
spec:
  metricsIntegrations:
    selector: {matchLabels: {agent: second}}
)";

std::string node_exporter(const std::string& rootfs) {
  return R"(apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsIntegration
metadata: {name: nodes, namespace: monitoring, labels: {agent: second}}
spec:
  name: node_exporter
  type: daemonset
  config: "rootfs_path: )" +
         rootfs + "\"\n";
}

std::string monitor(const std::string& interval) {
  return R"(apiVersion: monitoring.grafana.com/v1alpha1
kind: IntegrationMonitor
metadata: {name: e2e, namespace: monitoring, labels: {instance: primary}}
spec:
  selector: {matchLabels: {monitor: infra}}
  interval: )" +
         interval + "\n";
}

}  // namespace

TEST_CASE("a MetricsIntegration brings its DaemonSet, config and Service and takes them away", "[e2e][integrations]") {
  OperatorFixture f;
  f.apply_yaml(kSecondAgent);
  require_converged(f);
  CHECK_FALSE(f.get("DaemonSet", "monitoring", "second-integrations-ds"));
  CHECK_FALSE(f.get("Service", "monitoring", "second-integrations"));

  f.apply_yaml(node_exporter("/host/root"));
  require_converged(f);
  CHECK(f.get("DaemonSet", "monitoring", "second-integrations-ds"));
  CHECK(f.get("Service", "monitoring", "second-integrations"));
  std::string before = agent_yml(f, "monitoring", "second-integrations-ds-config");
  CHECK(before.find("rootfs_path: /host/root") != std::string::npos);
  CHECK(before.find("__meta_agentoperator_integration_cr_name: nodes") != std::string::npos);
  auto ga = f.get("GrafanaAgent", "monitoring", "second");
  REQUIRE(ga);
  CHECK(ga->find("status")->find("counts")->find("metricsIntegrations")->as_int() == 1);

  f.apply_yaml(node_exporter("/rootfs"));
  require_converged(f);
  CHECK(agent_yml(f, "monitoring", "second-integrations-ds-config").find("rootfs_path: /rootfs") != std::string::npos);

  f.remove("MetricsIntegration", "monitoring", "nodes");
  require_converged(f);
  CHECK_FALSE(f.get("DaemonSet", "monitoring", "second-integrations-ds"));
  CHECK_FALSE(f.get("Secret", "monitoring", "second-integrations-ds-config"));
  CHECK_FALSE(f.get("Service", "monitoring", "second-integrations"));
}

TEST_CASE("an IntegrationMonitor's job appears, changes and disappears", "[e2e][integrations]") {
  OperatorFixture f;
  require_converged(f);
  const std::string job = "job_name: integrationMonitor/monitoring/e2e";
  CHECK(agent_yml(f, "monitoring", "grafana-agent-config").find(job) == std::string::npos);
  // The example's own IntegrationMonitor is there already.
  CHECK(agent_yml(f, "monitoring", "grafana-agent-config").find("integrationMonitor/monitoring/infra") !=
        std::string::npos);

  f.apply_yaml(monitor("30s"));
  require_converged(f);
  std::string with = agent_yml(f, "monitoring", "grafana-agent-config");
  CHECK(with.find(job) != std::string::npos);
  auto ga = f.get("GrafanaAgent", "monitoring", "grafana-agent");
  REQUIRE(ga);
  CHECK(ga->find("status")->find("counts")->find("integrationMonitors")->as_int() == 2);

  f.apply_yaml(monitor("45s"));
  require_converged(f);
  std::string edited = agent_yml(f, "monitoring", "grafana-agent-config");
  CHECK(edited != with);
  CHECK(edited.find("scrape_interval: 45s") != std::string::npos);

  f.remove("IntegrationMonitor", "monitoring", "e2e");
  require_converged(f);
  CHECK(agent_yml(f, "monitoring", "grafana-agent-config").find(job) == std::string::npos);
}
