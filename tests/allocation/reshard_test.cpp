// Resharding a GrafanaAgent from N to N+1 shards (issue 19), on a small
// cluster through the real path: the operator's render of a ServiceMonitor,
// kubernetes_sd over an Endpoints object, the rendered relabel rules, and
// either the rendered hashmod pair or the allocator's consistent-hashing
// over collectors named as the shards. benchmarks/reshard_bench measures
// the same at 10,000 targets; this keeps consistent-hashing's bounds in CI.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "allocation/allocator.hpp"
#include "allocation/discovery/kubernetes_index.hpp"
#include "allocation/filter.hpp"
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

// The rendered scrape_configs of the agent with `shards` shards.
Value rendered_jobs(std::int64_t shards) {
  model::Inventory inv;
  for (auto& doc : model::parse_documents(kManifests, "manifests")) {
    if (doc.value.find("kind")->as_string() == "GrafanaAgent")
      doc.value.find("spec")->find("metrics")->set("shards", shards);
    inv.add(std::move(doc.value));
  }
  auto r = model::render_agent(inv, inv.agents.at({"monitoring", "agent"}).obj, {});
  REQUIRE(r.problems.empty());
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
  const Value& job = jobs.as_array().at(0);
  auto config =
      allocation::discovery::parse_kubernetes_sd_config(job.find("kubernetes_sd_configs")->as_array().at(0), "sd");
  std::vector<allocation::discovery::KindObject> objects{{allocation::discovery::Kind::service, service},
                                                         {allocation::discovery::Kind::endpoints, endpoints}};
  std::vector<allocation::TargetGroup> groups;
  for (auto& g : allocation::discovery::discover_kubernetes(config, objects)) groups.push_back(g.group);
  TargetList out;
  allocation::append_targets(allocation::Name::intern(job.find("job_name")->as_string()), groups, out);
  for (std::size_t i = 0; i < out.size(); ++i) out[i].order = i;
  return out;
}

Value with_shard(Value v, int shard) {
  if (v.is_string() && v.as_string() == "$(SHARD)") return Value(std::to_string(shard));
  if (v.is_array())
    for (auto& item : v.as_array()) item = with_shard(std::move(item), shard);
  if (v.is_object())
    for (auto& member : v.as_object()) member.second = with_shard(std::move(member.second), shard);
  return v;
}

// Each target's shard under the rendered hashmod pair, each shard's pods
// running the config with "$(SHARD)" set to their shard.
std::vector<int> hashmod_shards(const TargetList& targets, int shards) {
  const Value jobs = rendered_jobs(shards);
  std::vector<int> out(targets.size(), -1);
  for (int k = 0; k < shards; ++k) {
    allocation::RelabelFilter filter;
    filter.set_scrape_configs(with_shard(jobs, k));
    TargetList kept = targets;
    filter.apply(kept);
    for (const auto& t : kept) {
      INFO("target " << t.address << " kept by shards " << out[t.order] << " and " << k);
      CHECK(out[t.order] == -1);
      out[t.order] = k;
    }
  }
  return out;
}

std::vector<allocation::Collector> shard_collectors(int n) {
  model::GrafanaAgent agent;
  agent.meta.name = "agent";
  std::vector<allocation::Collector> out;
  for (int i = 0; i < n; ++i) out.push_back({model::metrics_shard_name(agent, i), "", true, {}});
  return out;
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
  Value jobs = rendered_jobs(n);
  // A consistent config keeps the rules but not the sharding pair (the last two).
  auto& rules = jobs.as_array().at(0).find("relabel_configs")->as_array();
  REQUIRE(rules.at(rules.size() - 2).find("action")->as_string() == "hashmod");
  rules.resize(rules.size() - 2);
  TargetList targets = discovered(2200, jobs);
  allocation::RelabelFilter filter;
  filter.set_scrape_configs(jobs);
  filter.apply(targets);
  REQUIRE(targets.size() == 2200);

  allocation::ManualClock clock;
  allocation::Allocator live(allocation::make_strategy({}), {}, clock);
  live.set_collectors(shard_collectors(n));
  live.set_targets(targets);
  auto [before, balance_before] = placement(live, targets.size());
  live.set_collectors(shard_collectors(n + 1));
  auto [after, balance_after] = placement(live, targets.size());

  std::size_t moved = 0;
  for (std::size_t i = 0; i < targets.size(); ++i) moved += before[i] != after[i];
  const double ideal = double(targets.size()) / double(n + 1);
  CHECK(double(moved) <= 1.2 * ideal);
  CHECK(double(moved) >= 0.8 * ideal);  // the new shard does take its share
  CHECK(balance_before <= 1.05);
  CHECK(balance_after <= 1.05);
}
