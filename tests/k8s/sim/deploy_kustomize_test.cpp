// deploy/ as a user installs it, with the real kubectl against simcluster:
// the generated bundle, every overlay (`kubectl apply -k`), prometheus-
// operator's CRDs (`kubectl create -k`, as they are too large for
// client-side apply), the examples and a user's own overlay that moves the
// namespace and the image. Also: the default install leaves a newer
// prometheus-operator's CRDs alone, and `kubectl explain` describes our
// kinds. (deploy/generate-bundle.sh --check, ctest deploy_bundle_up_to_date,
// keeps the bundle equal to what the overlay renders.)
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "golden_util.hpp"
#include "k8s/sim/selector.hpp"
#include "kubectl_env.hpp"
#include "model/object_fields.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

using k8s::sim::field_text;
using model::Value;
using testutil::KubectlEnv;

namespace {

std::string deploy(const std::string& sub) {
  return testutil::source_path("deploy/" + sub);
}

// Runs kubectl, requiring success without warnings; returns stdout.
std::string ok(KubectlEnv& env, std::vector<std::string> args) {
  auto r = env.kubectl(args);
  INFO("kubectl " << args.front() << " " << args.back());
  INFO(r.out);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());  // no warnings (unknown fields, deprecations) either
  return r.out;
}

Value get_json(KubectlEnv& env, std::vector<std::string> args) {
  args.insert(args.begin(), "get");
  args.insert(args.end(), {"-o", "json"});
  return model::parse_json(ok(env, args));
}

std::set<std::string> names(const Value& list) {
  std::set<std::string> out;
  for (const Value& item : list.find("items")->as_array()) out.insert(field_text(item, "metadata.name"));
  return out;
}

const std::set<std::string> kOurCrds = {
    "grafanaagents.monitoring.grafana.com",      "metricsinstances.monitoring.grafana.com",
    "logsinstances.monitoring.grafana.com",      "podlogs.monitoring.grafana.com",
    "integrations.monitoring.grafana.com",       "metricsintegrations.monitoring.grafana.com",
    "integrationmonitors.monitoring.grafana.com"};
const std::set<std::string> kUpstreamCrds = {"servicemonitors.monitoring.coreos.com",
                                             "podmonitors.monitoring.coreos.com", "probes.monitoring.coreos.com",
                                             "scrapeconfigs.monitoring.coreos.com"};

std::string image_of(const Value& deployment) {
  return field_text(deployment.find("spec")->find("template")->find("spec")->find("containers")->as_array().at(0),
                    "image");
}

// Every line of `kubectl apply` output says "unchanged".
bool all_unchanged(const std::string& out) {
  std::istringstream lines(out);
  std::size_t n = 0;
  for (std::string line; std::getline(lines, line); ++n)
    if (line.find(" unchanged") == std::string::npos) return false;
  return n > 0;
}

}  // namespace

