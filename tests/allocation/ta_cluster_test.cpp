// The target allocator (in-process) against an in-process simcluster: collectors
// discovered from pods (collector_selector, readiness from the Ready
// condition) and jobs rendered from ServiceMonitors (prometheus_cr) whose
// kubernetes_sd targets are allocated and served.
#include <catch2/catch.hpp>

#include "../eventually.hpp"
#include "http_fixtures.hpp"
#include "k8s/sim/loader.hpp"
#include "k8s/sim/server.hpp"
#include "ta_runtime_fixture.hpp"
#include "tests/k8s/sim/sim_fixture.hpp"
#include "tests/scratch.hpp"

using namespace http_test;

namespace {

using testutil::eventually;

// The allocator in-process, watching `api` through a kubeconfig file.
struct Allocator {
  std::string kubeconfig;
  std::unique_ptr<ta_test::Runtime> rt;
  int port = -1;

  Allocator(k8s::sim::Server& api, const std::string& config_text,
            const std::function<void(actors::ta::RuntimeOptions&)>& tweak = {},
            const std::string& kubeconfig_text = "") {
    kubeconfig = testutil::write_temp_file("ta-cluster-kubeconfig",
                                           kubeconfig_text.empty() ? api.kubeconfig() : kubeconfig_text);
    rt = std::make_unique<ta_test::Runtime>(config_text, [&](actors::ta::RuntimeOptions& o) {
      o.kubeconfig_path = kubeconfig;
      if (tweak) tweak(o);
    });
    port = rt->port();
  }
  ~Allocator() {
    rt.reset();
    std::filesystem::remove(kubeconfig);
  }
  std::string get(const std::string& path) {
    httplib::Client client("127.0.0.1", port);
    return http_test::get(client, path);
  }
  std::set<std::string> share(const std::string& job, const std::string& collector) {
    return addresses(get("/jobs/" + job + "/targets?collector_id=" + collector));
  }
  // Collector names that /jobs/<job>/targets lists.
  std::set<std::string> collectors(const std::string& job) {
    std::set<std::string> out;
    const auto doc = model::parse_json(get("/jobs/" + job + "/targets"));
    for (const auto& [name, entry] : doc.as_object()) out.insert(name);
    return out;
  }
};

std::string pod(const std::string& name, const std::string& app, const std::string& node) {
  return R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": ")" + name + R"(", "labels": {"app": ")" + app +
         R"("}}, "spec": {"nodeName": ")" + node + R"(", "containers": [{"name": "otel", "image": "otel"}]}})";
}

void set_ready(simtest::SimFixture& sim, const std::string& name, const char* ready) {
  auto current = sim.cluster.store().get(sim.type("", "pods"), "default", name);
  REQUIRE(current);
  model::Value next = current->value;
  next.set("status",
           model::parse_json(std::string(R"({"conditions": [{"type": "Ready", "status": ")") + ready + R"("}]})"));
  sim.cluster.update(sim.type("", "pods"), "default", name, next, k8s::sim::Subresource::status, {}, sim.warnings);
}

std::string static_job(int targets) {
  std::string list;
  for (int i = 0; i < targets; ++i) list += (i ? ", " : "") + std::string("\"10.1.0.") + std::to_string(i) + ":80\"";
  return "    - job_name: static\n      static_configs: [{targets: [" + list + "]}]\n";
}

}  // namespace

