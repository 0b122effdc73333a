// Metrics StatefulSets: one per shard, their names, labels, env, WAL
// volumes and storage variants, and the governing Service.
#include <catch2/catch.hpp>

#include "golden_util.hpp"
#include "model/workloads.hpp"
#include "test_render.hpp"

namespace {

using model::Value;
using testutil::agent_from_spec;
using testutil::at;

std::string label(const Value& labels, const char* key) {
  const Value* v = labels.find(key);
  return v ? v->as_string() : "<absent>";
}

std::string env_value(const Value& container, const std::string& name) {
  for (const Value& e : at(container, "env").as_array())
    if (at(e, "name").as_string() == name) return e.find("value") ? e.find("value")->as_string() : "<valueFrom>";
  return "<absent>";
}

const Value* volume_named(const Value& pod_spec, const std::string& name) {
  for (const Value& v : at(pod_spec, "volumes").as_array())
    if (at(v, "name").as_string() == name) return &v;
  return nullptr;
}

}  // namespace

TEST_CASE("D2: three shards of two replicas", "[workloads]") {
  auto rc = testutil::load_reference_case("D2_sharding_podmonitor");
  auto r = testutil::render_only_agent(rc.inventory);
  std::vector<const Value*> sets;
  std::vector<std::string> secrets;
  for (const Value& o : r.objects) {
    if (at(o, "kind").as_string() == "StatefulSet") sets.push_back(&o);
    if (at(o, "kind").as_string() == "Secret") secrets.push_back(at(o, "metadata.name").as_string());
  }
  CHECK(secrets == std::vector<std::string>{"agent-config", "agent-secrets"});
  REQUIRE(sets.size() == 3);
  const std::vector<std::string> names{"agent", "agent-shard-1", "agent-shard-2"};
  for (std::size_t i = 0; i < 3; ++i) {
    const Value& ss = *sets[i];
    INFO("shard " << i);
    CHECK(at(ss, "metadata.name").as_string() == names[i]);
    CHECK(at(ss, "spec.replicas") == Value(2));
    CHECK(at(ss, "spec.serviceName").as_string() == "agent-operated");
    CHECK(label(at(ss, "metadata.labels"), "operator.agent.grafana.com/shard") == std::to_string(i));
    CHECK(label(at(ss, "spec.selector.matchLabels"), "operator.agent.grafana.com/shard") == std::to_string(i));
    CHECK(label(at(ss, "spec.template.metadata.labels"), "operator.agent.grafana.com/type") == "metrics");
    const Value& pod = at(ss, "spec.template.spec");
    for (const Value& c : at(pod, "containers").as_array()) {
      CHECK(env_value(c, "SHARD") == std::to_string(i));
      CHECK(env_value(c, "SHARDS") == "3");
      CHECK(at(c, "volumeMounts[3]") ==
            Value::obj({{"name", names[i] + "-wal"}, {"mountPath", "/var/lib/grafana-agent/data"}}));
    }
    CHECK(at(pod, "volumes[0].secret.secretName").as_string() == "agent-config");
    const Value* wal = volume_named(pod, names[i] + "-wal");
    REQUIRE(wal != nullptr);
    CHECK(at(*wal, "emptyDir") == Value::object());
    CHECK(!ss.find("spec")->find("volumeClaimTemplates"));
  }
}

TEST_CASE("replicas default to 1 negatives become 0 shards below 2 mean one set", "[workloads]") {
  auto base = [](const std::string& metrics) { return agent_from_spec("  metrics: " + metrics + "\n"); };
  model::RenderOptions opts;
  auto plain = model::make_metrics_statefulsets(base("{}"), opts);
  REQUIRE(plain.size() == 1);
  CHECK(at(plain[0], "spec.replicas") == Value(1));
  CHECK(at(plain[0], "spec.podManagementPolicy").as_string() == "Parallel");
  CHECK(at(plain[0], "spec.updateStrategy") == Value::obj({{"type", "RollingUpdate"}}));
  auto negative = model::make_metrics_statefulsets(base("{replicas: -3, shards: 0}"), opts);
  REQUIRE(negative.size() == 1);
  CHECK(at(negative[0], "spec.replicas") == Value(0));
  CHECK(model::make_metrics_statefulsets(base("{shards: 1}"), opts).size() == 1);
  CHECK(model::make_metrics_statefulsets(base("{shards: 4}"), opts).size() == 4);
}

