#include <catch2/catch.hpp>

#include <map>

#include "allocation/allocator.hpp"
#include "allocation/filter.hpp"
#include "allocation/parallel.hpp"
#include "model/parse.hpp"

using namespace allocation;
using namespace std::chrono_literals;

namespace {

TargetList job_targets(const std::string& job, int n, std::vector<std::pair<std::string, std::string>> extra = {}) {
  TargetGroup g;
  g.labels = std::make_shared<const LabelSet>(LabelSet{{"job", job}});
  for (int i = 0; i < n; ++i) {
    std::vector<Label> labels = {{Name::intern("__address__"), "10.1." + std::to_string(i) + ":" + job}};
    for (const auto& [k, v] : extra) labels.push_back({Name::intern(k), v});
    g.targets.push_back(std::make_shared<const LabelSet>(LabelSet(std::move(labels))));
  }
  TargetList out;
  append_targets(Name::intern(job), std::span<const TargetGroup>(&g, 1), out);
  return out;
}

std::unique_ptr<Strategy> named_strategy(const std::string& name) {
  StrategyConfig c;
  c.name = name;
  return make_strategy(c);
}

Collector ready(const std::string& name, TimePoint since, const std::string& node = "") {
  return {name, node, true, since};
}

std::map<std::string, std::size_t> loads(const Allocator& a) {
  std::map<std::string, std::size_t> out;
  for (std::uint32_t c = 0; c < a.collectors().size(); ++c) out[a.collectors()[c].name] = a.load(c);
  return out;
}

}  // namespace

TEST_CASE("only Ready collectors past the grace period receive targets", "[allocation]") {
  const TimePoint t0{std::chrono::hours(1000)};
  ManualClock clock(t0 + 60s);
  Allocator a(named_strategy("consistent-hashing"), {.ready_grace = 60s}, clock);
  a.set_targets(job_targets("web", 300));
  CHECK(a.unassigned() == 300);  // no collector yet: kept, not lost
  a.set_collectors({ready("c1", t0), ready("c2", t0 + 50s), {"c3", "", false, t0}});
  CHECK(loads(a) == std::map<std::string, std::size_t>{{"c1", 300}, {"c2", 0}, {"c3", 0}});
  REQUIRE(a.next_refresh().has_value());
  CHECK(*a.next_refresh() == t0 + 110s);
  clock.set(t0 + 109s);
  a.refresh();
  CHECK(a.load(1) == 0);
  clock.set(t0 + 110s);
  a.refresh();
  CHECK(a.load(0) + a.load(1) == 300);
  CHECK(a.load(0) >= 142);  // within 5% of the mean
  CHECK(a.load(0) <= 158);
  CHECK(a.load(2) == 0);
  CHECK(!a.next_refresh().has_value());
  // Losing readiness takes effect at once.
  a.set_collectors({ready("c1", t0), {"c2", "", false, t0 + 50s}});
  CHECK(a.load(0) == 300);
  CHECK(a.unassigned() == 0);
}