TEST_CASE("target-allocator discovers collectors from pods and follows their readiness", "[allocation][cluster]") {
  simtest::SimFixture sim;
  k8s::sim::Server api(sim.cluster, {});
  api.start();
  sim.create("pods", pod("col-0", "col", "n1"));
  sim.create("pods", pod("col-1", "col", "n2"));
  sim.create("pods", pod("web-0", "web", "n1"));  // not selected
  set_ready(sim, "col-0", "True");
  set_ready(sim, "web-0", "True");
  Allocator ta(api,
               "allocation_strategy: consistent-hashing\n"
               "collector_selector: {matchlabels: {app: col}, matchexpressions: [{key: app, operator: Exists}]}\n"
               "collectors: [static-ignored]\n"
               "config:\n  scrape_configs:\n" +
                   static_job(20),
               [](actors::ta::RuntimeOptions& o) { o.collector_namespace = "default"; });

  // Only the Ready selected pod gets targets; the unready one is known.
  REQUIRE(eventually([&] { return ta.share("static", "col-0").size() == 20; }));
  CHECK(ta.collectors("static") == std::set<std::string>{"col-0", "col-1"});
  CHECK(ta.share("static", "col-1").empty());
  CHECK(ta.share("static", "web-0").empty());
  CHECK(ta.share("static", "static-ignored").empty());

  // col-1 turns Ready: the targets are shared without duplicates.
  set_ready(sim, "col-1", "True");
  REQUIRE(eventually([&] { return !ta.share("static", "col-1").empty(); }));
  auto a = ta.share("static", "col-0"), b = ta.share("static", "col-1");
  CHECK(a.size() + b.size() == 20);
  CHECK_FALSE(a.empty());
  for (const auto& t : a) CHECK(b.count(t) == 0);

  // col-0 loses readiness, then is deleted: col-1 takes everything.
  set_ready(sim, "col-0", "False");
  REQUIRE(eventually([&] { return ta.share("static", "col-1").size() == 20; }));
  CHECK(ta.share("static", "col-0").empty());
  sim.cluster.remove(sim.type("", "pods"), "default", "col-0", {});
  CHECK(eventually([&] { return ta.collectors("static") == std::set<std::string>{"col-1"}; }));
  CHECK(ta.share("static", "col-1").size() == 20);
}

TEST_CASE("target-allocator --kubeconfig-path authenticates with an exec credential plugin", "[allocation][cluster]") {
  simtest::SimFixture sim;
  k8s::sim::ServerOptions so;
  so.token = "ta-exec-token";
  k8s::sim::Server api(sim.cluster, so);
  api.start();
  sim.create("pods", pod("col-0", "col", "n1"));
  set_ready(sim, "col-0", "True");
  const auto dir = std::filesystem::temp_directory_path() / ("ta-exec-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string plugin = (dir / "plugin.sh").string();
  std::ofstream(plugin) << "#!/bin/sh\necho run >> " << (dir / "runs").string()
                        << "\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
                           "\"status\":{\"token\":\"ta-exec-token\"}}'\n";
  std::filesystem::permissions(plugin, std::filesystem::perms::owner_all);
  const std::string kubeconfig =
      "current-context: c\ncontexts: [{name: c, context: {cluster: c, user: u}}]\n"
      "clusters: [{name: c, cluster: {server: \"" +
      api.url() +
      "\"}}]\nusers: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, "
      "interactiveMode: Never, command: \"" +
      plugin + "\"}}}]\n";
  {
    Allocator ta(
        api,
        "allocation_strategy: consistent-hashing\ncollector_selector: {matchlabels: {app: col}}\n"
        "config:\n  scrape_configs:\n" +
            static_job(5),
        [](actors::ta::RuntimeOptions& o) { o.collector_namespace = "default"; }, kubeconfig);
    CHECK(eventually([&] { return ta.share("static", "col-0").size() == 5; }));
  }
  std::ifstream runs((dir / "runs").string());
  std::string all((std::istreambuf_iterator<char>(runs)), {});
  CHECK(all == "run\n");  // one run at start-up, shared by every client
  std::filesystem::remove_all(dir);
}

namespace {

std::string endpoints(const std::string& name, const std::vector<std::string>& ips) {
  std::string addresses;
  for (const auto& ip : ips) addresses += (addresses.empty() ? "" : ", ") + std::string(R"({"ip": ")") + ip + "\"}";
  return R"({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": ")" + name + R"("},
    "subsets": [{"addresses": [)" +
         addresses + R"(], "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]}]})";
}

std::string service_monitor(const std::string& name, const std::string& team) {
  return R"({"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor",
    "metadata": {"name": ")" +
         name + R"(", "labels": {"team": ")" + team + R"("}},
    "spec": {"selector": {"matchLabels": {"app": "web"}}, "endpoints": [{"port": "http"}]}})";
}

}  // namespace

