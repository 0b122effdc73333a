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
#include "k8s/client/curl_transport.hpp"
#include "model/codec.hpp"
#include "model/object_fields.hpp"
#include "model/parse.hpp"
#include "model/render.hpp"
#include "model/yaml_emit.hpp"
#include "operator_fixture.hpp"
#include "tests/allocation/http_fixtures.hpp"

using namespace std::chrono_literals;

// Helpers and cases in a named namespace: the unity build batches test
// files, whose anonymous namespaces would share one scope.
namespace consistent_sharding_e2e {

constexpr int kShards = 3;

std::string agent_yaml(const std::string& strategy) {
  return R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: mon}
spec:
  serviceAccountName: agent
  metrics:
    instanceSelector: {}
    shards: 3
    shardingStrategy: )" +
         strategy + "\n";
}

const char* const kCluster = R"(
apiVersion: v1
kind: Namespace
metadata: {name: mon}
---
apiVersion: v1
kind: Namespace
metadata: {name: app}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: agent, namespace: mon}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: other, namespace: mon}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: mon}
spec:
  serviceMonitorNamespaceSelector: {}
  serviceMonitorSelector: {}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: app}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: http-metrics}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: app, labels: {app: web}}
spec: {ports: [{name: http-metrics, port: 8080}]}
)";

std::string endpoints_yaml(int addresses) {
  std::string list;
  for (int i = 0; i < addresses; ++i) list += "{ip: 10.1.0." + std::to_string(i + 1) + "},";
  return "apiVersion: v1\nkind: Endpoints\nmetadata: {name: web, namespace: app, labels: {app: web}}\n"
         "subsets: [{addresses: [" +
         list + "], ports: [{name: http-metrics, port: 8080}]}]\n";
}

const std::string kJob = "serviceMonitor/app/web/0";

// Runs the allocations and the endpoint beside the fixture's controller.
struct Sharding {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  std::unique_ptr<k8s::Client> client;
  std::unique_ptr<actors::AgentAllocations> allocations;
  std::unique_ptr<actors::TokenReviewCache> tokens;
  std::unique_ptr<actors::OperatorHttpServer> http;

  explicit Sharding(const std::string& api, const std::string& journal_dir = "") {
    cfg.set("scheduler.max-threads", 2);
    sys = std::make_unique<caf::actor_system>(cfg);
    k8s::ClusterConfig cc;
    cc.server = api;
    client = std::make_unique<k8s::Client>(k8s::make_curl_transport(cc));
    allocations =
        std::make_unique<actors::AgentAllocations>(*sys, actors::AgentAllocationsConfig{client.get(), journal_dir});
    tokens = std::make_unique<actors::TokenReviewCache>(actors::make_token_reviewer(*client, 10s));
    http = std::make_unique<actors::OperatorHttpServer>(actors::HttpServerOptions{}, actors::OperatorHttpSources{});
    actors::add_targets_routes(*http, *allocations, *tokens);
    http->start();
  }
  ~Sharding() {
    http->stop();
    allocations->stop();
  }
};

// No examples, no integrations SD, the operator started by the test; every
// root output also goes to `*sharding` once it exists.
e2e::FixtureOptions fixture_options(const std::shared_ptr<std::unique_ptr<Sharding>>& sharding) {
  e2e::FixtureOptions fo;
  fo.load_examples = false;
  fo.integrations_sd = false;
  fo.start_operator = false;
  fo.on_render = [sharding](const actors::RootOutput& out) {
    if (*sharding) (*sharding)->allocations->on_render(out);
  };
  return fo;
}

// The cluster with 30 addresses behind the ServiceMonitor (and `extra`), a
// consistent agent, and the operator converged on it.
void start(e2e::OperatorFixture& f, const std::string& extra = "") {
  f.apply_yaml(std::string(kCluster) + "---\n" + endpoints_yaml(30) + "---\n" + extra + agent_yaml("consistent"));
  f.start_operator();
  REQUIRE(f.wait_converged(60s));
}

std::string mint(e2e::OperatorFixture& f, const std::string& sa, const std::string& audience) {
  httplib::Client c(f.server().url());
  std::string body =
      R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"audiences":[")" + audience + R"("]}})";
  auto r = c.Post(("/api/v1/namespaces/mon/serviceaccounts/" + sa + "/token").c_str(), body, "application/json");
  REQUIRE(r);
  REQUIRE(r->status == 201);
  return model::parse_json(r->body).find("status")->find("token")->as_string();
}

struct Answer {
  int status = 0;
  std::string body, etag;
};

Answer get(Sharding& s, const std::string& query, const std::string& token, const std::string& etag = "") {
  httplib::Client c("127.0.0.1", s.http->port());
  httplib::Headers h;
  if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
  if (!etag.empty()) h.emplace("If-None-Match", etag);
  auto r = c.Get((std::string(actors::kTargetsPath) + "?" + query).c_str(), h);
  REQUIRE(r);
  return {r->status, r->body, r->get_header_value("ETag")};
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
    std::set<std::string> addresses;
    const model::Value groups = model::parse_json(a.body);
    for (const model::Value& group : groups.as_array())
      for (const model::Value& t : group.find("targets")->as_array()) addresses.insert(t.as_string());
    out.push_back(std::move(addresses));
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
    CHECK(get(s, "agent=mon/agent&job=" + kJob + "&shard=7", token).status == 404);
    CHECK(get(s, "agent=mon/agent&shard=0", token).status == 400);
    Answer unknown_job = get(s, "agent=mon/agent&job=nope&shard=0", token);
    CHECK(unknown_job.status == 200);
    CHECK(unknown_job.body == "[]\n");
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
const char* const kStaticProbe = R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: probes, namespace: mon}
spec:
  probeNamespaceSelector: {}
  probeSelector: {}
