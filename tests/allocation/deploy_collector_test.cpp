// deploy/examples/otel-collector against the allocator as deploy/ ships it:
// collector pods labelled as the example's StatefulSet labels them, the
// allocator's config from deploy/target-allocator, and the URLs each of the
// example's two receiver configs makes a collector fetch (the
// target_allocator block: /scrape_configs, then every job's
// /jobs/<job>/targets?collector_id=<pod>; the http_sd_configs variant: its
// URL as written). Each way, the collectors between them get every target
// exactly once. The receiver's own field names are checked against the
// OpenTelemetry Collector's source by hand, not here (no collector runs).
#include <catch2/catch.hpp>

#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "../eventually.hpp"
#include "golden_util.hpp"
#include "http_fixtures.hpp"
#include "k8s/sim/loader.hpp"
#include "k8s/sim/server.hpp"
#include "model/parse.hpp"
#include "scratch.hpp"
#include "ta_runtime_fixture.hpp"
#include "tests/k8s/sim/sim_fixture.hpp"

using model::Value;
using testutil::at;

namespace {

const char* kNs = "observability";
const int kCollectorReplicas = 3;

// The documents of a deploy/ file, keyed "Kind/name".
std::map<std::string, Value> objects(const std::string& relative) {
  std::map<std::string, Value> out;
  const std::string path = testutil::source_path(relative);
  for (auto& doc : model::parse_documents(testutil::read_text(path), path))
    out[at(doc.value, "kind").as_string() + "/" + at(doc.value, "metadata.name").as_string()] = doc.value;
  return out;
}

// A ConfigMap key holding YAML, parsed.
Value config_file(const Value& config_map, const std::string& key) {
  const Value* text = config_map.find("data")->find(key);
  REQUIRE(text);
  return testutil::yaml(text->as_string());
}

std::string percent_escape(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s)
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~')
      out += static_cast<char>(c);
    else
      out += {'%', hex[c >> 4], hex[c & 15]};
  return out;
}

// Replaces the collector's ${env:POD_NAME} as the collector expands it.
std::string expand_pod_name(std::string s, const std::string& pod) {
  const std::string var = "${env:POD_NAME}";
  for (auto at = s.find(var); at != std::string::npos; at = s.find(var)) s.replace(at, var.size(), pod);
  return s;
}

struct Cluster {
  simtest::SimFixture sim;
  k8s::sim::Server api{sim.cluster, {}};
  std::set<std::string> targets;  // what the allocator must hand out

  explicit Cluster(const Value& collector_labels) {
    k8s::sim::load_manifests(sim.cluster, {"deploy/crds", "deploy/prometheus-operator-crds"});
    api.start();
    for (const char* ns : {kNs, "shop"})
      sim.create("namespaces", std::string(R"({"metadata": {"name": ")") + ns + "\"}}", "");
    for (int i = 0; i < kCollectorReplicas; ++i) {
      Value pod = model::parse_json(R"({"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "c",
        "image": "otel"}]}})");
      pod.set("metadata", Value::obj({{"name", "otel-collector-" + std::to_string(i)}, {"labels", collector_labels}}));
      add_pod(kNs, pod, "10.9.0." + std::to_string(i));
    }
    // Pods the config's kubernetes-pods job keeps (annotated) and drops.
    for (int i = 0; i < 8; ++i) {
      Value pod = model::parse_json(R"({"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "web",
        "image": "web", "ports": [{"name": "metrics", "containerPort": 9100}]}]}})");
      Value meta = Value::obj({{"name", "web-" + std::to_string(i)}});
      if (i < 6) meta.set("annotations", Value::obj({{"prometheus.io/scrape", "true"}}));
      pod.set("metadata", std::move(meta));
      add_pod("shop", pod, "10.1.0." + std::to_string(i));
      if (i < 6) targets.insert("10.1.0." + std::to_string(i) + ":9100");
    }
  }

  void add_pod(const std::string& ns, const Value& pod, const std::string& ip) {
    std::string name = at(pod, "metadata.name").as_string();
    sim.cluster.create(sim.type("", "pods"), ns, pod, {}, sim.warnings);
    Value next = sim.cluster.store().get(sim.type("", "pods"), ns, name)->value;
    next.set("status", model::parse_json(R"({"phase": "Running", "podIP": ")" + ip +
                                         R"(", "conditions": [{"type": "Ready", "status": "True"}]})"));
    sim.cluster.update(sim.type("", "pods"), ns, name, next, k8s::sim::Subresource::status, {}, sim.warnings);
  }
};

