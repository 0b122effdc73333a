#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "model/yaml_emit.hpp"
#include "test_render.hpp"

namespace {

const char* kAgentWithIntegrations = R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: mon}
spec:
  integrations: {selector: {matchLabels: {agent: agent}}, namespaceSelector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: node-a, namespace: mon, labels: {agent: agent}}
spec: {name: node_exporter, type: {allNodes: true, unique: true}, config: {rootfs_path: /a}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: node-b, namespace: mon, labels: {agent: agent}}
spec: {name: node_exporter, type: {allNodes: true}, config: {rootfs_path: /b}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: redis-a, namespace: mon, labels: {agent: agent}}
spec: {name: redis_exporter, config: {redis_addr: a:6379}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: redis-b, namespace: mon, labels: {agent: agent}}
spec: {name: redis_exporter, config: {redis_addr: b:6379}, secrets: [{name: missing, key: password}]}
)";

std::vector<std::string> names_of(const std::vector<model::Value>& objects) {
  std::vector<std::string> out;
  for (const auto& o : objects)
    out.push_back(o.find("kind")->as_string() + "/" + o.find("metadata")->find("name")->as_string());
  return out;
}

}  // namespace

TEST_CASE("duplicate unique integrations are rejected on that root", "[render]") {
  auto inv = testutil::inventory_from_yaml(kAgentWithIntegrations);
  auto r = testutil::render_only_agent(inv);
  REQUIRE(r.problems.size() == 2);
  CHECK(r.problems[0].str() ==
        "Integration mon/node-b: spec.type.unique: integration \"node_exporter\" is unique and already provided by "
        "Integration mon/node-a for GrafanaAgent mon/agent");
  CHECK(r.problems[1].str() == "Integration mon/redis-b: spec.secrets[0]: Secret mon/missing not found");
  std::string ds_config = model::to_yaml(r.configs.at("agent-integrations-ds-config"));
  CHECK(ds_config.find("/a") != std::string::npos);
  CHECK(ds_config.find("/b") == std::string::npos);

  auto u = testutil::render_only_agent(inv, true);
  CHECK(model::to_yaml(u.configs.at("agent-integrations-ds-config")).find("/b") != std::string::npos);
}

TEST_CASE("a root whose own Secret reference fails renders nothing", "[render]") {
  auto all = testutil::render_all_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: broken, namespace: mon}
spec:
  metrics:
    instanceSelector: {}
    remoteWrite: [{url: 'https://x/push', basicAuth: {username: {name: gone, key: u}, password: {name: gone, key: p}}}]
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: fine, namespace: mon}
spec:
  metrics: {instanceSelector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: mon}
spec: {}
)");
  REQUIRE(!all.problems.empty());
  for (const auto& p : all.problems)
    CHECK(p.str().rfind("GrafanaAgent mon/broken: spec.metrics.remoteWrite[0]", 0) == 0);
  for (const auto& n : names_of(all.objects)) CHECK(n.find("broken") == std::string::npos);
  auto names = names_of(all.objects);
  CHECK(std::find(names.begin(), names.end(), "StatefulSet/fine") != names.end());
}

TEST_CASE("a paused agent renders nothing", "[render]") {
  auto all = testutil::render_all_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: a, namespace: mon}
spec: {paused: true, metrics: {instanceSelector: {}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: mon}
spec: {}
)");
  CHECK(all.objects.empty());
  CHECK(all.problems.empty());
}

TEST_CASE("an agent without instances still gets its assets Secret only", "[render]") {
  auto all = testutil::render_all_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: a, namespace: mon}
spec: {}
)");
  CHECK(names_of(all.objects) == std::vector<std::string>{"Secret/a-secrets"});
}

TEST_CASE("rendering is deterministic regardless of input order", "[render]") {
  std::string text = kAgentWithIntegrations;
  // Reverse the document order.
  std::vector<std::string> docs;
  std::size_t pos = 0;
  while (true) {
    auto next = text.find("\n---\n", pos);
    docs.push_back(text.substr(pos, next == std::string::npos ? std::string::npos : next - pos));
    if (next == std::string::npos) break;
    pos = next + 5;
  }
  std::string reversed;
  for (auto it = docs.rbegin(); it != docs.rend(); ++it) reversed += *it + "\n---\n";
  auto a = testutil::render_all_yaml(kAgentWithIntegrations);
  auto b = testutil::render_all_yaml(reversed);
  CHECK(model::to_yaml_stream(a.objects) == model::to_yaml_stream(b.objects));
}

TEST_CASE("asset keys that flatten to the same file are reported", "[render]") {
  auto inv = testutil::inventory_from_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: a, namespace: mon}
spec:
  integrations: {selector: {}, namespaceSelector: {}}
---
apiVersion: v1
kind: Secret
metadata: {name: c, namespace: a-b}
stringData: {k: one}
---
apiVersion: v1
kind: Secret
metadata: {name: b-c, namespace: a}
stringData: {k: two}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: x, namespace: a}
spec: {name: x_exporter, config: {}, secrets: [{name: b-c, key: k}]}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: y, namespace: a-b}
spec: {name: y_exporter, config: {}, secrets: [{name: c, key: k}]}
)");
  auto r = testutil::render_only_agent(inv);
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].str() ==
        "GrafanaAgent mon/a: referenced keys /secrets/a-b/c/k and /secrets/a/b-c/k map to the same file "
        "_secrets_a_b_c_k; rename one of the Secrets or keys");
}

TEST_CASE("two roots rendering the same object name are reported", "[render]") {
  auto inv = testutil::inventory_from_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: a, namespace: m}
spec: {logs: {instanceSelector: {}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: a-logs, namespace: m}
spec: {metrics: {instanceSelector: {}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: l, namespace: m}
spec: {}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: i, namespace: m}
spec: {}
)");
  auto all = model::render_all(inv, model::RenderOptions{});
  REQUIRE(all.problems.size() == 1);
  CHECK(all.problems[0].str() ==
        "GrafanaAgent m/a-logs: metadata.name: Secret a-logs-config is also rendered by GrafanaAgent m/a; rename one "
        "of them");
  int count = 0;
  for (const auto& o : all.objects)
    if (o.find("metadata")->find("name")->as_string() == "a-logs-config") ++count;
  CHECK(count == 1);
}

TEST_CASE("a unique integration rejected for its references does not shadow the next one", "[render]") {
  auto inv = testutil::inventory_from_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: mon}
spec:
  integrations: {selector: {}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: a, namespace: mon}
spec: {name: node_exporter, type: {allNodes: true, unique: true}, config: {n: a}, secrets: [{name: gone, key: k}]}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: b, namespace: mon}
spec: {name: node_exporter, type: {allNodes: true, unique: true}, config: {n: b}}
)");
  auto r = model::render_agent(inv, inv.agents.at({"mon", "agent"}).obj, model::RenderOptions{});
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].str() == "Integration mon/a: spec.secrets[0]: Secret mon/gone not found");
  const auto& configs =
      *r.configs.at("agent-integrations-ds-config").find("integrations")->find("node_exporter_configs");
  REQUIRE(configs.size() == 1);
  CHECK(configs.as_array()[0].find("n")->as_string() == "b");
}

TEST_CASE("a paused agent is flagged so writers neither apply nor prune", "[render]") {
  auto inv = testutil::inventory_from_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: a, namespace: mon}
spec: {paused: true}
)");
  auto r = model::render_agent(inv, inv.agents.at({"mon", "a"}).obj, model::RenderOptions{});
  CHECK(r.paused);
  CHECK(r.objects.empty());
}