TEST_CASE("the per-collector per-job index matches a scan and versions track contents", "[allocation]") {
  ManualClock clock;
  Allocator a(named_strategy("least-weighted"), {}, clock);
  a.set_collectors({ready("c1", {}), ready("c2", {}), ready("c3", {})});
  auto targets = job_targets("api", 60);
  auto db = job_targets("db", 30);
  targets.insert(targets.end(), db.begin(), db.end());
  a.set_targets(targets);
  for (std::uint32_t c = 0; c < 3; ++c) {
    for (const char* job : {"api", "db"}) {
      std::vector<std::uint32_t> scan;
      for (std::uint32_t s = 0; s < a.targets().size(); ++s) {
        if (a.collector_of(s) == c && a.targets()[s].job == Name::intern(job)) scan.push_back(s);
      }
      auto indexed = a.targets_for(a.collectors()[c].name, Name::intern(job));
      CHECK(std::vector<std::uint32_t>(indexed.begin(), indexed.end()) == scan);
    }
  }
  CHECK(a.targets_for("nobody", Name::intern("api")).empty());
  CHECK(a.targets_for("c1", Name::intern("no-such-job")).empty());
  const auto api_version = a.bucket("c1", Name::intern("api"))->version;
  const auto db_version = a.bucket("c1", Name::intern("db"))->version;
  const auto generation = a.generation();
  // More db targets: api buckets keep their version, db buckets change.
  auto more = targets;
  auto db2 = job_targets("db", 45);
  more.insert(more.end(), db2.begin() + 30, db2.end());
  a.set_targets(more);
  CHECK(a.bucket("c1", Name::intern("api"))->version == api_version);
  CHECK(a.bucket("c1", Name::intern("db"))->version != db_version);
  CHECK(a.generation() > generation);
  // The same set again changes nothing, and duplicates are one target.
  const auto g2 = a.generation();
  more.insert(more.end(), more.begin(), more.begin() + 10);
  a.set_targets(more);
  CHECK(a.generation() == g2);
  CHECK(a.targets().size() == 105);
  CHECK(a.jobs().size() == 2);
  CHECK(a.jobs()[0].text() == "api");
}

TEST_CASE("per-node reads the node from Kubernetes discovery labels", "[allocation]") {
  ManualClock clock;
  StrategyConfig config;
  config.name = "per-node";
  config.fallback = "least-weighted";
  Allocator a(make_strategy(config), {}, clock);
  a.set_collectors({ready("on-a", {}, "node-a"), ready("on-b", {}, "node-b")});
  auto pods = job_targets("pods", 1, {{"__meta_kubernetes_pod_node_name", "node-a"}});
  auto nodes = job_targets("kubelet", 1, {{"__meta_kubernetes_node_name", "node-b"}});
  auto slices = job_targets("slices", 1,
                            {{"__meta_kubernetes_endpointslice_address_target_kind", "Node"},
                             {"__meta_kubernetes_endpointslice_address_target_name", "node-a"}});
  auto statics = job_targets("static", 2);
  TargetList all;
  for (auto* v : {&pods, &nodes, &slices, &statics}) all.insert(all.end(), v->begin(), v->end());
  a.set_targets(all);
  CHECK(a.targets_for("on-a", Name::intern("pods")).size() == 1);
  CHECK(a.targets_for("on-b", Name::intern("kubelet")).size() == 1);
  CHECK(a.targets_for("on-a", Name::intern("slices")).size() == 1);
  CHECK(a.targets_for("on-a", Name::intern("static")).size() + a.targets_for("on-b", Name::intern("static")).size() ==
        2);
  CHECK(a.unassigned() == 0);
}