// GET `url` ("http://target-allocator/..." as written in the example) from
// the allocator on `port`.
std::string fetch(int port, const std::string& url) {
  const std::string host = "http://target-allocator";
  REQUIRE(url.rfind(host, 0) == 0);
  httplib::Client client("127.0.0.1", port);
  return http_test::get(client, url.substr(host.size()));
}

}  // namespace

TEST_CASE("the example collectors' receiver configs reach every target through the allocator",
          "[allocation][deploy][collector]") {
  auto example = objects("deploy/examples/otel-collector/collector.yaml");
  auto ta_objects = objects("deploy/target-allocator/20-config.yaml");
  auto ta_service = objects("deploy/target-allocator/40-service.yaml").at("Service/target-allocator");
  // The collectors reach the allocator's Service by its short name on the
  // default HTTP port (they share its namespace).
  REQUIRE(at(ta_service, "spec.ports").as_array().at(0).find("port")->as_int() == 80);
  const Value& sts = example.at("StatefulSet/otel-collector");
  CHECK(at(sts, "spec.replicas").as_int() == kCollectorReplicas);
  Cluster cluster(at(sts, "spec.template.metadata.labels"));
  const std::string ta_config =
      ta_objects.at("ConfigMap/target-allocator").find("data")->find("targetallocator.yaml")->as_string();
  testutil::TempDir dir("ta-collector");
  const std::string kubeconfig = (dir.path / "kubeconfig").string();
  std::ofstream(kubeconfig) << cluster.api.kubeconfig();
  ta_test::Runtime ta(ta_config, [&](actors::ta::RuntimeOptions& o) {
    o.kubeconfig_path = kubeconfig;
    o.collector_namespace = kNs;
  });
  const Value& config_map = example.at("ConfigMap/otel-collector");

  SECTION("collector.yaml: the prometheus receiver's target_allocator block") {
    Value receiver = at(config_file(config_map, "collector.yaml"), "receivers.prometheus.target_allocator");
    CHECK(at(receiver, "interval").as_string() == "30s");
    const std::string endpoint = at(receiver, "endpoint").as_string();
    auto collected = [&] {
      std::multiset<std::string> all;
      const std::set<std::string> jobs = http_test::job_names(fetch(ta.port(), endpoint + "/scrape_configs"));
      for (int i = 0; i < kCollectorReplicas; ++i) {
        std::string id =
            expand_pod_name(at(receiver, "collector_id").as_string(), "otel-collector-" + std::to_string(i));
        for (const std::string& job : jobs)
          for (const std::string& t :
               http_test::addresses(fetch(ta.port(), endpoint + "/jobs/" + percent_escape(job) +
                                                         "/targets?collector_id=" + percent_escape(id))))
            all.insert(t);
      }
      return all;
    };
    REQUIRE(testutil::eventually(
        [&] { return collected() == std::multiset<std::string>(cluster.targets.begin(), cluster.targets.end()); }));
  }

  SECTION("collector-http-sd.yaml: http_sd_configs with collector_id, relabeled as the allocator's job") {
    Value jobs = at(config_file(config_map, "collector-http-sd.yaml"), "receivers.prometheus.config.scrape_configs");
    Value allocator_jobs = at(testutil::yaml(ta_config), "config.scrape_configs");
    REQUIRE(jobs.as_array().size() == allocator_jobs.as_array().size());
    for (std::size_t j = 0; j < jobs.as_array().size(); ++j) {
      const Value& job = jobs.as_array()[j];
      INFO(at(job, "job_name").as_string());
      CHECK(at(job, "job_name") == at(allocator_jobs.as_array()[j], "job_name"));
      CHECK(at(job, "relabel_configs") == at(allocator_jobs.as_array()[j], "relabel_configs"));
      const std::string url = at(job, "http_sd_configs").as_array().at(0).find("url")->as_string();
      auto collected = [&] {
        std::multiset<std::string> all;
        for (int i = 0; i < kCollectorReplicas; ++i)
          for (const std::string& t :
               http_test::addresses(fetch(ta.port(), expand_pod_name(url, "otel-collector-" + std::to_string(i)))))
            all.insert(t);
        return all;
      };
      REQUIRE(testutil::eventually(
          [&] { return collected() == std::multiset<std::string>(cluster.targets.begin(), cluster.targets.end()); }));
    }
  }
}