TEST_CASE("target-allocator serves jobs rendered from selected ServiceMonitors", "[allocation][cluster]") {
  simtest::SimFixture sim;
  k8s::sim::load_manifests(sim.cluster,
                           {"deploy/crds", "deploy/prometheus-operator-crds"});  // tests run from the source tree
  k8s::sim::Server api(sim.cluster, {});
  api.start();
  sim.create("services",
             R"({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {"ports": [{"name": "http", "port": 8080}]}})");
  sim.create("endpoints", endpoints("web", {"10.0.0.1", "10.0.0.2"}));
  sim.create("servicemonitors", service_monitor("web", "a"), "default", "monitoring.coreos.com");
  sim.create("servicemonitors", service_monitor("skipped", "b"), "default", "monitoring.coreos.com");
  // Needs a Secret that does not exist: left out, nothing breaks.
  sim.create("servicemonitors", R"({"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor",
    "metadata": {"name": "auth", "labels": {"team": "a"}},
    "spec": {"selector": {}, "endpoints": [{"port": "http",
      "basicAuth": {"username": {"name": "creds", "key": "u"}, "password": {"name": "creds", "key": "p"}}}]}})",
             "default", "monitoring.coreos.com");
  Allocator ta(api,
               "allocation_strategy: consistent-hashing\n"
               "filter_strategy: relabel-config\n"
               "collectors: [c1, c2]\n"
               "prometheus_cr: {enabled: true, service_monitor_selector: {matchLabels: {team: a}}}\n"
               "config:\n  scrape_configs:\n" +
                   static_job(2));
  const std::string job = "serviceMonitor%2Fdefault%2Fweb%2F0";
  auto all_targets = [&] {
    auto a = ta.share(job, "c1"), b = ta.share(job, "c2");
    a.insert(b.begin(), b.end());
    return a;
  };

  // The selected monitor's job is served next to the static one; the
  // unselected one and the one needing a Secret are not.
  REQUIRE(eventually([&] { return job_names(ta.get("/scrape_configs")).count("serviceMonitor/default/web/0") == 1; }));
  CHECK(job_names(ta.get("/scrape_configs")) == std::set<std::string>{"static", "serviceMonitor/default/web/0"});
  auto served = model::parse_json(ta.get("/scrape_configs"));
  CHECK(served.find("serviceMonitor/default/web/0")->find("kubernetes_sd_configs")->as_array().size() == 1);
  // Its endpoints become targets, split between the collectors.
  REQUIRE(eventually([&] { return all_targets() == std::set<std::string>{"10.0.0.1:8080", "10.0.0.2:8080"}; }));
  CHECK(ta.share(job, "c1").size() + ta.share(job, "c2").size() == 2);
  CHECK(ta.share("static", "c1").size() + ta.share("static", "c2").size() == 2);

  // Endpoint changes flow through; relabeling the other monitor selects it.
  sim.cluster.update(sim.type("", "endpoints"), "default", "web",
                     model::parse_json(endpoints("web", {"10.0.0.1", "10.0.0.2", "10.0.0.3"})),
                     k8s::sim::Subresource::main, {}, sim.warnings);
  CHECK(eventually([&] { return all_targets().size() == 3; }));
  sim.cluster.update(sim.type("monitoring.coreos.com", "servicemonitors"), "default", "skipped",
                     model::parse_json(service_monitor("skipped", "a")), k8s::sim::Subresource::main, {}, sim.warnings);
  CHECK(eventually([&] {
    return job_names(ta.get("/scrape_configs")) ==
           std::set<std::string>{"static", "serviceMonitor/default/web/0", "serviceMonitor/default/skipped/0"};
  }));
  CHECK(eventually([&] {
    return ta.share("serviceMonitor%2Fdefault%2Fskipped%2F0", "c1").size() +
               ta.share("serviceMonitor%2Fdefault%2Fskipped%2F0", "c2").size() ==
           3;
  }));

  // Deleting the monitor removes its job and its targets.
  sim.cluster.remove(sim.type("monitoring.coreos.com", "servicemonitors"), "default", "web", {});
  CHECK(eventually([&] { return job_names(ta.get("/scrape_configs")).count("serviceMonitor/default/web/0") == 0; }));
  CHECK(eventually([&] { return all_targets().empty(); }));
}

