// shardingStrategy: node end to end (issue 19): the controller renders the
// metrics DaemonSet, the test creates its pods as the DaemonSet controller
// would (one per Node, Ready), and the operator's allocation, watching
// those pods as its collectors, serves each pod the endpoint addresses on
// its own Node, with the Node-less ones (external addresses, a Probe's
// static URLs) spread over the pods. Then a real Prometheus per pod, given
// the rendered job, ends with hashmod's targets and final labels, each pod
// only its own Node's.
#include <httplib.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "../scratch.hpp"
#include "eventually.hpp"
#include "model/object_fields.hpp"
#include "model/parse.hpp"
#include "model/scrape/operator_sd.hpp"
#include "model/yaml_emit.hpp"
#include "operator_fixture.hpp"
#include "sharding_fixture.hpp"
#include "tests/allocation/http_fixtures.hpp"

using namespace std::chrono_literals;

// Helpers and cases in a named namespace: the unity build batches test
// files, whose anonymous namespaces would share one scope.
namespace node_sharding_e2e {

using namespace sharding_e2e;

// The consistent tests' cluster and Probe (sharding_fixture.hpp).
const std::string kNodeCluster = std::string(kCluster) + "---\n" + kStaticProbe;
const std::string kProbeJob = "probe/app/sites";

// Address -> Node ("" = none): 10.1.<n>.<i> on node n<n>, and three
// external addresses 10.2.0.<i> with no Node.
using Placement = std::map<std::string, std::string>;

Placement addresses(int nodes, int per_node) {
  Placement out;
  for (int n = 1; n <= nodes; ++n)
    for (int i = 1; i <= per_node; ++i)
      out["10.1." + std::to_string(n) + "." + std::to_string(i) + ":8080"] = "n" + std::to_string(n);
  for (int i = 1; i <= 3; ++i) out["10.2.0." + std::to_string(i) + ":8080"] = "";
  return out;
}

std::string endpoints_yaml(const Placement& p) {
  std::string list;
  for (const auto& [address, node] : p) {
    list += "{ip: " + address.substr(0, address.find(':'));
    list += node.empty() ? "}," : ", nodeName: " + node + "},";
  }
  return "apiVersion: v1\nkind: Endpoints\nmetadata: {name: web, namespace: app, labels: {app: web}}\n"
         "subsets: [{addresses: [" +
         list + "], ports: [{name: http-metrics, port: 8080}]}]\n";
}

std::string pod_name(const std::string& node) {
  return "agent-metrics-" + node;
}

// What the DaemonSet controller would do on `node`: a pod with the
// DaemonSet's selector labels, scheduled there and Ready.
void run_pod_on(e2e::OperatorFixture& f, const std::string& node) {
  std::optional<model::Value> ds = f.get("DaemonSet", "mon", "agent-metrics");
  REQUIRE(ds);
  model::Value pod = model::parse_json(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": "mon"},
      "spec": {"containers": [{"name": "grafana-agent", "image": "grafana/agent"}]}})");
  pod.find("metadata")->set("name", pod_name(node));
  pod.find("metadata")->set("labels", *ds->find("spec")->find("selector")->find("matchLabels"));
  pod.find("spec")->set("nodeName", node);
  f.apply_yaml(model::to_json(pod));
  model::Value current = *f.get("Pod", "mon", pod_name(node));
  current.set("status", model::parse_json(R"({"conditions": [{"type": "Ready", "status": "True"}]})"));
  std::vector<std::string> warnings;
  f.cluster().update(f.type("Pod"), "mon", pod_name(node), current, k8s::sim::Subresource::status, {}, warnings);
}

std::string pod_query(const std::string& node, const std::string& job = kJob) {
  return "agent=mon/agent&job=" + job + "&shard=" + pod_name(node);
}

// Each node's pod's addresses of `job`, once every pod answers 200 and the
// answers hold `n` addresses in all, none twice; empty otherwise.
std::map<std::string, std::set<std::string>> wait_shares(Sharding& s, const std::string& token,
                                                         const std::vector<std::string>& nodes, std::size_t n,
                                                         const std::string& job = kJob) {
  std::map<std::string, std::set<std::string>> out;
  testutil::eventually([&] {
    std::map<std::string, std::set<std::string>> got;
    std::set<std::string> all;
    std::size_t sum = 0;
    for (const std::string& node : nodes) {
      Answer a = get(s, pod_query(node, job), token);
      if (a.status != 200) return false;
      got[node] = addresses_of(a.body);
      sum += got[node].size();
      all.insert(got[node].begin(), got[node].end());
    }
    if (sum != n || all.size() != n) return false;
    out = std::move(got);
    return true;
  });
  return out;
}

