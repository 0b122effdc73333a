// Applies our own CRDs (deploy/crds) and prometheus-operator's
// (deploy/prometheus-operator-crds) to simcluster with the real kubectl,
// then every example manifest, upstream's and ours.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "golden_util.hpp"
#include "kubectl_env.hpp"
#include "model/parse.hpp"

using testutil::KubectlEnv;
using testutil::yaml_files;

TEST_CASE("kubectl applies deploy/crds and every example manifest against them", "[k8s][kubectl][crd]") {
  KubectlEnv env;
  // `create`, as deploy/README.md says for prometheus-operator's CRDs:
  // upstream's ScrapeConfig CRD is shipped unchanged, and client-side apply
  // would copy all of it into an annotation.
  for (const char* dir : {"deploy/crds", "deploy/prometheus-operator-crds"}) {
    auto crds = env.kubectl({"create", "-f", testutil::source_path(dir)});
    INFO(crds.err);
    REQUIRE(crds.code == 0);
  }
  const std::string scrape_configs =
      testutil::source_path("deploy/prometheus-operator-crds/monitoring.coreos.com_scrapeconfigs.yaml");
  std::vector<std::string> crd_files = yaml_files(testutil::source_path("deploy/crds"));
  for (const auto& f : yaml_files(testutil::source_path("deploy/prometheus-operator-crds"))) crd_files.push_back(f);
  for (const auto& file : crd_files) {
    INFO(file);
    auto again = env.kubectl({"apply", "-f", file});
    if (file != scrape_configs) {
      CHECK(again.code == 0);  // the others still work with client-side apply
      continue;
    }
    // As a real API server does: the last-applied annotation is over 256 KiB.
    CHECK(again.code != 0);
    CHECK(again.err.find("metadata.annotations: Too long: must have at most 262144 bytes") != std::string::npos);
  }
  REQUIRE(env.kubectl({"apply", "-f", "-"}, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: operator\n").code ==
          0);

  std::vector<std::string> files = yaml_files(testutil::source_path("deploy/examples"));
  for (const auto& f : yaml_files(testutil::reference_path("examples"))) files.push_back(f);
  for (const auto& file : files) {
    INFO(file);
    auto r = env.kubectl({"apply", "-f", file});
    INFO(r.err);
    REQUIRE(r.code == 0);
    REQUIRE(r.err.empty());  // no warnings (unknown fields) either
  }

  for (const char* plural :
       {"grafanaagents.monitoring.grafana.com", "metricsinstances.monitoring.grafana.com",
        "logsinstances.monitoring.grafana.com", "podlogs.monitoring.grafana.com", "integrations.monitoring.grafana.com",
        "servicemonitors.monitoring.coreos.com", "podmonitors.monitoring.coreos.com", "probes.monitoring.coreos.com",
        "scrapeconfigs.monitoring.coreos.com"}) {
    INFO(plural);
    auto r = env.kubectl({"get", plural, "-A", "-o", "json"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(model::parse_json(r.out).find("items"));
  }

  SECTION("ScrapeConfigs are served and checked against upstream's schema") {
    auto ok = env.kubectl({"apply", "-f", "-"}, R"(apiVersion: monitoring.coreos.com/v1alpha1
kind: ScrapeConfig
metadata: {name: nodes, namespace: operator}
spec:
  scrapeClass: east
  staticConfigs: [{targets: ["10.0.0.1:9100"], labels: {env: prod}}]
  kubernetesSDConfigs: [{role: Pod, namespaces: {ownNamespace: true}}]
)");
    INFO(ok.err);
    CHECK(ok.code == 0);
    CHECK(env.kubectl({"get", "scrapeconfig", "nodes", "-n", "operator"}).code == 0);
    auto bad = env.kubectl({"apply", "-f", "-"},
                           "apiVersion: monitoring.coreos.com/v1alpha1\nkind: ScrapeConfig\nmetadata: {name: bad, "
                           "namespace: operator}\nspec: {kubernetesSDConfigs: [{role: Pods}]}\n");
    CHECK(bad.code != 0);
  }

  SECTION("the GrafanaAgent status subresource and printer columns work") {
    auto agents = model::parse_json(env.kubectl({"get", "grafanaagents", "-A", "-o", "json"}).out);
    REQUIRE(!agents.find("items")->as_array().empty());
    auto wide = env.kubectl({"get", "grafanaagents", "-A"});
    REQUIRE(wide.code == 0);
    CHECK(wide.out.find("RECONCILED") != std::string::npos);
    auto bad = env.kubectl({"apply", "-f", "-"},
                           "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: bad\n"
                           "spec:\n  selector: {}\n  endpoints:\n  - port: web\n    scheme: gopher\n");
    CHECK(bad.code != 0);
  }
}