namespace {

std::string secret(const std::string& user_b64) {
  return R"({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "creds"}, "type": "Opaque",
    "data": {"u": ")" +
         user_b64 + R"(", "p": "czNjcmV0"}})";
}

// The basic_auth block /scrape_configs serves for `job`, null when absent.
model::Value served_basic_auth(Allocator& ta, const std::string& job) {
  const auto doc = model::parse_json(ta.get("/scrape_configs"));
  const model::Value* j = doc.find(job);
  const model::Value* auth = j ? j->find("basic_auth") : nullptr;
  return auth ? *auth : model::Value();
}

}  // namespace

TEST_CASE("target-allocator renders ServiceMonitor credentials from watched Secrets", "[allocation][cluster]") {
  simtest::SimFixture sim;
  k8s::sim::load_manifests(sim.cluster, {"deploy/crds", "deploy/prometheus-operator-crds"});
  k8s::sim::Server api(sim.cluster, {});
  api.start();
  sim.create("servicemonitors", R"({"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor",
    "metadata": {"name": "auth"}, "spec": {"selector": {}, "endpoints": [{"port": "http",
      "basicAuth": {"username": {"name": "creds", "key": "u"}, "password": {"name": "creds", "key": "p"}}}]}})",
             "default", "monitoring.coreos.com");
  Allocator ta(api, "collectors: [c1]\nprometheus_cr: {enabled: true}\nconfig:\n  scrape_configs:\n" + static_job(1));
  const std::string job = "serviceMonitor/default/auth/0";
  REQUIRE(eventually([&] { return job_names(ta.get("/scrape_configs")).count("static") == 1; }));
  CHECK(job_names(ta.get("/scrape_configs")).count(job) == 0);

  // The Secret appears: the job is served, its password masked.
  sim.create("secrets", secret("YWRtaW4="));
  REQUIRE(eventually([&] { return job_names(ta.get("/scrape_configs")).count(job) == 1; }));
  auto auth = served_basic_auth(ta, job);
  REQUIRE(auth.is_object());
  CHECK(auth.find("username")->as_string() == "admin");
  CHECK(auth.find("password")->as_string() == "<secret>");
  // Rotation reaches the served config; deletion takes the job out again.
  sim.cluster.update(sim.type("", "secrets"), "default", "creds", model::parse_json(secret("cm9vdA==")),
                     k8s::sim::Subresource::main, {}, sim.warnings);
  CHECK(eventually([&] {
    auto a = served_basic_auth(ta, job);
    return a.is_object() && a.find("username")->as_string() == "root";
  }));
  sim.cluster.remove(sim.type("", "secrets"), "default", "creds", {});
  CHECK(eventually([&] { return job_names(ta.get("/scrape_configs")).count(job) == 0; }));
}