// The cluster, the node agent, the operator converged on it, and Ready
// pods on n1..n3.
void start(e2e::OperatorFixture& f) {
  f.apply_yaml(kNodeCluster + endpoints_yaml(addresses(3, 10)) + "---\n" + agent_yaml("node"));
  f.start_operator();
  REQUIRE(f.wait_converged(60s));
  for (const char* node : {"n1", "n2", "n3"}) run_pod_on(f, node);
}

// /debug/targets' listing of `job`: address -> the pod it is on ("" when
// unassigned).
std::map<std::string, std::string> debug_targets(Sharding& s, const std::string& job = kJob) {
  httplib::Client c("127.0.0.1", s.http->port());
  auto r = c.Get((std::string(actors::kDebugTargetsPath) + "?agent=mon/agent").c_str());
  REQUIRE(r);
  REQUIRE(r->status == 200);
  std::map<std::string, std::string> out;
  const model::Value listing = model::parse_json(r->body);
  for (const model::Value& t : listing.find("targets")->as_array()) {
    if (t.find("job")->as_string() != job) continue;
    const model::Value* shard = t.find("shard");
    out[t.find("target")->as_string()] = shard->is_string() ? shard->as_string() : "";
  }
  return out;
}

// Every address on a Node is on that Node's pod; `share` holds nothing of
// another Node's.
void check_node_local(const std::map<std::string, std::set<std::string>>& shares, const Placement& p) {
  for (const auto& [node, share] : shares) {
    INFO(node);
    for (const auto& [address, on] : p) {
      if (on == node) CHECK(share.count(address) == 1);
      if (!on.empty() && on != node) CHECK(share.count(address) == 0);
    }
  }
}

TEST_CASE("node sharding: each pod gets its own Node's targets, the Node-less ones are spread", "[e2e][sharding]") {
  auto sharding = std::make_shared<std::unique_ptr<Sharding>>();
  e2e::OperatorFixture f(fixture_options(sharding));
  *sharding = std::make_unique<Sharding>(f.server().url());
  Sharding& s = **sharding;
  start(f);
  CHECK(f.list("StatefulSet", "mon").empty());
  const std::string token = mint(f, "agent", actors::kTargetsAudience);
  const std::vector<std::string> nodes{"n1", "n2", "n3"};
  const Placement placed = addresses(3, 10);

  const auto shares = wait_shares(s, token, nodes, placed.size());
  REQUIRE(!shares.empty());
  check_node_local(shares, placed);
  // The Probe's URLs have no Node: all placed, none twice.
  CHECK(!wait_shares(s, token, nodes, 3, kProbeJob).empty());
  // A shard that is not one of the pods.
  CHECK(get(s, "agent=mon/agent&job=" + kJob + "&shard=0", token).status == 404);

  SECTION("a Node without a pod has its targets spread over the pods until its own pod runs") {
    const Placement more = addresses(4, 10);
    f.apply_yaml(endpoints_yaml(more));
    // n4 has no agent pod yet (say a taint keeps the DaemonSet off it):
    // its addresses go to the other pods, which keep their own.
    const auto before = wait_shares(s, token, nodes, more.size());
    REQUIRE(!before.empty());
    for (const std::string& node : nodes) {
      INFO(node);
      for (const std::string& address : shares.at(node))
        if (!more.at(address).empty()) CHECK(before.at(node).count(address) == 1);
      for (const std::string& address : before.at(node))
        CHECK((more.at(address).empty() || more.at(address) == node || more.at(address) == "n4"));
    }
    run_pod_on(f, "n4");
    const auto after = wait_shares(s, token, {"n1", "n2", "n3", "n4"}, more.size());
    REQUIRE(!after.empty());
    // n4's addresses are now on n4's pod alone; every pod keeps its own
    // Node's and holds no other Node's (only Node-less ones may move, as
    // consistent hashing rebalances them over four pods).
    check_node_local(after, more);
  }
  SECTION("/debug/targets names each target's pod") {
    const auto listed = debug_targets(s);
    CHECK(listed.size() == placed.size());
    for (const auto& [address, pod] : listed) {
      INFO(address);
      REQUIRE(pod.rfind("agent-metrics-", 0) == 0);
      CHECK(shares.at(pod.substr(std::string("agent-metrics-").size())).count(address) == 1);
    }
  }
  f.stop_operator();
}

