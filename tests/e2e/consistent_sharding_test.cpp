// shardingStrategy: consistent end to end (issue 19): the controller
// renders the agent, AgentAllocations runs its allocation on the operator's
// own watches against simcluster, and the targets endpoint serves each
// shard its share to the agent's ServiceAccount only (TokenReview through
// simcluster). Checks the shards' answers are disjoint and cover every
// endpoint address, that a new address reaches exactly one shard, the
// 401/403/404 answers, ETags, that going back to hashmod stops it, and that
// a Probe's static URLs are placed too.
#include <httplib.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "../scratch.hpp"
#include "actors/allocation/agent_allocations.hpp"
#include "actors/allocation/targets_endpoint.hpp"
#include "allocation/runtime/replay.hpp"
#include "eventually.hpp"
#include "model/codec.hpp"
#include "model/object_fields.hpp"
#include "model/parse.hpp"
#include "model/render.hpp"
#include "model/yaml_emit.hpp"
#include "operator_fixture.hpp"
#include "sharding_fixture.hpp"
#include "tests/allocation/http_fixtures.hpp"

using namespace std::chrono_literals;

// Helpers and cases in a named namespace: the unity build batches test
// files, whose anonymous namespaces would share one scope.
namespace consistent_sharding_e2e {

constexpr int kShards = 3;

std::string endpoints_yaml(int addresses) {
  std::string list;
  for (int i = 0; i < addresses; ++i) list += "{ip: 10.1.0." + std::to_string(i + 1) + "},";
  return "apiVersion: v1\nkind: Endpoints\nmetadata: {name: web, namespace: app, labels: {app: web}}\n"
         "subsets: [{addresses: [" +
         list + "], ports: [{name: http-metrics, port: 8080}]}]\n";
}

using namespace sharding_e2e;

// The cluster with 30 addresses behind the ServiceMonitor (and `extra`), a
// consistent agent, and the operator converged on it.
void start(e2e::OperatorFixture& f, const std::string& extra = "") {
  f.apply_yaml(std::string(kCluster) + "---\n" + endpoints_yaml(30) + "---\n" + extra + agent_yaml("consistent"));
  f.start_operator();
  REQUIRE(f.wait_converged(60s));
}

std::string shard_query(int shard, const std::string& job = kJob) {
  return "agent=mon/agent&job=" + job + "&shard=" + std::to_string(shard);
}

// Every shard's addresses of `job`, or nullopt while some shard does not
// answer 200.
std::optional<std::vector<std::set<std::string>>> shard_addresses(Sharding& s, const std::string& token,
                                                                  const std::string& job = kJob) {
  std::vector<std::set<std::string>> out;
  for (int shard = 0; shard < kShards; ++shard) {
    Answer a = get(s, shard_query(shard, job), token);
    if (a.status != 200) return std::nullopt;
    out.push_back(addresses_of(a.body));
  }
  return out;
}

// True when the shards hold `n` addresses in all, none twice.
bool partitioned(const std::vector<std::set<std::string>>& shards, std::size_t n) {
  std::set<std::string> all;
  std::size_t sum = 0;
  for (const auto& s : shards) {
    sum += s.size();
    all.insert(s.begin(), s.end());
  }
  return sum == n && all.size() == n;
}

// Every shard's addresses of `job` once they hold `n` addresses in all,
// none twice; empty when that does not happen in time.
std::vector<std::set<std::string>> wait_partitioned(Sharding& s, const std::string& token, std::size_t n,
                                                    const std::string& job = kJob) {
  std::vector<std::set<std::string>> out;
  testutil::eventually([&] {
    auto got = shard_addresses(s, token, job);
    if (got && partitioned(*got, n)) out = *got;
    return !out.empty();
  });
  return out;
}

TEST_CASE("consistent sharding: each shard gets a disjoint share, only for the agent's account", "[e2e][sharding]") {
  auto sharding = std::make_shared<std::unique_ptr<Sharding>>();
  e2e::OperatorFixture f(fixture_options(sharding));
  testutil::TempDir journals("ao-consistent-journal");
  *sharding = std::make_unique<Sharding>(f.server().url(), journals.path.string());
  Sharding& s = **sharding;
  start(f);
  const std::string token = mint(f, "agent", actors::kTargetsAudience);

  const std::vector<std::set<std::string>> shards = wait_partitioned(s, token, 30);
  REQUIRE(!shards.empty());
  for (const auto& share : shards) CHECK(share.size() >= 5);  // consistent hashing spreads 30 over 3

  SECTION("who may ask") {
    CHECK(get(s, shard_query(0), "").status == 401);
    CHECK(get(s, shard_query(0), "not-a-token").status == 401);
    CHECK(get(s, shard_query(0), mint(f, "agent", k8s::sim::kApiAudience)).status == 401);
    Answer other = get(s, shard_query(0), mint(f, "other", actors::kTargetsAudience));
    CHECK(other.status == 403);
    CHECK_THAT(other.body, Catch::Contains("system:serviceaccount:mon:other"));
    CHECK(get(s, "agent=mon/nobody&job=x&shard=0", token).status == 404);
    CHECK(get(s, "agent=mon/nobody&job=x&shard=0", "").status == 401);  // not told whether it exists
    CHECK(get(s, "agent=mon/agent&job=" + kJob + "&shard=7", token).status == 404);
    CHECK(get(s, "agent=mon/agent&shard=0", token).status == 400);
    Answer unknown_job = get(s, "agent=mon/agent&job=nope&shard=0", token);
    CHECK(unknown_job.status == 200);
    CHECK(unknown_job.body == "[]\n");
  }
  SECTION("a standby replica answers 503 and closes the connection, so the client reconnects to the leader") {
    REQUIRE(get(s, shard_query(0), token).connection != "close");
    s.leading = false;
    Answer standby = get(s, shard_query(0), token);
    CHECK(standby.status == 503);
    CHECK_THAT(standby.body, Catch::Contains("standby"));
    CHECK(standby.connection == "close");
    s.leading = true;
    CHECK(get(s, shard_query(0), token).status == 200);
  }
  SECTION("ETags: an unchanged answer is a 304") {
    Answer first = get(s, shard_query(1), token);
    REQUIRE(first.status == 200);
    REQUIRE(!first.etag.empty());
    Answer again = get(s, shard_query(1), token, first.etag);
    CHECK(again.status == 304);
    CHECK(again.body.empty());
  }
  SECTION("a new address lands on exactly one shard, the others keep theirs") {
    f.apply_yaml(endpoints_yaml(31));
    const std::vector<std::set<std::string>> after = wait_partitioned(s, token, 31);
    REQUIRE(!after.empty());
    int changed = 0;
    for (int i = 0; i < kShards; ++i) {
      for (const auto& a : shards[i]) CHECK(after[i].count(a) == 1);  // nothing moved
      changed += after[i].size() != shards[i].size();
    }
    CHECK(changed == 1);
    // /debug/targets agrees with the shards' answers, and stamps only the
    // new address with the later reallocation.
    httplib::Client c("127.0.0.1", s.http->port());
    auto r = c.Get((std::string(actors::kDebugTargetsPath) + "?agent=mon/agent").c_str());
    REQUIRE(r);
    REQUIRE(r->status == 200);
    const model::Value debug = model::parse_json(r->body);
    const model::Value& listed = *debug.find("targets");
    REQUIRE(listed.as_array().size() == 31);
    std::uint64_t newest = 0, others = 0;
    for (const model::Value& t : listed.as_array()) {
      CHECK(t.find("job")->as_string() == kJob);
      const std::string address = t.find("target")->as_string();
      const int shard = std::stoi(t.find("shard")->as_string());
      CHECK(after.at(shard).count(address) == 1);
      const auto seq = static_cast<std::uint64_t>(t.find("placedAtSeq")->as_int());
      bool is_new = true;
      for (const auto& share : shards) is_new = is_new && !share.count(address);
      (is_new ? newest : others) = std::max(is_new ? newest : others, seq);
      if (is_new) CHECK_THAT(t.find("placedBy")->as_string(), Catch::Contains(" watch "));
    }
    CHECK(newest > others);
    CHECK(c.Get("/debug/targets?agent=mon/nobody")->status == 404);
    CHECK(c.Get("/debug/targets")->status == 400);
  }
  SECTION("the agent's allocation journal replays to the placement served") {
    s.allocations->stop();  // the journal is complete once its actor is done
    std::ifstream in(journals.path / "allocation-mon-agent.jsonl");
    REQUIRE(in);
    allocation::runtime::Replayer replay({});
    std::string line;
    for (std::size_t n = 1; std::getline(in, line); ++n) replay.feed(line, n);
    const auto assignment = allocation::runtime::assignment_of(replay.state().allocator());
    for (int shard = 0; shard < kShards; ++shard) {
      std::set<std::string> replayed;
      for (const std::string& t : assignment.at(std::to_string(shard))) replayed.insert(t.substr(kJob.size() + 1));
      CHECK(replayed == shards[shard]);
    }
  }
  SECTION("back to hashmod: the operator stops placing the agent's targets") {
    f.apply_yaml(agent_yaml("hashmod"));
    REQUIRE(f.wait_converged(60s));
    CHECK(testutil::eventually([&] { return s.allocations->agents() == 0; }));
    CHECK(get(s, shard_query(0), token).status == 404);
  }
  f.stop_operator();
}

// A Probe's static URLs reach the shards as they are: Prometheus checks a
// static address for a path only in a job without relabel_configs, and a
// Probe's job moves it to __param_target. (The allocation once refused
// the whole config for them, leaving every shard of the agent at 503.)

TEST_CASE("consistent sharding: a Probe's static URLs are placed on the shards", "[e2e][sharding]") {
  auto sharding = std::make_shared<std::unique_ptr<Sharding>>();
  e2e::OperatorFixture f(fixture_options(sharding));
  *sharding = std::make_unique<Sharding>(f.server().url());
  Sharding& s = **sharding;
  start(f, kStaticProbe);
  const std::string token = mint(f, "agent", actors::kTargetsAudience);
  const std::vector<std::set<std::string>> shards = wait_partitioned(s, token, 3, "probe/app/sites");
  REQUIRE(!shards.empty());
  std::set<std::string> all;
  for (const auto& share : shards) all.insert(share.begin(), share.end());
  CHECK(all == std::set<std::string>{"https://example.com", "https://example.net", "https://example.org"});
  // The ServiceMonitor's job is placed beside it.
  CHECK(!wait_partitioned(s, token, 30).empty());
  f.stop_operator();
}

// Ten Running Pods behind a PodMonitor (their port named metrics), and an
// instance that selects PodMonitors.
std::string pod_monitor_yaml() {
  std::string y = R"(apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: pods, namespace: mon}
spec:
  podMonitorNamespaceSelector: {}
  podMonitorSelector: {}
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: workers, namespace: app}
spec:
  selector: {matchLabels: {app: worker}}
  podMetricsEndpoints: [{port: metrics}]
---
)";
  for (int i = 0; i < 10; ++i)
    y += "apiVersion: v1\nkind: Pod\nmetadata: {name: worker-" + std::to_string(i) +
         ", namespace: app, labels: {app: worker}}\nspec: {nodeName: node-" + std::to_string(i % 2) +
         ", containers: [{name: w, image: worker, ports: [{name: metrics, containerPort: 9100}]}]}\n"
         "status: {phase: Running, podIP: 10.2.0." +
         std::to_string(i + 1) + "}\n---\n";
  return y;
}