TEST_CASE("two target-allocator replicas with --leader-elect: one is Ready and the standby takes over",
          "[allocation][cluster][leader]") {
  simtest::SimFixture sim;
  k8s::sim::Server api(sim.cluster, {});
  api.start();
  const std::string config =
      "allocation_strategy: consistent-hashing\ncollectors: [c1]\n"
      "config:\n  scrape_configs:\n" +
      static_job(4);
  auto replica = [&](const std::string& id) {
    return std::make_unique<Allocator>(api, config, [&](actors::ta::RuntimeOptions& o) {
      o.leader_elect = true;
      o.lease = {id,
                 "default",
                 "target-allocator",
                 std::chrono::seconds(1),
                 std::chrono::milliseconds(700),
                 std::chrono::milliseconds(100)};
    });
  };
  auto ready = [](Allocator& ta) {
    httplib::Client client("127.0.0.1", ta.port);
    auto res = client.Get("/readyz");
    return res && res->status == 200;
  };
  auto first = replica("first");
  REQUIRE(eventually([&] { return ready(*first); }));
  auto second = replica("second");
  // Both allocate; only the leader is Ready.
  REQUIRE(eventually([&] { return second->share("static", "c1").size() == 4; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(ready(*first));
  CHECK_FALSE(ready(*second));
  first.reset();  // stop(): the Lease is handed back
  const auto stopped = std::chrono::steady_clock::now();
  REQUIRE(eventually([&] { return ready(*second); }));
  // Lease duration plus a retry period, with slack for a loaded machine.
  CHECK(std::chrono::steady_clock::now() - stopped < std::chrono::seconds(5));
  auto lease = sim.cluster.store().get(sim.type("coordination.k8s.io", "leases"), "default", "target-allocator");
  REQUIRE(lease);
  CHECK(lease->value.find("spec")->find("holderIdentity")->as_string() == "second");
}

namespace {

// A ScrapeConfig with one static target and Endpoints discovery in
// "default"; `scrape_class` empty = the default class.
std::string scrape_config(const std::string& name, const std::string& scrape_class) {
  std::string cls = scrape_class.empty() ? "" : R"("scrapeClass": ")" + scrape_class + R"(", )";
  return R"({"apiVersion": "monitoring.coreos.com/v1alpha1", "kind": "ScrapeConfig", "metadata": {"name": ")" + name +
         R"("}, "spec": {)" + cls + R"("staticConfigs": [{"targets": ["10.2.0.1:9100"]}],
      "kubernetesSDConfigs": [{"role": "Endpoints", "namespaces": {"names": ["default"]}}]}})";
}

}  // namespace

TEST_CASE("target-allocator serves ScrapeConfig jobs with their scrape class", "[allocation][cluster]") {
  simtest::SimFixture sim;
  k8s::sim::load_manifests(sim.cluster, {"deploy/crds", "deploy/prometheus-operator-crds"});
  k8s::sim::Server api(sim.cluster, {});
  api.start();
  sim.create("services",
             R"({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {"ports": [{"name": "http", "port": 8080}]}})");
  sim.create("endpoints", endpoints("web", {"10.0.0.1"}));
  sim.create("scrapeconfigs", scrape_config("nodes", ""), "default", "monitoring.coreos.com");
  sim.create("scrapeconfigs", scrape_config("plain", "plain"), "default", "monitoring.coreos.com");
  // The default class drops the 10.0.* targets: the relabel-config filter
  // runs a class's rules with the job's own.
  Allocator ta(api,
               "collectors: [c1]\nfilter_strategy: relabel-config\n"
               "prometheus_cr:\n  enabled: true\n  scrape_classes:\n"
               "  - name: east\n    default: true\n    relabelings:\n"
               "    - {targetLabel: cluster, replacement: east}\n"
               "    - {sourceLabels: [__address__], regex: '10\\.0\\..*', action: drop}\n"
               "  - {name: plain}\n"
               "config:\n  scrape_configs:\n" +
                   static_job(1));
  // With the plain class both the static target and the discovered
  // endpoint are served; with the default class the endpoint is dropped.
  REQUIRE(eventually([&] {
    return ta.share("scrapeConfig%2Fdefault%2Fplain", "c1") == std::set<std::string>{"10.2.0.1:9100", "10.0.0.1:8080"};
  }));
  CHECK(ta.share("scrapeConfig%2Fdefault%2Fnodes", "c1") == std::set<std::string>{"10.2.0.1:9100"});
  const auto served = model::parse_json(ta.get("/scrape_configs"));
  const model::Value* rendered = served.find("scrapeConfig/default/nodes");
  REQUIRE(rendered);
  CHECK(rendered->find("relabel_configs")->as_array().at(1).find("target_label")->as_string() == "cluster");
  CHECK(rendered->find("kubernetes_sd_configs")->as_array().at(0).find("role")->as_string() == "endpoints");
  // Deleting it removes the job.
  sim.cluster.remove(sim.type("monitoring.coreos.com", "scrapeconfigs"), "default", "nodes", {});
  CHECK(eventually([&] { return job_names(ta.get("/scrape_configs")).count("scrapeConfig/default/nodes") == 0; }));
}
