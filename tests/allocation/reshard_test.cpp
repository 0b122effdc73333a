// Resharding a GrafanaAgent from N to N+1 shards (issue 19), on a small
// cluster through the real path: the operator's render of a ServiceMonitor,
// kubernetes_sd over an Endpoints object, the rendered relabel rules, and
// either the rendered hashmod pair or, under shardingStrategy consistent,
// the operator's allocator config (its jobs and its shards as collectors)
// with consistent-hashing. benchmarks/reshard_bench measures the same at
// 10,000 targets; this keeps consistent-hashing's bounds in CI.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "allocation/allocator.hpp"
#include "allocation/discovery/kubernetes_index.hpp"
#include "allocation/filter.hpp"
#include "benchmarks/reshard_cluster.hpp"
#include "model/parse.hpp"
#include "model/render.hpp"
#include "model/workload_options.hpp"

namespace {

using allocation::TargetList;
using model::Value;

constexpr const char* kManifests = R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: monitoring}
spec:
  serviceAccountName: agent
  metrics: {instanceSelector: {matchLabels: {agent: agent}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: monitoring, labels: {agent: agent}}
spec:
  serviceMonitorNamespaceSelector: {}
  serviceMonitorSelector: {matchLabels: {instance: primary}}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: monitoring, labels: {instance: primary}}
spec:
  namespaceSelector: {any: true}
  selector: {matchLabels: {app: web}}
  endpoints: [{port: http-metrics}]
)";

model::AgentRender render(std::int64_t shards, const char* strategy) {
  model::Inventory inv;
  for (auto& doc : model::parse_documents(kManifests, "manifests")) {
    if (doc.value.find("kind")->as_string() == "GrafanaAgent") {
      doc.value.find("spec")->find("metrics")->set("shards", shards);
      doc.value.find("spec")->find("metrics")->set("shardingStrategy", strategy);
    }
    inv.add(std::move(doc.value));
  }
  auto r = model::render_agent(inv, inv.agents.at({"monitoring", "agent"}).obj, {});
  REQUIRE(r.problems.empty());
  return r;
}

// The operator's allocator config for the agent under consistent.
Value allocator_config(std::int64_t shards) {
  const model::AgentRender r = render(shards, "consistent");
  return std::move(model::parse_documents(r.allocator_config, "allocator_config").at(0).value);
}

// Its shards as the allocator's collectors, named as the config names them.
std::vector<allocation::Collector> allocator_collectors(std::int64_t shards) {
  std::vector<allocation::Collector> out;
  const Value config = allocator_config(shards);
  for (const Value& name : config.find("collectors")->as_array()) out.push_back({name.as_string(), "", true, {}});
  REQUIRE(out.size() == static_cast<std::size_t>(shards));
  return out;
}

// The rendered scrape_configs of the agent with `shards` shards.
Value rendered_jobs(std::int64_t shards) {
  const model::AgentRender r = render(shards, "hashmod");
  for (const auto& [name, config] : r.configs)
    if (const Value* m = config.find("metrics")) return *m->find("configs")->as_array().at(0).find("scrape_configs");
  FAIL("no metrics config");
  return {};
}

// One Endpoints of `n` addresses on ~40 nodes; its targets, numbered.
TargetList discovered(std::size_t n, const Value& jobs) {
  Value addresses = Value::array();
  for (std::size_t i = 0; i < n; ++i)
    addresses.push(Value::obj({{"ip", "10.64." + std::to_string(i / 250) + "." + std::to_string(2 + i % 250)},
                               {"nodeName", "node-" + std::to_string(i * 7919 % 40)}}));
  Value port = Value::obj({{"name", "http-metrics"}, {"port", 8080}});
  auto meta = Value::obj({{"name", "web"}, {"namespace", "cell-0"}, {"labels", Value::obj({{"app", "web"}})}});
  auto service = std::make_shared<const Value>(Value::obj({{"kind", "Service"}, {"metadata", meta}}));
  auto endpoints = std::make_shared<const Value>(
      Value::obj({{"kind", "Endpoints"},
                  {"metadata", meta},
                  {"subsets", Value::arr({Value::obj({{"addresses", addresses}, {"ports", Value::arr({port})}})})}}));
  return reshard_bench::discover(
      jobs, {{allocation::discovery::Kind::service, service}, {allocation::discovery::Kind::endpoints, endpoints}});
}

// Each target's shard under the rendered hashmod pair, each shard's pods
// running the config with "$(SHARD)" set to their shard.
std::vector<int> hashmod_shards(const TargetList& targets, int shards) {
  const reshard_bench::Placement p = reshard_bench::hashmod_placement(rendered_jobs(shards), targets, shards);
  CHECK(p.twice == 0);
  return p.shard_of;
}

// Each target's collector name, by discovery order, and the max/avg load.
std::pair<std::vector<std::string>, double> placement(const allocation::Allocator& a, std::size_t n) {
  std::vector<std::string> out(n);
  for (std::uint32_t s = 0; s < a.targets().size(); ++s) {
    REQUIRE(a.collector_of(s) != allocation::kUnassigned);
    out[a.targets()[s].order] = a.collectors()[a.collector_of(s)].name;
  }
  std::size_t max = 0;
  for (std::uint32_t c = 0; c < a.collectors().size(); ++c) max = std::max(max, a.load(c));
  return {out, double(max) * double(a.collectors().size()) / double(a.targets().size())};
}

}  // namespace

TEST_CASE("resharding: the rendered hashmod pair puts every target on one shard and moves most of them",
          "[allocation]") {
  const TargetList targets = discovered(2000, rendered_jobs(4));
  REQUIRE(targets.size() == 2000);
  auto four = hashmod_shards(targets, 4), five = hashmod_shards(targets, 5);
  std::size_t moved = 0;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    REQUIRE(four[i] >= 0);
    REQUIRE(five[i] >= 0);
    moved += four[i] != five[i];
  }
  // hashmod keeps a target only where h mod 4 == h mod 5: 4 residues of 20.
  CHECK(double(moved) / double(targets.size()) > 0.7);
}

TEST_CASE("resharding: consistent-hashing over the shards moves at most 1.2 x 1/(N+1), max/avg at most 1.05",
          "[allocation]") {
  auto n = GENERATE(4, 10);
  CAPTURE(n);
  // What the operator places under consistent: its allocator config's jobs.
  Value jobs = *allocator_config(n).find("config")->find("scrape_configs");
  TargetList targets = discovered(2200, jobs);
  allocation::RelabelFilter filter;
  filter.set_scrape_configs(jobs);
  filter.apply(targets);
  REQUIRE(targets.size() == 2200);

  allocation::ManualClock clock;
  allocation::Allocator live(allocation::make_strategy({}), {}, clock);
  live.set_collectors(allocator_collectors(n));
  live.set_targets(targets);
  auto [before, balance_before] = placement(live, targets.size());
  live.set_collectors(allocator_collectors(n + 1));
  auto [after, balance_after] = placement(live, targets.size());

  std::size_t moved = 0;
  for (std::size_t i = 0; i < targets.size(); ++i) moved += before[i] != after[i];
  const double ideal = double(targets.size()) / double(n + 1);
  CHECK(double(moved) <= 1.2 * ideal);
  CHECK(double(moved) >= 0.8 * ideal);  // the new shard does take its share
  CHECK(balance_before <= 1.05);
  CHECK(balance_after <= 1.05);
}
