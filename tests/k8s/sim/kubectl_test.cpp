// Drives the real kubectl against an in-process simcluster.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>

#include "golden_util.hpp"
#include "k8s/sim/selector.hpp"
#include "kubectl_env.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

using k8s::sim::field_text;
using model::Value;
using testutil::KubectlEnv;

namespace {

using Key = std::tuple<std::string, std::string, std::string>;  // kind, namespace, name

const char* kOperatorNamespace = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: operator\n";

std::vector<std::string> example_files() {
  return testutil::yaml_files(testutil::reference_path("examples"));
}

// Every object of the examples, keyed as the cluster stores them, with its labels.
std::map<Key, Value> example_objects(KubectlEnv& env) {
  std::map<Key, Value> out;
  for (const auto& file : example_files())
    for (auto& doc : model::parse_documents(testutil::read_text(file), file)) {
      auto t = env.cluster().types().find_kind(field_text(doc.value, "apiVersion"), field_text(doc.value, "kind"));
      REQUIRE(t);
      std::string ns = t->namespaced ? field_text(doc.value, "metadata.namespace") : "";
      if (t->namespaced && ns.empty()) ns = "default";
      const Value* m = doc.value.find("metadata");
      const Value* labels = m ? m->find("labels") : nullptr;
      out[{t->kind, ns, field_text(doc.value, "metadata.name")}] = labels ? *labels : Value::object();
    }
  return out;
}

std::set<Key> keys_of(const std::string& list_json) {
  std::set<Key> out;
  Value list = model::parse_json(list_json);
  REQUIRE(list.find("items"));
  for (const Value& item : list.find("items")->as_array())
    out.insert({field_text(item, "kind"), field_text(item, "metadata.namespace"), field_text(item, "metadata.name")});
  return out;
}

void apply_examples(KubectlEnv& env) {
  auto crds = env.kubectl({"apply", "-f", testutil::reference_path("crds")});
  REQUIRE(crds.code == 0);
  REQUIRE(env.kubectl({"apply", "-f", "-"}, kOperatorNamespace).code == 0);
  for (const auto& file : example_files()) {
    INFO(file);
    auto r = env.kubectl({"apply", "-f", file});
    INFO(r.err);
    REQUIRE(r.code == 0);
    REQUIRE(r.err.empty());  // no warnings either
  }
}

std::string plural_of(KubectlEnv& env, const std::string& kind) {
  for (const auto& t : env.cluster().types_snapshot())
    if (t.kind == kind) return t.group.empty() ? t.plural : t.plural + "." + t.group;
  return kind;
}

}  // namespace

TEST_CASE("kubectl applies the upstream CRDs and every example manifest", "[k8s][kubectl]") {
  KubectlEnv env;
  apply_examples(env);
  auto expected = example_objects(env);
  std::map<std::string, std::set<Key>> by_kind;
  for (const auto& [key, labels] : expected) by_kind[std::get<0>(key)].insert(key);
  REQUIRE(by_kind.size() >= 10);
  for (const auto& [kind, keys] : by_kind) {
    INFO(kind);
    auto r = env.kubectl({"get", plural_of(env, kind), "-A", "-o", "json"});
    REQUIRE(r.code == 0);
    std::set<Key> got = keys_of(r.out);
    // Built-in namespaces, and the "default" ServiceAccount each namespace gets, are not from the examples.
    std::erase_if(got, [](const Key& k) {
      return (std::get<0>(k) == "Namespace" && std::get<2>(k) != "operator") ||
             (std::get<0>(k) == "ServiceAccount" && std::get<2>(k) == "default");
    });
    CHECK(got == keys);
  }
  auto yaml = env.kubectl({"get", "grafanaagent", "grafana-agent-example", "-o", "yaml"});
  REQUIRE(yaml.code == 0);
  CHECK(yaml.out.find("kind: GrafanaAgent") != std::string::npos);
  CHECK(yaml.out.find("resourceVersion:") != std::string::npos);
}

TEST_CASE("kubectl label selectors match what the selector semantics say", "[k8s][kubectl][selector]") {
  KubectlEnv env;
  apply_examples(env);
  auto expected = example_objects(env);
  const std::string kinds =
      "secrets,servicemonitors.monitoring.coreos.com,podmonitors.monitoring.coreos.com,"
      "podlogs.monitoring.grafana.com,metricsinstances.monitoring.grafana.com,"
      "logsinstances.monitoring.grafana.com,deployments.apps";
  for (std::string selector : {"instance=primary", "instance", "!instance", "instance in (primary,other),app!=x",
                               "app.kubernetes.io/name notin (grafana-agent)", "app=grafana-agent-operator"}) {
    INFO(selector);
    auto sel = k8s::sim::parse_label_selector(selector);
    std::set<Key> want;
    for (const auto& [key, labels] : expected) {
      std::string kind = std::get<0>(key);
      bool listed = kind == "Secret" || kind == "ServiceMonitor" || kind == "PodMonitor" || kind == "PodLogs" ||
                    kind == "MetricsInstance" || kind == "LogsInstance" || kind == "Deployment";
      if (listed && sel.matches(&labels)) want.insert(key);
    }
    auto r = env.kubectl({"get", kinds, "-A", "-l", selector, "-o", "json"});
    REQUIRE(r.code == 0);
    CHECK(keys_of(r.out) == want);
  }
  CHECK_FALSE(env.kubectl({"get", "secrets", "-l", "bad key"}).code == 0);
}