TEST_CASE("consistent sharding places a PodMonitor's pods too", "[e2e][sharding]") {
  auto sharding = std::make_shared<std::unique_ptr<Sharding>>();
  e2e::OperatorFixture f(fixture_options(sharding));
  *sharding = std::make_unique<Sharding>(f.server().url());
  Sharding& s = **sharding;
  start(f, pod_monitor_yaml());
  const std::string token = mint(f, "agent", actors::kTargetsAudience);
  const std::vector<std::set<std::string>> shards = wait_partitioned(s, token, 10, "podMonitor/app/workers/0");
  REQUIRE(!shards.empty());
  std::set<std::string> all;
  for (const auto& share : shards) all.insert(share.begin(), share.end());
  CHECK(all.count("10.2.0.1:9100"));
  CHECK(all.count("10.2.0.10:9100"));
  // A new Pod reaches exactly one shard.
  f.apply_yaml(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: worker-new, namespace: app, labels: {app: worker}}\n"
      "spec: {nodeName: node-0, containers: [{name: w, image: worker, ports: [{name: metrics, containerPort: "
      "9100}]}]}\n"
      "status: {phase: Running, podIP: 10.2.0.99}\n");
  const std::vector<std::set<std::string>> after = wait_partitioned(s, token, 11, "podMonitor/app/workers/0");
  REQUIRE(!after.empty());
  CHECK(std::count_if(after.begin(), after.end(), [](auto& share) { return share.count("10.2.0.99:9100") > 0; }) == 1);
  f.stop_operator();
}

