// spec.metrics.shardingStrategy (issue 19): decoding, the agent's jobs
// under consistent (http_sd polling the operator, no hashmod pair), the
// operator's allocator config, and hashmod rendering byte-identical to a
// GrafanaAgent without the field. Goldens: tests/golden/metrics/
// consistent_sharding{.yaml,.allocator.yaml,.statefulset.yaml} and
// node_sharding{.yaml,.allocator.yaml,.daemonset.yaml}.
#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "model/codec.hpp"
#include "model/job_cache.hpp"
#include "model/object_fields.hpp"
#include "model/parse.hpp"
#include "model/render.hpp"
#include "model/yaml_emit.hpp"
#include "test_render.hpp"

// Helpers and cases in a named namespace: the unity build batches test
// files, whose anonymous namespaces would share one scope.
namespace sharding_strategy_test {

using model::Value;

std::string agent_yaml(const std::string& strategy_line) {
  return R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: mon, uid: ga-uid, resourceVersion: "7"}
spec:
  serviceAccountName: agent
  metrics:
    instanceSelector: {}
    shards: 3
)" + strategy_line;
}

const std::string kMembers = testutil::select_all_instance_yaml("name: primary, namespace: mon") + R"(
  additionalScrapeConfigs: {name: extra, key: jobs.yaml}
---
apiVersion: v1
kind: Secret
metadata: {name: extra, namespace: mon}
stringData:
  jobs.yaml: |
    - job_name: extra
      static_configs: [{targets: ['a:9100']}]
---
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: app}
stringData: {token: s3cr3t-token}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: app, uid: sm-uid, resourceVersion: "3"}
spec:
  selector: {matchLabels: {app: web}}
  endpoints:
  - port: http-metrics
    bearerTokenSecret: {name: creds, key: token}
    metricRelabelings: [{sourceLabels: [__name__], regex: go_.*, action: drop}]
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: jobs, namespace: app, uid: pm-uid, resourceVersion: "4"}
spec:
  selector: {matchLabels: {app: jobs}}
  podMetricsEndpoints: [{port: metrics}]
---
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: sites, namespace: app, uid: pr-uid, resourceVersion: "5"}
spec:
  prober: {url: blackbox:9115}
  targets:
    staticConfig: {static: ['https://example.com']}
)";

model::RenderOptions options(model::JobCache* cache = nullptr) {
  model::RenderOptions o;
  o.job_cache = cache;
  return o;
}

model::AgentRender render(const std::string& strategy_line, model::JobCache* cache = nullptr) {
  model::Inventory inv = testutil::valid_inventory(agent_yaml(strategy_line) + kMembers);
  return model::render_agent(inv, testutil::only_agent(inv), options(cache));
}

const Value& object(const model::AgentRender& r, const std::string& kind, const std::string& name) {
  for (const Value& o : r.objects)
    if (o.find("kind")->as_string() == kind && o.find("metadata")->find("name")->as_string() == name) return o;
  FAIL("no " + kind + " " + name);
  throw;
}

// The config Secrets here are under the gzip threshold: plain base64.
std::string secret_text(const Value& secret, const std::string& key) {
  const Value* data = secret.find("data");
  if (data && data->find(key))
    if (auto text = model::base64_decode(data->find(key)->as_string())) return *text;
  FAIL("the Secret has no data." + key);
  return {};
}

TEST_CASE("shardingStrategy: unknown values are errors on the GrafanaAgent", "[metrics][sharding]") {
  for (const auto& [line, message] : std::vector<std::pair<std::string, std::string>>{
           {"    shardingStrategy: Node\n", "must be one of hashmod, consistent, node, got \"Node\""},
           {"    shardingStrategy: Consistent\n", "must be one of hashmod, consistent, node, got \"Consistent\""},
           {"    shardingStrategy: [consistent]\n", "shardingStrategy"}}) {
    model::Inventory inv = testutil::inventory_from_yaml(agent_yaml(line) + kMembers);
    auto problems = testutil::problem_texts(inv.problems());
    INFO(line);
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems[0], Catch::Contains("GrafanaAgent mon/agent") &&
                                Catch::Contains("spec.metrics.shardingStrategy") && Catch::Contains(message));
  }
}