TEST_CASE("kubectl re-apply with changes goes through the patch path", "[k8s][kubectl]") {
  KubectlEnv env;
  std::string v1 = env.write_file("d1.yaml", R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: a, image: "nginx:1", env: [{name: KEEP, value: "1"}, {name: DROP, value: "2"}], ports: [{containerPort: 80}]}
      - {name: b, image: busybox}
      volumes: [{name: v1, emptyDir: {}}]
)");
  std::string v2 = env.write_file("d2.yaml", R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: a, image: "nginx:2", env: [{name: KEEP, value: "3"}], ports: [{containerPort: 80}, {containerPort: 443}]}
      volumes: [{name: v2, configMap: {name: c}}]
)");
  REQUIRE(env.kubectl({"apply", "-f", v1}).out == "deployment.apps/web created\n");
  auto r = env.kubectl({"apply", "-f", v2});
  REQUIRE(r.out == "deployment.apps/web configured\n");
  auto type = *env.cluster().types().find("apps", "v1", "deployments");
  auto stored = env.cluster().store().get(type, "default", "web");
  const Value& spec = *stored->value.find("spec");
  CHECK(field_text(stored->value, "metadata.generation") == "2");
  CHECK(model::to_json(*spec.find("template")->find("spec")) ==
        R"({"containers":[{"env":[{"name":"KEEP","value":"3"}],"image":"nginx:2","imagePullPolicy":"IfNotPresent",)"
        R"("name":"a","ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":443,"protocol":"TCP"}],)"
        R"("resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],)"
        R"("dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler",)"
        R"("securityContext":{},"terminationGracePeriodSeconds":30,)"
        R"("volumes":[{"configMap":{"defaultMode":420,"name":"c"},"name":"v2"}]})");
  CHECK(field_text(stored->value, "spec.strategy.rollingUpdate.maxSurge") == "25%");  // server defaults
  std::string rv = field_text(stored->value, "metadata.resourceVersion");
  CHECK(env.kubectl({"apply", "-f", v2}).out == "deployment.apps/web unchanged\n");
  CHECK(field_text(env.cluster().store().get(type, "default", "web")->value, "metadata.resourceVersion") == rv);
  auto describe = env.kubectl({"describe", "deployment", "web"});  // needs the server's defaults
  REQUIRE(describe.code == 0);
  CHECK(describe.out.find("25% max unavailable, 25% max surge") != std::string::npos);
  REQUIRE(env.kubectl({"scale", "deployment", "web", "--replicas=4"}).code == 0);
  CHECK(field_text(env.cluster().store().get(type, "default", "web")->value, "spec.replicas") == "4");
}

TEST_CASE("kubectl re-apply of a custom resource uses a merge patch", "[k8s][kubectl][crd]") {
  KubectlEnv env;
  REQUIRE(env.kubectl({"apply", "-f", testutil::reference_path("crds")}).code == 0);
  std::string agent = R"(apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: a, labels: {team: blue}}
spec: {logLevel: info, paused: true, serviceAccountName: sa}
)";
  REQUIRE(env.kubectl({"apply", "-f", "-"}, agent).code == 0);
  std::string changed = R"(apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: a, labels: {team: red}}
spec: {logLevel: debug, serviceAccountName: sa}
)";
  auto r = env.kubectl({"apply", "-f", "-"}, changed);
  REQUIRE(r.out == "grafanaagent.monitoring.grafana.com/a configured\n");
  auto got = model::parse_json(env.kubectl({"get", "grafanaagent", "a", "-o", "json"}).out);
  CHECK(field_text(got, "spec.logLevel") == "debug");
  CHECK(got.find("spec")->find("paused") == nullptr);  // removed from the manifest, so deleted
  CHECK(field_text(got, "metadata.labels.team") == "red");
  CHECK(field_text(got, "metadata.generation") == "2");
}

