// deploy/target-allocator as shipped: its config file loads, the Deployment
// runs the program with it, and its RBAC is exactly what the allocator
// reads and writes. (tests/k8s/sim/deploy_kustomize_test.cpp applies its
// overlay, deploy/overlays/target-allocator, to simcluster with kubectl.)
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <tuple>

#include "allocation/runtime/config.hpp"
#include "golden_util.hpp"
#include "model/parse.hpp"

using model::Value;

namespace {

using Permission = std::tuple<std::string, std::string, std::string>;  // apiGroup, resource, verb

// Every object under deploy/target-allocator, keyed "Kind/name".
std::map<std::string, Value> objects() {
  std::map<std::string, Value> out;
  for (const auto& file : testutil::yaml_files(testutil::source_path("deploy/target-allocator")))
    for (auto& doc : model::parse_documents(testutil::read_text(file), file))
      out[testutil::at(doc.value, "kind").as_string() + "/" + testutil::at(doc.value, "metadata.name").as_string()] =
          doc.value;
  return out;
}

std::set<Permission> granted(const Value& role) {
  std::set<Permission> out;
  for (const Value& rule : testutil::at(role, "rules").as_array()) {
    CHECK_FALSE(rule.find("resourceNames"));
    for (const Value& g : testutil::at(rule, "apiGroups").as_array())
      for (const Value& r : testutil::at(rule, "resources").as_array())
        for (const Value& v : testutil::at(rule, "verbs").as_array()) {
          CHECK(r.as_string() != "*");
          CHECK(v.as_string() != "*");
          out.emplace(g.as_string(), r.as_string(), v.as_string());
        }
  }
  return out;
}

// Its informers list and watch; nothing reads single objects but the Lease.
std::set<Permission> reads(std::initializer_list<std::pair<const char*, const char*>> kinds) {
  std::set<Permission> out;
  for (const auto& [group, resource] : kinds)
    for (const char* verb : {"list", "watch"}) out.emplace(group, resource, verb);
  return out;
}

const Value& container(const Value& deployment) {
  return testutil::at(deployment, "spec.template.spec.containers").as_array().at(0);
}

bool has_arg(const Value& c, const std::string& arg) {
  for (const Value& a : testutil::at(c, "args").as_array())
    if (a.as_string() == arg) return true;
  return false;
}

}  // namespace

TEST_CASE("deploy/target-allocator config loads and the Deployment runs the program with it", "[allocation][deploy]") {
  auto all = objects();
  const Value& config_map = all.at("ConfigMap/target-allocator");
  const auto config = allocation::runtime::load_config(
      testutil::at(config_map, "data").find("targetallocator.yaml")->as_string(), "configmap");
  CHECK(config.strategy.name == "consistent-hashing");
  CHECK(config.filter_strategy == "relabel-config");
  CHECK(config.collector_selector.has_value());
  CHECK(config.prometheus_cr.enabled);
  REQUIRE(config.kubernetes_sd.size() == 1);

  const Value& d = all.at("Deployment/target-allocator");
  const Value& c = container(d);
  CHECK(testutil::at(c, "command").as_array().at(0).as_string() == "/usr/local/bin/target-allocator");
  // The config file is the ConfigMap's key, mounted where the flag points.
  CHECK(has_arg(c, "--config-file=/conf/targetallocator.yaml"));
  CHECK(testutil::at(c, "volumeMounts").as_array().at(0).find("mountPath")->as_string() == "/conf");
  CHECK(testutil::at(d, "spec.template.spec.volumes").as_array().at(0).find("configMap")->find("name")->as_string() ==
        "target-allocator");
  const Value& port = testutil::at(c, "ports").as_array().at(0);
  CHECK(has_arg(c, "--listen-addr=:" + std::to_string(testutil::at(port, "containerPort").as_int())));
  CHECK(testutil::at(c, "livenessProbe.httpGet.path").as_string() == "/livez");
  CHECK(testutil::at(c, "readinessProbe.httpGet.path").as_string() == "/readyz");
  CHECK(testutil::at(c, "securityContext.readOnlyRootFilesystem").as_bool());
  CHECK(testutil::at(d, "spec.template.spec.serviceAccountName").as_string() == "target-allocator");
  // Active/standby: more than one replica needs the Lease gate on /readyz.
  CHECK(testutil::at(d, "spec.replicas").as_int() == 2);
  CHECK(has_arg(c, "--leader-elect"));
  const Value& service = all.at("Service/target-allocator");
  CHECK(testutil::at(service, "spec.ports").as_array().at(0).find("targetPort")->as_string() ==
        testutil::at(port, "name").as_string());
}

TEST_CASE("deploy/target-allocator RBAC grants exactly what the allocator uses", "[allocation][deploy]") {
  auto all = objects();
  // kubernetes_sd roles (pod, service, endpoints, endpointslice, ingress;
  // node is not supported), namespace labels for prometheus_cr selectors, the monitors and
  // the Secrets/ConfigMaps they reference; collector pods are among the pods.
  auto cluster_needs = reads({{"", "pods"},
                              {"", "services"},
                              {"", "endpoints"},
                              {"", "namespaces"},
                              {"discovery.k8s.io", "endpointslices"},
                              {"networking.k8s.io", "ingresses"},
                              {"monitoring.coreos.com", "servicemonitors"},
                              {"monitoring.coreos.com", "podmonitors"},
                              {"monitoring.coreos.com", "probes"},
                              {"monitoring.coreos.com", "scrapeconfigs"},
                              {"", "secrets"},
                              {"", "configmaps"}});
  CHECK(granted(all.at("ClusterRole/target-allocator")) == cluster_needs);
  const std::set<Permission> lease = {{"coordination.k8s.io", "leases", "get"},
                                      {"coordination.k8s.io", "leases", "create"},
                                      {"coordination.k8s.io", "leases", "update"}};
  CHECK(granted(all.at("Role/target-allocator-leader-election")) == lease);
  for (const char* binding : {"ClusterRoleBinding/target-allocator", "RoleBinding/target-allocator-leader-election"}) {
    const Value& subject = testutil::at(all.at(binding), "subjects").as_array().at(0);
    CHECK(subject.find("name")->as_string() == "target-allocator");
    CHECK(subject.find("namespace")->as_string() == "observability");
  }
}