---
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: sites, namespace: app}
spec:
  module: http_2xx
  prober: {url: 'blackbox:9115'}
  targets:
    staticConfig:
      static: [https://example.com, https://example.org, https://example.net]
---
)";

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

// The proof with real agents: one Prometheus (Debian's, without
// kubernetes_sd) runs, for each shard, the job as the operator rendered it
// under consistent (http_sd to the targets endpoint) and as it renders it
// under hashmod (its kubernetes_sd swapped for http_sd serving every
// discovered target, the hashmod pair kept). Both strategies must end with
// the same targets and final labels, none on two shards; and when the
// endpoint goes away, the consistent jobs keep their targets.

// The scrape job `job` of a config Secret's agent.yml.
model::Value rendered_job(const model::Value& secret, const std::string& job) {
  auto text = model::base64_decode(model::string_at(secret, {"data", "agent.yml"}));
  REQUIRE(text);
  auto docs = model::parse_documents(*text, "agent.yml");
  for (const model::Value& j :
       docs.at(0).value.find("metrics")->find("configs")->as_array().at(0).find("scrape_configs")->as_array())
    if (model::string_at(j, {"job_name"}) == job) return j;
  FAIL("no job " + job);
  return {};
}

// The hashmod job as the operator renders it for the same cluster.
model::Value hashmod_job() {
  model::Inventory inv;
  for (auto& doc : model::parse_documents(std::string(kCluster) + "---\n" + agent_yaml("hashmod"), "manifests"))
    inv.add(std::move(doc.value));
  const model::AgentRender r = model::render_agent(inv, inv.agents.at({"mon", "agent"}).obj, {});
  for (const model::Value& o : r.objects)
    if (model::string_at(o, {"kind"}) == "Secret" && model::string_at(o, {"metadata", "name"}) == "agent-config")
      return rendered_job(o, kJob);
  FAIL("no config Secret");
  return {};
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

// One job of shard `shard`, renamed, its $(SHARD) expanded as the config
// reloader would, polling every second.
model::Value shard_job(const model::Value& job, int shard, const std::string& name, const std::string& from,
                       const std::string& to) {
  std::string text = model::to_json(job);
  replace_all(text, "$(SHARD)", std::to_string(shard));
  replace_all(text, from, to);
  model::Value out = model::parse_json(text);
  out.set("job_name", name);
  for (model::Value& sd : out.find("http_sd_configs")->as_array()) sd.set("refresh_interval", "1s");
  return out;
}

// scrape pool -> canonical final label sets of its active targets.
std::map<std::string, std::set<std::string>> pools(httplib::Client& prom) {
  std::map<std::string, std::set<std::string>> out;
  auto res = prom.Get("/api/v1/targets?state=active");
  if (!res || res->status != 200) return out;
  const model::Value doc = model::parse_json(res->body);
  for (const model::Value& t : doc.find("data")->find("activeTargets")->as_array()) {
    model::Value labels = *t.find("labels");
    labels.erase("job");  // the pool's name, which differs by construction
    out[model::string_at(t, {"scrapePool"})].insert(model::to_json(labels));
  }
  return out;
}

// The union of the pools whose names start with `prefix`, or nullopt when
// a target sits in two of them.
std::optional<std::set<std::string>> union_of(const std::map<std::string, std::set<std::string>>& p,
                                              const std::string& prefix) {
  std::set<std::string> all;
  std::size_t sum = 0;
  for (const auto& [pool, targets] : p) {
    if (pool.rfind(prefix, 0) != 0) continue;
    sum += targets.size();
    all.insert(targets.begin(), targets.end());
  }
  if (sum != all.size()) return std::nullopt;
  return all;
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
  const model::Value hashmod = hashmod_job();
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
    model::Value h = hashmod;
    h.erase("kubernetes_sd_configs");
    h.set("http_sd_configs", model::Value::arr({model::Value::obj(
                                 {{"url", "http://127.0.0.1:" + std::to_string(discovery_port) + "/all"}})}));
    jobs.push(shard_job(h, shard, "hashmod-" + std::to_string(shard), "", ""));
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

  // The operator goes away: Prometheus keeps the last targets it was given.
  const auto before = pools(prom);
  s.http->stop();
  std::this_thread::sleep_for(3s);  // three refresh intervals of the consistent jobs
  const auto after = pools(prom);
  for (int shard = 0; shard < kShards; ++shard) {
    const std::string pool = "consistent-" + std::to_string(shard);
    INFO(pool);
    CHECK(!after.at(pool).empty());
    CHECK(after.at(pool) == before.at(pool));
  }
  prometheus.terminate();
  discovery.stop();
  serving.join();
  f.stop_operator();
}

}  // namespace consistent_sharding_e2e