TEST_CASE("kubectl get --watch sees an update", "[k8s][kubectl][watch]") {
  KubectlEnv env;
  auto cm = [](const char* value) {
    return std::string("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: w}\ndata: {key: ") + value + "}\n";
  };
  REQUIRE(env.kubectl({"apply", "-f", "-"}, cm("before")).code == 0);
  k8s::sim::Child watch(env.kubectl_argv({"get", "configmap", "w", "--watch", "-o", "json"}));
  auto has = [](const char* text) {
    return [text](const std::string& out) { return out.find(text) != std::string::npos; };
  };
  REQUIRE(watch.read_until(has("\"before\""), std::chrono::seconds(20)));
  REQUIRE(env.kubectl({"apply", "-f", "-"}, cm("after")).code == 0);
  REQUIRE(watch.read_until(has("\"after\""), std::chrono::seconds(20)));
}

TEST_CASE("kubectl delete removes what was applied", "[k8s][kubectl]") {
  KubectlEnv env;
  apply_examples(env);
  std::string file = testutil::reference_path("examples/docs-getting-started.yaml");
  auto r = env.kubectl({"delete", "-f", file});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("deployment.apps \"grafana-agent-operator\" deleted") != std::string::npos);
  auto gone = env.kubectl({"get", "deployment", "grafana-agent-operator"});
  CHECK(gone.code == 1);
  CHECK(gone.err.find("NotFound") != std::string::npos);
  CHECK(env.kubectl({"delete", "namespace", "operator"}).code == 0);
  CHECK(keys_of(env.kubectl({"get", "secrets", "-n", "operator", "-o", "json"}).out).empty());
}

TEST_CASE("kubectl reports schema violations and missing namespaces as a real server would", "[k8s][kubectl][crd]") {
  KubectlEnv env;
  REQUIRE(env.kubectl({"apply", "-f", testutil::reference_path("crds")}).code == 0);
  auto bad_type = env.kubectl({"apply", "-f", "-"},
                              "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\n"
                              "metadata: {name: a}\nspec: {paused: \"yes\"}\n");
  CHECK(bad_type.code == 1);
  CHECK(bad_type.err.find("The GrafanaAgent \"a\" is invalid: spec.paused: Invalid value: \"string\": spec.paused in "
                          "body must be of type boolean: \"string\"") != std::string::npos);
  auto unknown = env.kubectl({"apply", "-f", "-"},
                             "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\n"
                             "metadata: {name: a}\nspec: {bogus: 1}\n");
  CHECK(unknown.code == 1);
  CHECK(unknown.err.find("strict decoding error: unknown field \"spec.bogus\"") != std::string::npos);
  auto ghost =
      env.kubectl({"apply", "-f", "-"}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ghost}\n");
  CHECK(ghost.code == 1);
  CHECK(ghost.err.find("namespaces \"ghost\" not found") != std::string::npos);
}

TEST_CASE("kubectl delete cascades to owned objects", "[k8s][kubectl][gc]") {
  KubectlEnv env;
  auto deployment = [](const char* name) {
    return std::string("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ") + name +
           "}\nspec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n"
           "    spec: {containers: [{name: c, image: x}]}\n";
  };
  auto owned = [&](const char* owner, const char* name) {
    auto type = *env.cluster().types().find("apps", "v1", "deployments");
    std::string uid = field_text(env.cluster().store().get(type, "default", owner)->value, "metadata.uid");
    return std::string("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ") + name +
           "\n  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: " + owner + ", uid: " + uid + "}]\n";
  };
  REQUIRE(env.kubectl({"apply", "-f", "-"}, deployment("one")).code == 0);
  REQUIRE(env.kubectl({"apply", "-f", "-"}, owned("one", "cascaded")).code == 0);
  REQUIRE(env.kubectl({"delete", "deployment", "one"}).code == 0);
  CHECK(env.kubectl({"get", "configmap", "cascaded"}).code == 1);
  REQUIRE(env.kubectl({"apply", "-f", "-"}, deployment("two")).code == 0);
  REQUIRE(env.kubectl({"apply", "-f", "-"}, owned("two", "kept")).code == 0);
  REQUIRE(env.kubectl({"delete", "deployment", "two", "--cascade=orphan"}).code == 0);
  auto kept = env.kubectl({"get", "configmap", "kept", "-o", "json"});
  REQUIRE(kept.code == 0);
  CHECK(model::parse_json(kept.out).find("metadata")->find("ownerReferences") == nullptr);
  REQUIRE(env.kubectl({"apply", "-f", "-"}, deployment("three")).code == 0);
  REQUIRE(env.kubectl({"apply", "-f", "-"}, owned("three", "fg")).code == 0);
  REQUIRE(env.kubectl({"delete", "deployment", "three", "--cascade=foreground"}).code == 0);
  CHECK(env.kubectl({"get", "configmap", "fg"}).code == 1);
  CHECK(env.kubectl({"get", "deployment", "three"}).code == 1);
}