TEST_CASE("kubectl installs the bundle, every overlay and the examples", "[k8s][kubectl][deploy][kustomize]") {
  KubectlEnv env;
  // The documented order: the bundle, prometheus-operator's CRDs (no
  // prometheus-operator here), then the optional parts.
  ok(env, {"apply", "-f", deploy("bundle.yaml")});
  ok(env, {"create", "-k", deploy("prometheus-operator-crds")});
  // The overlay the bundle is generated from changes nothing.
  CHECK(all_unchanged(ok(env, {"apply", "-k", deploy("overlays/default")})));
  ok(env, {"apply", "-k", deploy("overlays/target-allocator")});
  ok(env, {"apply", "-k", deploy("examples")});
  ok(env, {"apply", "-k", deploy("examples/otel-collector")});

  std::set<std::string> crds = names(get_json(env, {"crd"}));
  for (const auto& set : {kOurCrds, kUpstreamCrds})
    for (const auto& crd : set) CHECK(crds.count(crd));

  const std::string image = "agent-operator:" AO_EXPECTED_VERSION;
  CHECK(image_of(get_json(env, {"deployment", "agent-operator", "-n", "agent-operator"})) == image);
  CHECK(image_of(get_json(env, {"deployment", "target-allocator", "-n", "observability"})) == image);
  get_json(env, {"service", "agent-operator-metrics", "-n", "agent-operator"});
  get_json(env, {"configmap", "target-allocator", "-n", "observability"});

  // The examples: the hierarchy and the agents' identity, which the
  // GrafanaAgent's pods run as.
  Value agent = get_json(env, {"grafanaagent", "grafana-agent", "-n", "monitoring"});
  std::string sa = field_text(agent, "spec.serviceAccountName");
  REQUIRE(sa == "grafana-agent");
  get_json(env, {"serviceaccount", sa, "-n", "monitoring"});
  get_json(env, {"clusterrole", "grafana-agent"});
  Value binding = get_json(env, {"clusterrolebinding", "grafana-agent"});
  CHECK(field_text(binding, "roleRef.name") == "grafana-agent");
  const Value& subject = binding.find("subjects")->as_array().at(0);
  CHECK(field_text(subject, "name") == sa);
  CHECK(field_text(subject, "namespace") == "monitoring");
  CHECK(names(get_json(env, {"servicemonitors", "-A"})).count("checkout"));

  // The collectors sit where the allocator selects them: its namespace, with
  // its collector label.
  Value sts = get_json(env, {"statefulset", "otel-collector", "-n", "observability"});
  CHECK(model::string_at(sts, {"spec", "template", "metadata", "labels", "app.kubernetes.io/component"}) ==
        "opentelemetry-collector");

  // The documented uninstall removes ours and leaves prometheus-operator's.
  ok(env, {"delete", "--ignore-not-found", "-k", deploy("examples")});
  ok(env, {"delete", "--ignore-not-found", "-f", deploy("bundle.yaml")});
  crds = names(get_json(env, {"crd"}));
  CHECK(crds == kUpstreamCrds);
  CHECK(env.kubectl({"get", "namespace", "agent-operator"}).code != 0);
  CHECK(env.kubectl({"get", "clusterrole", "agent-operator"}).code != 0);
}

TEST_CASE("prometheus-operator's CRDs install with create, not client-side apply",
          "[k8s][kubectl][deploy][kustomize]") {
  SECTION("client-side apply is refused for the ScrapeConfig CRD's annotation, as a real API server does") {
    KubectlEnv env;
    auto r = env.kubectl({"apply", "-k", deploy("overlays/with-prometheus-operator-crds")});
    CHECK(r.code != 0);
    CHECK(r.err.find("metadata.annotations: Too long: must have at most 262144 bytes") != std::string::npos);
  }
  SECTION("create installs the whole overlay") {
    KubectlEnv env;
    ok(env, {"create", "-k", deploy("overlays/with-prometheus-operator-crds")});
    std::set<std::string> crds = names(get_json(env, {"crd"}));
    CHECK(crds.size() == kOurCrds.size() + kUpstreamCrds.size());
    Value sm = get_json(env, {"crd", "servicemonitors.monitoring.coreos.com"});
    CHECK(model::string_at(sm, {"metadata", "annotations", "operator.prometheus.io/version"}) == "0.93.0");
    // components/monitor-bindings: the bindings' enums admit our entries too.
    for (const char* crd : {"servicemonitors", "podmonitors", "probes"}) {
      Value got = get_json(env, {"crd", std::string(crd) + ".monitoring.coreos.com"});
      const Value* item = model::find_path(
          got.find("spec")->find("versions")->as_array().at(0),
          {"schema", "openAPIV3Schema", "properties", "status", "properties", "bindings", "items", "properties"});
      REQUIRE(item);
      INFO(crd);
      CHECK(model::to_json(*item->find("group")->find("enum")) ==
            R"(["monitoring.coreos.com","monitoring.grafana.com"])");
      CHECK(model::to_json(*item->find("resource")->find("enum")) ==
            R"(["prometheuses","prometheusagents","thanosrulers","alertmanagers","grafanaagents"])");
    }
    get_json(env, {"deployment", "agent-operator", "-n", "agent-operator"});
    // create refuses what exists: a second run cannot replace these CRDs.
    auto again = env.kubectl({"create", "-k", deploy("prometheus-operator-crds")});
    CHECK(again.code != 0);
    CHECK(again.err.find("AlreadyExists") != std::string::npos);
  }
}

