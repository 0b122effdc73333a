// Synthetic clusters (k8s/sim/generate.hpp): spec parsing, determinism,
// and that the objects reference and select each other as documented.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "golden_util.hpp"
#include "k8s/sim/api.hpp"
#include "k8s/sim/generate.hpp"
#include "k8s/sim/loader.hpp"
#include "k8s/sim/selector.hpp"
#include "model/parse.hpp"
#include "sim_fixture.hpp"

using k8s::sim::field_text;
using model::Value;

namespace {

const char* kSpec =
    "namespaces=12,agents=3,metrics_instances=7,service_monitors=150,pod_monitors=130,probes=9,secrets=20,pods=140,"
    "seed=7";

struct Generated {
  simtest::SimFixture f;
  explicit Generated(const std::string& spec) {
    k8s::sim::load_manifests(
        f.cluster, {testutil::source_path("deploy/crds"), testutil::source_path("deploy/prometheus-operator-crds")});
    k8s::sim::generate_cluster(f.cluster, k8s::sim::parse_generate_spec(spec));
  }
  std::string list(const std::string& path) {
    k8s::sim::Api api(f.cluster, {});
    k8s::sim::HttpRequest r;
    r.method = "GET";
    r.path = path;
    auto res = api.handle(r);
    REQUIRE(res.status == 200);
    return res.body;
  }
  std::vector<Value> items(const std::string& path) { return model::parse_json(list(path)).find("items")->as_array(); }
};

// The first element of the array at `list` (e.g. "spec.endpoints"), then `rest` within it.
std::string first_item_text(const Value& object, const std::string& list, const std::string& rest) {
  const Value* cur = &object;
  for (std::size_t start = 0; cur && start <= list.size();) {
    std::size_t dot = std::min(list.find('.', start), list.size());
    cur = cur->find(list.substr(start, dot - start));
    start = dot + 1;
  }
  if (!cur || !cur->is_array() || cur->as_array().empty()) return "";
  return field_text(cur->as_array().front(), rest);
}

bool selects(const Value* selector, const Value& object) {
  REQUIRE(selector);
  std::string text;
  if (const Value* ml = selector->find("matchLabels"))
    for (const auto& [k, v] : ml->as_object()) text += (text.empty() ? "" : ",") + k + "=" + v.as_string();
  const Value* labels = object.find("metadata")->find("labels");
  return k8s::sim::parse_label_selector(text).matches(labels);
}

const char* kPaths[] = {"/api/v1/namespaces",
                        "/api/v1/secrets",
                        "/api/v1/pods",
                        "/api/v1/serviceaccounts",
                        "/apis/monitoring.grafana.com/v1alpha1/grafanaagents",
                        "/apis/monitoring.grafana.com/v1alpha1/metricsinstances",
                        "/apis/monitoring.coreos.com/v1/servicemonitors",
                        "/apis/monitoring.coreos.com/v1/podmonitors",
                        "/apis/monitoring.coreos.com/v1/probes"};

}  // namespace

TEST_CASE("generate specs take the documented keys and reject others", "[k8s][generate]") {
  auto defaults = k8s::sim::parse_generate_spec("");
  CHECK(defaults.namespaces == 10);
  CHECK(defaults.seed == 1);
  auto s = k8s::sim::parse_generate_spec(
      "namespaces=500,agents=50,metrics_instances=200,service_monitors=20000,pod_monitors=5000,probes=0,"
      "secrets=20000,pods=0,seed=9");
  CHECK(s.namespaces == 500);
  CHECK(s.agents == 50);
  CHECK(s.metrics_instances == 200);
  CHECK(s.service_monitors == 20000);
  CHECK(s.pod_monitors == 5000);
  CHECK(s.probes == 0);
  CHECK(s.secrets == 20000);
  CHECK(s.pods == 0);
  CHECK(s.seed == 9);
  CHECK_THROWS_WITH(k8s::sim::parse_generate_spec("namespaces=3,nodes=2"), Catch::Contains("unknown key \"nodes\""));
  CHECK_THROWS_WITH(k8s::sim::parse_generate_spec("pods=-1"), Catch::Contains("pods wants a non-negative integer"));
  CHECK_THROWS_WITH(k8s::sim::parse_generate_spec("pods"), Catch::Contains("not key=value"));
  CHECK_THROWS_WITH(k8s::sim::parse_generate_spec("namespaces=0"), Catch::Contains("at least 1"));
}