// Prometheus's active targets: scrape pool -> the Nodes
// (__meta_kubernetes_endpoint_node_name) of its targets.
std::map<std::string, std::set<std::string>> pool_nodes(httplib::Client& prom) {
  std::map<std::string, std::set<std::string>> out;
  auto res = prom.Get("/api/v1/targets?state=active");
  if (!res || res->status != 200) return out;
  const model::Value doc = model::parse_json(res->body);
  for (const model::Value& t : doc.find("data")->find("activeTargets")->as_array())
    out[model::string_at(t, {"scrapePool"})].insert(
        model::string_at(t, {"discoveredLabels", "__meta_kubernetes_endpoint_node_name"}));
  return out;
}

// As the consistent test's proof: one Prometheus runs, for each Node's
// pod, the job as rendered under node (SHARD = the pod's name) and, for
// three shards, the hashmod job over every discovered target.
TEST_CASE("node sharding: Prometheus per Node ends with hashmod's targets, each pod its own Node's",
          "[e2e][sharding][prometheus]") {
  REQUIRE(std::filesystem::exists("/usr/bin/prometheus"));
  auto sharding = std::make_shared<std::unique_ptr<Sharding>>();
  e2e::OperatorFixture f(fixture_options(sharding));
  *sharding = std::make_unique<Sharding>(f.server().url());
  Sharding& s = **sharding;
  start(f);
  const std::string token = mint(f, "agent", actors::kTargetsAudience);
  const std::vector<std::string> nodes{"n1", "n2", "n3"};
  const std::size_t total = addresses(3, 10).size();
  REQUIRE(!wait_shares(s, token, nodes, total).empty());
  std::string every_target;  // every pod's discovered targets, one http_sd body
  {
    model::Value all = model::Value::array();
    for (const std::string& node : nodes) {
      model::Value groups = model::parse_json(get(s, pod_query(node), token).body);
      for (model::Value& g : groups.as_array()) all.push(std::move(g));
    }
    every_target = model::to_json(all);
  }
  httplib::Server discovery;  // hashmod's stand-in for kubernetes_sd
  discovery.Get("/all", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(every_target, "application/json");
  });
  const int discovery_port = discovery.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { discovery.listen_after_bind(); });

  testutil::TempDir dir("ao-node-prom");
  const std::string token_file = dir.write("token", token);
  const model::Value node_job = rendered_job(*f.get("Secret", "mon", "agent-config"), kJob);
  const model::Value hashmod = hashmod_job(kNodeCluster + agent_yaml("hashmod"), kJob);
  model::Value jobs = model::Value::array();
  for (const std::string& node : nodes) {
    model::Value j = renamed_job(node_job, "node-" + node,
                                 {{"$(SHARD)", pod_name(node)},
                                  {"http://agent-operator-metrics.agent-operator.svc:8080", s.url()},
                                  {model::scrape::kOperatorTokenPath, token_file}});
    jobs.push(std::move(j));
  }
  for (int shard = 0; shard < 3; ++shard) jobs.push(hashmod_over_stand_in(hashmod, discovery_port, shard));
  dir.write("prometheus.yml",
            model::to_json(model::Value::obj(
                {{"global", model::Value::obj({{"scrape_interval", "1h"}})}, {"scrape_configs", std::move(jobs)}})));
  const int prom_port = http_test::free_port();
  http_test::Child prometheus = http_test::start_prometheus(dir.path, prom_port);
  httplib::Client prom("127.0.0.1", prom_port);
  prom.set_connection_timeout(1);

  std::optional<std::set<std::string>> by_node, by_hashmod;
  const bool settled = testutil::eventually(
      [&] {
        auto p = pools(prom);
        by_node = union_of(p, "node-");
        by_hashmod = union_of(p, "hashmod-");
        return p.size() == 6 && by_node && by_hashmod && by_node->size() == total && by_hashmod->size() == total;
      },
      60s, 250ms);
  REQUIRE(by_node);
  REQUIRE(by_hashmod);
  CHECK(settled);
  CHECK(*by_node == *by_hashmod);
  // Per Node: each pod's pool holds its own Node's targets and Node-less ones.
  for (const auto& [pool, on] : pool_nodes(prom)) {
    if (pool.rfind("node-", 0) != 0) continue;
    INFO(pool);
    for (const std::string& node : on) CHECK((node.empty() || "node-" + node == pool));
  }
  prometheus.terminate();
  discovery.stop();
  serving.join();
  f.stop_operator();
}

}  // namespace node_sharding_e2e