TEST_CASE("the default install leaves a running prometheus-operator's CRDs alone",
          "[k8s][kubectl][deploy][kustomize]") {
  KubectlEnv env;
  // A newer prometheus-operator's ServiceMonitor CRD, with a field ours would
  // not know.
  std::string newer =
      testutil::read_text(deploy("prometheus-operator-crds/monitoring.coreos.com_servicemonitors.yaml"));
  const std::string version = "operator.prometheus.io/version: 0.93.0";
  REQUIRE(newer.find(version) != std::string::npos);
  newer.replace(newer.find(version), version.size(), "operator.prometheus.io/version: 9.99.0");
  ok(env, {"create", "-f", env.write_file("newer-servicemonitors.yaml", newer)});

  ok(env, {"apply", "-f", deploy("bundle.yaml")});
  ok(env, {"apply", "-k", deploy("overlays/default")});
  Value sm = get_json(env, {"crd", "servicemonitors.monitoring.coreos.com"});
  CHECK(model::string_at(sm, {"metadata", "annotations", "operator.prometheus.io/version"}) == "9.99.0");
  // Neither does the bundle hold any monitoring.coreos.com CRD.
  for (auto& doc : model::parse_documents(testutil::read_text(deploy("bundle.yaml")), "bundle.yaml"))
    if (field_text(doc.value, "kind") == "CustomResourceDefinition")
      CHECK(kOurCrds.count(field_text(doc.value, "metadata.name")));
}

TEST_CASE("a user overlay moves the operator to another namespace and registry", "[k8s][kubectl][deploy][kustomize]") {
  KubectlEnv env;
  std::string dir = std::filesystem::path(env.write_file("Kustomization", "")).parent_path().string();
  // kustomize refuses absolute paths to other kustomizations.
  std::string base = std::filesystem::relative(deploy("overlays/default"), dir).string();
  env.write_file("Kustomization",
                 "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                 "namespace: monitoring-system\nresources:\n- " +
                     base + "\nimages:\n- name: agent-operator\n  newName: registry.example.com/agent-operator\n");
  ok(env, {"apply", "-k", dir});
  get_json(env, {"namespace", "monitoring-system"});
  CHECK(env.kubectl({"get", "namespace", "agent-operator"}).code != 0);
  Value d = get_json(env, {"deployment", "agent-operator", "-n", "monitoring-system"});
  CHECK(image_of(d) == "registry.example.com/agent-operator:" AO_EXPECTED_VERSION);
  Value crb = get_json(env, {"clusterrolebinding", "agent-operator"});
  CHECK(field_text(crb.find("subjects")->as_array().at(0), "namespace") == "monitoring-system");
  get_json(env, {"role", "agent-operator-leader-election", "-n", "monitoring-system"});
  get_json(env, {"rolebinding", "agent-operator-leader-election", "-n", "monitoring-system"});
}

TEST_CASE("kubectl explain describes our kinds", "[k8s][kubectl][deploy][explain]") {
  KubectlEnv env;
  ok(env, {"apply", "-f", deploy("bundle.yaml")});
  std::string spec = ok(env, {"explain", "grafanaagent.spec"});
  CHECK(spec.find("KIND:       GrafanaAgent") != std::string::npos);
  CHECK(spec.find("<no description>") == std::string::npos);
  CHECK(spec.find("serviceAccountName\t<string>") != std::string::npos);
  std::string shards = ok(env, {"explain", "grafanaagent.spec.metrics.shards"});
  CHECK(shards.find("StatefulSets the scrape targets are split over") != std::string::npos);
  for (const char* kind : {"metricsinstance.spec", "logsinstance.spec.clients", "podlogs.spec.pipelineStages",
                           "integration.spec", "metricsintegration.spec", "integrationmonitor.spec"}) {
    INFO(kind);
    CHECK(ok(env, {"explain", kind}).find("<no description>") == std::string::npos);
  }
}