TEST_CASE("generate needs the CRDs and gives the same lists for the same seed", "[k8s][generate]") {
  simtest::SimFixture bare;
  CHECK_THROWS_WITH(k8s::sim::generate_cluster(bare.cluster, {}), Catch::Contains("deploy/crds"));
  Generated a(kSpec), b(kSpec), other(std::string(kSpec) + ",seed=8");
  for (const char* path : kPaths) {
    INFO(path);
    CHECK(a.list(path) == b.list(path));
  }
  CHECK(a.list("/api/v1/secrets") != other.list("/api/v1/secrets"));
  CHECK(a.items("/apis/monitoring.coreos.com/v1/servicemonitors").size() == 150);
  CHECK(a.items("/apis/monitoring.coreos.com/v1/podmonitors").size() == 130);
  CHECK(a.items("/apis/monitoring.coreos.com/v1/probes").size() == 9);
  CHECK(a.items("/api/v1/pods").size() == 140);
  CHECK(a.items("/api/v1/namespaces").size() == 12 + 1 + 4);  // + monitoring + the built-in ones
}

TEST_CASE("generate joins namespaces that exist already", "[k8s][generate]") {
  simtest::SimFixture f;
  k8s::sim::load_manifests(
      f.cluster, {testutil::source_path("deploy/crds"), testutil::source_path("deploy/prometheus-operator-crds")});
  f.create("namespaces", R"({"metadata":{"name":"monitoring","labels":{"mine":"yes"}}})", "");
  auto spec = k8s::sim::parse_generate_spec("namespaces=2,agents=1,metrics_instances=1,service_monitors=2");
  std::size_t all = k8s::sim::generate_objects(spec).size();
  CHECK(k8s::sim::generate_cluster(f.cluster, spec) == all - 1);
  auto ns = f.cluster.store().get(f.type("", "namespaces"), "", "monitoring");
  CHECK(field_text(ns->value, "metadata.labels.mine") == "yes");
  CHECK_NOTHROW(f.cluster.store().get(f.type("monitoring.grafana.com", "grafanaagents"), "monitoring", "agent-0"));
}

TEST_CASE("generated objects select and reference each other", "[k8s][generate]") {
  Generated g(kSpec);
  std::map<std::string, Value> namespaces;
  for (auto& ns : g.items("/api/v1/namespaces")) namespaces[field_text(ns, "metadata.name")] = ns;
  std::set<std::string> secrets;
  for (auto& s : g.items("/api/v1/secrets"))
    secrets.insert(field_text(s, "metadata.namespace") + "/" + field_text(s, "metadata.name"));
  auto agents = g.items("/apis/monitoring.grafana.com/v1alpha1/grafanaagents");
  auto instances = g.items("/apis/monitoring.grafana.com/v1alpha1/metricsinstances");
  for (const auto& mi : instances) {
    int owners = 0;
    for (const auto& a : agents) owners += selects(a.find("spec")->find("metrics")->find("instanceSelector"), mi);
    CHECK(owners == 1);
    CHECK(secrets.count("monitoring/" + first_item_text(mi, "spec.remoteWrite", "basicAuth.password.name")));
  }
  int authenticated = 0;
  for (const char* kind : {"servicemonitors", "podmonitors", "probes"}) {
    std::string selector = kind == std::string("servicemonitors") ? "serviceMonitor"
                           : kind == std::string("podmonitors")   ? "podMonitor"
                                                                  : "probe";
    for (const auto& m : g.items(std::string("/apis/monitoring.coreos.com/v1/") + kind)) {
      std::string ns = field_text(m, "metadata.namespace");
      int picked = 0;
      for (const auto& mi : instances)
        picked += selects(mi.find("spec")->find(selector + "Selector"), m) &&
                  selects(mi.find("spec")->find(selector + "NamespaceSelector"), namespaces[ns]);
      INFO(field_text(m, "metadata.name"));
      CHECK(picked >= 1);  // every monitor is scraped by some instance
      std::string list = kind == std::string("podmonitors") ? "spec.podMetricsEndpoints" : "spec.endpoints";
      for (const char* ref : {"basicAuth.username.name", "basicAuth.password.name", "bearerTokenSecret.name"}) {
        std::string secret = first_item_text(m, list, ref);
        if (secret.empty()) continue;
        ++authenticated;
        CHECK(secrets.count(ns + "/" + secret));
      }
    }
  }
  CHECK(authenticated > 100);
  auto pod_monitors = g.items("/apis/monitoring.coreos.com/v1/podmonitors");
  for (const auto& pod : g.items("/api/v1/pods")) {
    bool matched = false;
    for (const auto& pm : pod_monitors)
      matched |= field_text(pm, "metadata.namespace") == field_text(pod, "metadata.namespace") &&
                 selects(pm.find("spec")->find("selector"), pod);
    CHECK(matched);
  }
}