// The proof with real agents: one Prometheus (Debian's, without
// kubernetes_sd) runs, for each shard, the job as the operator rendered it
// under consistent (http_sd to the targets endpoint) and as it renders it
// under hashmod (its kubernetes_sd swapped for http_sd serving every
// discovered target, the hashmod pair kept). Both strategies must end with
// the same targets and final labels, none on two shards; and when the
// endpoint goes away, the consistent jobs keep their targets.

// One job of shard `shard`, renamed, its $(SHARD) expanded as the config
// reloader would.
model::Value shard_job(const model::Value& job, int shard, const std::string& name, const std::string& from,
                       const std::string& to) {
  std::map<std::string, std::string> replacements{{"$(SHARD)", std::to_string(shard)}};
  if (!from.empty()) replacements.emplace(from, to);
  return renamed_job(job, name, replacements);
}

TEST_CASE("consistent sharding: Prometheus per shard ends with hashmod's targets and keeps them offline",
          "[e2e][sharding][prometheus]") {
  REQUIRE(std::filesystem::exists("/usr/bin/prometheus"));
  auto sharding = std::make_shared<std::unique_ptr<Sharding>>();
  e2e::OperatorFixture f(fixture_options(sharding));
  *sharding = std::make_unique<Sharding>(f.server().url());
  Sharding& s = **sharding;
  start(f);
  const std::string token = mint(f, "agent", actors::kTargetsAudience);
  std::string every_target;  // the discovered targets of all shards, one http_sd body
  REQUIRE(testutil::eventually([&] {
    auto got = shard_addresses(s, token);
    if (!got || !partitioned(*got, 30)) return false;
    model::Value all = model::Value::array();
    for (int shard = 0; shard < kShards; ++shard) {
      model::Value groups = model::parse_json(get(s, shard_query(shard), token).body);
      for (model::Value& g : groups.as_array()) all.push(std::move(g));
    }
    every_target = model::to_json(all);
    return true;
  }));
  httplib::Server discovery;  // hashmod's stand-in for kubernetes_sd
  discovery.Get("/all", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(every_target, "application/json");
  });
  const int discovery_port = discovery.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { discovery.listen_after_bind(); });

  testutil::TempDir dir("ao-consistent-prom");
  const std::string token_file = dir.write("token", token);
  const model::Value consistent = rendered_job(*f.get("Secret", "mon", "agent-config"), kJob);
  const model::Value hashmod = hashmod_job(std::string(kCluster) + "---\n" + agent_yaml("hashmod"), kJob);
  model::Value jobs = model::Value::array();
  for (int shard = 0; shard < kShards; ++shard) {
    jobs.push(shard_job(consistent, shard, "consistent-" + std::to_string(shard),
                        "http://agent-operator-metrics.agent-operator.svc:8080",
                        "http://127.0.0.1:" + std::to_string(s.http->port())));
    jobs.as_array()
        .back()
        .find("http_sd_configs")
        ->as_array()[0]
        .find("authorization")
        ->set("credentials_file", token_file);
    jobs.push(hashmod_over_stand_in(hashmod, discovery_port, shard));
  }
  dir.write("prometheus.yml",
            model::to_json(model::Value::obj(
                {{"global", model::Value::obj({{"scrape_interval", "1h"}})}, {"scrape_configs", std::move(jobs)}})));
  const int prom_port = http_test::free_port();
  http_test::Child prometheus = http_test::start_prometheus(dir.path, prom_port);
  httplib::Client prom("127.0.0.1", prom_port);
  prom.set_connection_timeout(1);

  std::optional<std::set<std::string>> by_consistent, by_hashmod;
  const bool settled = testutil::eventually(
      [&] {
        auto p = pools(prom);
        by_consistent = union_of(p, "consistent-");
        by_hashmod = union_of(p, "hashmod-");
        return p.size() == 2 * kShards && by_consistent && by_hashmod && by_consistent->size() == 30 &&
               by_hashmod->size() == 30;
      },
      60s, 250ms);
  REQUIRE(by_consistent);
  REQUIRE(by_hashmod);
  CHECK(settled);
  CHECK(*by_consistent == *by_hashmod);
  CHECK_THAT(*by_consistent->begin(), Catch::Contains("\"endpoint\":\"http-metrics\"") &&
                                          Catch::Contains("\"namespace\":\"app\"") &&
                                          Catch::Contains("\"service\":\"web\""));

  // The operator answers as a standby (503), then goes away: each time
  // Prometheus's refreshes fail (its own counter says so) and it keeps the
  // last targets it was given, which stay in its scrape pools.
  const auto before = pools(prom);
  auto failures = [&] { return http_sd_failures(prom); };
  for (const char* outage : {"standby", "stopped"}) {
    INFO(outage);
    const double failed_before = failures();
    if (outage == std::string("standby"))
      s.leading = false;
    else
      s.http->stop();
    CHECK(testutil::eventually([&] { return failures() >= failed_before + 2 * kShards; }, 30s, 250ms));
    const auto after = pools(prom);
    for (int shard = 0; shard < kShards; ++shard) {
      const std::string pool = "consistent-" + std::to_string(shard);
      INFO(pool);
      CHECK(!after.at(pool).empty());
      CHECK(after.at(pool) == before.at(pool));
    }
  }
  prometheus.terminate();
  discovery.stop();
  serving.join();
  f.stop_operator();
}

}  // namespace consistent_sharding_e2e