TEST_CASE("relabel-config filter drops what the job's relabel_configs drop with $(SHARD) as 0", "[allocation]") {
  auto docs = model::parse_documents(R"(
- job_name: web
  relabel_configs:
  - {source_labels: [__address__], modulus: 1, target_label: __tmp_hash, action: hashmod}
  - {source_labels: [__tmp_hash], regex: $(SHARD), action: keep}
  - {source_labels: [__meta_tier], regex: 'cache.*', action: drop}
- job_name: other
)",
                                     "test");
  RelabelFilter filter;
  filter.set_scrape_configs(docs.at(0).value);
  auto web = job_targets("web", 10, {{"__meta_tier", "cache"}});
  auto kept = job_targets("web", 5, {{"__meta_tier", "front"}});
  auto other = job_targets("other", 4, {{"__meta_tier", "cache"}});
  TargetList all = web;
  all.insert(all.end(), kept.begin(), kept.end());
  all.insert(all.end(), other.begin(), other.end());
  CHECK(filter.apply(all) == 10);
  CHECK(all.size() == 9);
  CHECK(filter.keep(kept[0]));
  CHECK(!filter.keep(web[0]));

  // A replace that feeds a later keep must run; one that feeds nothing may not.
  RelabelFilter chained;
  chained.set_job(Name::intern("chain"), parse_relabel_configs(model::parse_documents(R"(
- {source_labels: [__meta_tier], regex: '(c)ache', target_label: tmp}
- {source_labels: [__meta_tier], target_label: unused}
- {source_labels: [tmp], regex: c, action: keep}
)",
                                                                                      "test")
                                                                   .at(0)
                                                                   .value,
                                                               "relabel_configs"));
  CHECK(chained.keep(job_targets("chain", 1, {{"__meta_tier", "cache"}})[0]));
  CHECK(!chained.keep(job_targets("chain", 1, {{"__meta_tier", "front"}})[0]));

  auto bad = model::parse_documents("- job_name: x\n  relabel_configs:\n  - {action: hashmod}\n", "test");
  CHECK_THROWS_WITH(filter.set_scrape_configs(bad.at(0).value),
                    Catch::StartsWith("scrape_configs[0].relabel_configs[0].modulus:"));
  auto dead_bad = model::parse_documents(
      "- job_name: x\n  relabel_configs:\n  - {action: keep}\n  - {regex: '(', target_label: y}\n", "test");
  CHECK_THROWS_WITH(filter.set_scrape_configs(dead_bad.at(0).value),
                    Catch::StartsWith("scrape_configs[0].relabel_configs[1].regex: invalid regular expression"));
}

// Large batches are split over two threads (allocation/parallel.hpp): the
// result must be exactly the single-threaded one, order included.
TEST_CASE("large batches give the same items and filter results on one or two lanes", "[allocation]") {
  const std::size_t n = 3 * kParallelMin + 7;
  std::vector<TargetGroup> groups;
  for (std::size_t g = 0; g * 5 < n; ++g) {
    TargetGroup group;
    group.labels = std::make_shared<const LabelSet>(LabelSet{{"__meta_group", std::to_string(g % 3)}});
    for (std::size_t i = g * 5; i < std::min(n, g * 5 + 5); ++i) {
      // Every 97th set has no address (skipped), every 7th is a cache.
      const std::string address = i % 97 == 0 ? "" : "10.0." + std::to_string(i / 256) + "." + std::to_string(i % 256);
      group.targets.push_back(std::make_shared<const LabelSet>(
          LabelSet{{"__address__", address}, {"__meta_tier", i % 7 == 0 ? "cache" : "front"}}));
    }
    groups.push_back(std::move(group));
  }
  const Name job = Name::intern("web");
  TargetList items;
  append_targets(job, groups, items);
  TargetList one_by_one;
  for (const auto& g : groups) append_targets(job, std::span<const TargetGroup>(&g, 1), one_by_one);
  REQUIRE(items.size() == one_by_one.size());
  REQUIRE(items.size() == n - (n + 96) / 97);
  for (std::size_t i = 0; i < items.size(); ++i) REQUIRE(items[i].hash == one_by_one[i].hash);

  auto rules = parse_relabel_configs(model::parse_documents(R"(
- {source_labels: [__meta_tier], regex: cache, action: drop}
- {source_labels: [__meta_group], regex: '2', action: drop}
)",
                                                            "test")
                                         .at(0)
                                         .value,
                                     "relabel_configs");
  RelabelFilter one(1), two(2);
  one.set_job(job, rules);
  two.set_job(job, rules);
  auto by_one = items, by_two = items;
  const std::size_t dropped = one.apply(by_one);
  CHECK(two.apply(by_two) == dropped);
  CHECK(dropped > items.size() / 3);
  REQUIRE(by_one.size() == by_two.size());
  for (std::size_t i = 0; i < by_one.size(); ++i) REQUIRE(by_one[i].hash == by_two[i].hash);
  for (const auto& t : by_two) CHECK(one.keep(t));
}