TEST_CASE("shardingStrategy: hashmod renders exactly what no strategy renders", "[metrics][sharding]") {
  model::AgentRender none = render("");
  model::AgentRender hashmod = render("    shardingStrategy: hashmod\n");
  REQUIRE(none.objects.size() == hashmod.objects.size());
  for (std::size_t i = 0; i < none.objects.size(); ++i)
    CHECK(model::to_yaml(none.objects[i]) == model::to_yaml(hashmod.objects[i]));
  CHECK(hashmod.allocator_config.empty());
  CHECK_THAT(secret_text(object(hashmod, "Secret", "agent-config"), "agent.yml"), Catch::Contains("hashmod"));
}

TEST_CASE("shardingStrategy consistent: monitor jobs poll the operator, extra jobs keep hashmod",
          "[metrics][sharding]") {
  model::AgentRender r = render("    shardingStrategy: consistent\n");
  REQUIRE(testutil::problem_texts(r.problems).empty());
  const std::string agent_yml = secret_text(object(r, "Secret", "agent-config"), "agent.yml");
  testutil::check_golden("metrics", "consistent_sharding.yaml", agent_yml);
  CHECK(agent_yml.find("kubernetes_sd_configs") == std::string::npos);
  // The one hashmod left is the additionalScrapeConfigs job's, which the
  // operator does not discover.
  CHECK(agent_yml.find("hashmod") == agent_yml.rfind("hashmod"));
  CHECK_THAT(agent_yml, Catch::Contains("agent=mon/agent&job=serviceMonitor/app/web/0&shard=$(SHARD)"));

  SECTION("the job cache renders the same bytes") {
    model::JobCache cache;
    for (int pass = 0; pass < 2; ++pass) {
      model::AgentRender cached = render("    shardingStrategy: consistent\n", &cache);
      CHECK(secret_text(object(cached, "Secret", "agent-config"), "agent.yml") == agent_yml);
      CHECK(cached.allocator_config == r.allocator_config);
    }
  }
  SECTION("the operator's allocator config discovers, relabels, and holds no credentials") {
    testutil::check_golden("metrics", "consistent_sharding.allocator.yaml", r.allocator_config);
    CHECK(r.allocator_config.find("s3cr3t") == std::string::npos);
    CHECK(r.allocator_config.find("bearer_token") == std::string::npos);
    CHECK(r.allocator_config.find("hashmod") == std::string::npos);
    CHECK(r.allocator_config.find("extra") == std::string::npos);
  }
  SECTION("each shard's pods get a projected token for the operator's audience") {
    const Value& shard = object(r, "StatefulSet", "agent-shard-1");
    testutil::check_golden("metrics", "consistent_sharding.statefulset.yaml", model::to_yaml(shard));
    const std::string text = model::to_yaml(shard);
    CHECK_THAT(text, Catch::Contains("audience: agent-operator") &&
                         Catch::Contains("mountPath: /var/run/secrets/agent-operator"));
  }
}

std::vector<std::string> kinds_named(const model::AgentRender& r, const std::string& kind) {
  std::vector<std::string> out;
  for (const Value& o : r.objects)
    if (o.find("kind")->as_string() == kind) out.push_back(o.find("metadata")->find("name")->as_string());
  return out;
}