TEST_CASE("storage variants pick the WAL volume", "[workloads]") {
  auto with_storage = [](const std::string& storage) {
    return agent_from_spec("  metrics: {shards: 2}\n  storage: " + storage + "\n");
  };
  model::RenderOptions opts;

  auto empty_dir = model::make_metrics_statefulsets(with_storage("{emptyDir: {medium: Memory}}"), opts);
  const Value* wal = volume_named(at(empty_dir[1], "spec.template.spec"), "a-shard-1-wal");
  REQUIRE(wal != nullptr);
  CHECK(at(*wal, "emptyDir") == Value::obj({{"medium", "Memory"}}));
  CHECK(!at(empty_dir[1], "spec").find("volumeClaimTemplates"));

  auto claim = model::make_metrics_statefulsets(
      with_storage("{volumeClaimTemplate: {spec: {storageClassName: fast, resources: {requests: {storage: 5Gi}}}}}"),
      opts);
  REQUIRE(claim.size() == 2);
  const Value& vct = at(claim[1], "spec.volumeClaimTemplates[0]");
  CHECK(at(vct, "metadata.name").as_string() == "a-shard-1-wal");
  CHECK(at(vct, "spec.accessModes") == Value::arr({"ReadWriteOnce"}));
  CHECK(at(vct, "spec.storageClassName").as_string() == "fast");
  CHECK(at(vct, "spec.resources.requests.storage").as_string() == "5Gi");
  CHECK(volume_named(at(claim[1], "spec.template.spec"), "a-shard-1-wal") == nullptr);
  CHECK(at(claim[1], "spec.template.spec.containers[1].volumeMounts[3].name").as_string() == "a-shard-1-wal");

  auto named = model::make_metrics_statefulsets(
      with_storage("{volumeClaimTemplate: {metadata: {name: data, labels: {x: y}}, spec: {accessModes: "
                   "[ReadWriteMany]}}}"),
      opts);
  const Value& named_vct = at(named[0], "spec.volumeClaimTemplates[0]");
  CHECK(at(named_vct, "metadata") == Value::obj({{"name", "data"}, {"labels", Value::obj({{"x", "y"}})}}));
  CHECK(at(named_vct, "spec.accessModes") == Value::arr({"ReadWriteMany"}));
  CHECK(at(named[0], "spec.template.spec.containers[1].volumeMounts[3].name").as_string() == "data");
}

TEST_CASE("governing Service is headless and selects all agent pods", "[workloads]") {
  auto agent = agent_from_spec("  portName: agent-metrics\n", ", uid: u-1");
  Value svc = model::make_governing_service(agent, model::RenderOptions{});
  CHECK(at(svc, "metadata.name").as_string() == "a-operated");
  CHECK(at(svc, "metadata.labels") == Value::obj({{"app.kubernetes.io/managed-by", "grafana-agent-operator"},
                                                  {"operator.agent.grafana.com/name", "a"},
                                                  {"operated-agent", "true"}}));
  CHECK(at(svc, "metadata.ownerReferences[0].controller") == Value(true));
  CHECK(at(svc, "metadata.ownerReferences[0].uid").as_string() == "u-1");
  CHECK(at(svc, "spec.clusterIP").as_string() == "None");
  CHECK(at(svc, "spec.ports") ==
        Value::arr({Value::obj({{"name", "agent-metrics"}, {"port", 8080}, {"targetPort", "agent-metrics"}})}));
  CHECK(at(svc, "spec.selector") ==
        Value::obj({{"app.kubernetes.io/name", "grafana-agent"}, {"operator.agent.grafana.com/name", "a"}}));
}