TEST_CASE("shardingStrategy node: one metrics pod per Node, each asking for its own Node's targets",
          "[metrics][sharding]") {
  model::AgentRender r = render("    shardingStrategy: node\n");
  CHECK(kinds_named(r, "StatefulSet").empty());
  CHECK(kinds_named(r, "DaemonSet") == std::vector<std::string>{"agent-metrics"});
  // shards: 3 is ignored, and the extra job runs on every pod: both said.
  const auto problems = testutil::problem_texts(r.problems);
  REQUIRE(problems.size() == 2);
  CHECK_THAT(problems[0], Catch::Contains("spec.metrics.shardingStrategy") &&
                              Catch::Contains("the additionalScrapeConfigs of 1 MetricsInstances") &&
                              Catch::Contains("on every Node"));
  CHECK_THAT(problems[1], Catch::Contains("spec.metrics.shards") && Catch::Contains("ignored"));
  CHECK(!model::has_errors(r.problems));

  const std::string agent_yml = secret_text(object(r, "Secret", "agent-config"), "agent.yml");
  testutil::check_golden("metrics", "node_sharding.yaml", agent_yml);
  // No hashmod pair anywhere: each pod's SHARD is its name, which no hash
  // matches; the monitor jobs ask for this pod's share.
  CHECK(agent_yml.find("hashmod") == std::string::npos);
  CHECK(agent_yml.find("kubernetes_sd_configs") == std::string::npos);
  CHECK_THAT(agent_yml, Catch::Contains("agent=mon/agent&job=serviceMonitor/app/web/0&shard=$(SHARD)"));

  SECTION("the DaemonSet's pods are named by SHARD and carry the operator's token") {
    const Value& daemonset = object(r, "DaemonSet", "agent-metrics");
    const std::string ds = model::to_yaml(daemonset);
    testutil::check_golden("metrics", "node_sharding.daemonset.yaml", ds);
    CHECK_THAT(
        ds, Catch::Contains("audience: agent-operator") && Catch::Contains("operator.agent.grafana.com/shard: node"));
    // Both containers' SHARD (the config reloader expands $(SHARD)) is the
    // pod's name.
    std::vector<std::string> shard_from;
    for (const Value& c : daemonset.find("spec")->find("template")->find("spec")->find("containers")->as_array())
      if (const Value* env = c.find("env"))
        for (const Value& e : env->as_array())
          if (model::string_at(e, {"name"}) == "SHARD")
            shard_from.push_back(model::string_at(e, {"valueFrom", "fieldRef", "fieldPath"}));
    CHECK(shard_from == std::vector<std::string>{"metadata.name", "metadata.name"});
  }
  SECTION("the operator places per Node over the DaemonSet's pods, with consistent hashing as fallback") {
    testutil::check_golden("metrics", "node_sharding.allocator.yaml", r.allocator_config);
    const Value doc = model::parse_documents(r.allocator_config, "allocator").at(0).value;
    CHECK(model::string_at(doc, {"allocation_strategy"}) == "per-node");
    CHECK(model::string_at(doc, {"allocation_fallback_strategy"}) == "consistent-hashing");
    CHECK(model::string_at(doc, {"collector_namespace"}) == "mon");
    CHECK(doc.find("collectors") == nullptr);
    // The selector is the DaemonSet's own.
    const Value& ds = object(r, "DaemonSet", "agent-metrics");
    CHECK(model::to_json(*doc.find("collector_selector")) == model::to_json(*ds.find("spec")->find("selector")));
  }
  SECTION("without shards, replicas or jobs it does not discover, nothing to warn about") {
    model::Inventory inv = testutil::valid_inventory(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: mon, uid: ga-uid}
spec:
  metrics: {instanceSelector: {}, shardingStrategy: node}
---
)" + testutil::select_all_instance_yaml("name: primary, namespace: mon"));
    CHECK(testutil::render_only_agent(inv, false).problems.empty());
  }
}

TEST_CASE("shardingStrategy consistent and node: upstream_compat renders upstream's hashmod", "[metrics][sharding]") {
  model::Inventory plain = testutil::valid_inventory(agent_yaml("") + kMembers);
  model::AgentRender upstream = testutil::render_only_agent(plain, true);
  for (const std::string strategy : {"consistent", "node"}) {
    INFO(strategy);
    model::Inventory inv = testutil::valid_inventory(agent_yaml("    shardingStrategy: " + strategy + "\n") + kMembers);
    model::AgentRender compat = testutil::render_only_agent(inv, true);
    CHECK(compat.allocator_config.empty());
    REQUIRE(compat.objects.size() == upstream.objects.size());
    for (std::size_t i = 0; i < compat.objects.size(); ++i)
      CHECK(model::to_yaml(compat.objects[i]) == model::to_yaml(upstream.objects[i]));
  }
}

}  // namespace sharding_strategy_test
