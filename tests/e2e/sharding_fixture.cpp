#include "sharding_fixture.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>

#include "k8s/client/curl_transport.hpp"
#include "model/codec.hpp"
#include "model/object_fields.hpp"
#include "model/parse.hpp"
#include "model/render.hpp"
#include "model/yaml_emit.hpp"

using namespace std::chrono_literals;

namespace sharding_e2e {

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

Sharding::Sharding(const std::string& api, const std::string& journal_dir) {
  cfg.set("scheduler.max-threads", 2);
  sys = std::make_unique<caf::actor_system>(cfg);
  k8s::ClusterConfig cc;
  cc.server = api;
  client = std::make_unique<k8s::Client>(k8s::make_curl_transport(cc));
  allocations =
      std::make_unique<actors::AgentAllocations>(*sys, actors::AgentAllocationsConfig{client.get(), journal_dir});
  tokens = std::make_unique<actors::TokenReviewCache>(actors::make_token_reviewer(*client, 10s));
  http = std::make_unique<actors::OperatorHttpServer>(actors::HttpServerOptions{}, actors::OperatorHttpSources{});
  actors::add_targets_route(*http, *allocations, *tokens, [this] { return leading.load(); });
  actors::add_debug_targets_route(*http, *allocations);
  http->start();
}

Sharding::~Sharding() {
  http->stop();
  allocations->stop();
}

std::string Sharding::url() const {
  return "http://127.0.0.1:" + std::to_string(http->port());
}

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

std::string mint(e2e::OperatorFixture& f, const std::string& sa, const std::string& audience) {
  httplib::Client c(f.server().url());
  std::string body =
      R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"audiences":[")" + audience + R"("]}})";
  auto r = c.Post(("/api/v1/namespaces/mon/serviceaccounts/" + sa + "/token").c_str(), body, "application/json");
  REQUIRE(r);
  REQUIRE(r->status == 201);
  return model::parse_json(r->body).find("status")->find("token")->as_string();
}

Answer get(Sharding& s, const std::string& query, const std::string& token, const std::string& etag) {
  httplib::Client c("127.0.0.1", s.http->port());
  c.set_keep_alive(true);  // as Prometheus polls: the server decides whether the connection stays
  httplib::Headers h;
  if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
  if (!etag.empty()) h.emplace("If-None-Match", etag);
  auto r = c.Get((std::string(actors::kTargetsPath) + "?" + query).c_str(), h);
  REQUIRE(r);
  return {r->status, r->body, r->get_header_value("ETag"), r->get_header_value("Connection")};
}

std::set<std::string> addresses_of(const std::string& body) {
  std::set<std::string> out;
  const model::Value groups = model::parse_json(body);
  for (const model::Value& group : groups.as_array())
    for (const model::Value& t : group.find("targets")->as_array()) out.insert(t.as_string());
  return out;
}

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

model::Value hashmod_job(const std::string& manifests, const std::string& job) {
  model::Inventory inv;
  for (auto& doc : model::parse_documents(manifests, "manifests")) inv.add(std::move(doc.value));
  const model::AgentRender r = model::render_agent(inv, inv.agents.at({"mon", "agent"}).obj, {});
  for (const model::Value& o : r.objects)
    if (model::string_at(o, {"kind"}) == "Secret" && model::string_at(o, {"metadata", "name"}) == "agent-config")
      return rendered_job(o, job);
  FAIL("no config Secret");
  return {};
}

model::Value hashmod_over_stand_in(const model::Value& hashmod, int port, int shard) {
  model::Value h = hashmod;
  h.erase("kubernetes_sd_configs");
  h.set("http_sd_configs",
        model::Value::arr({model::Value::obj({{"url", "http://127.0.0.1:" + std::to_string(port) + "/all"}})}));
  return renamed_job(h, "hashmod-" + std::to_string(shard), {{"$(SHARD)", std::to_string(shard)}});
}

namespace {

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

}  // namespace

model::Value renamed_job(const model::Value& job, const std::string& name,
                         const std::map<std::string, std::string>& replacements) {
  std::string text = model::to_json(job);
  for (const auto& [from, to] : replacements) replace_all(text, from, to);
  model::Value out = model::parse_json(text);
  out.set("job_name", name);
  for (model::Value& sd : out.find("http_sd_configs")->as_array()) sd.set("refresh_interval", "1s");
  return out;
}

std::map<std::string, std::set<std::string>> pools(httplib::Client& prom) {
  std::map<std::string, std::set<std::string>> out;
  auto res = prom.Get("/api/v1/targets?state=active");
  if (!res || res->status != 200) return out;
  const model::Value doc = model::parse_json(res->body);
  for (const model::Value& t : doc.find("data")->find("activeTargets")->as_array()) {
    model::Value labels = *t.find("labels");
    labels.erase("job");
    out[model::string_at(t, {"scrapePool"})].insert(model::to_json(labels));
  }
  return out;
}

double http_sd_failures(httplib::Client& prom) {
  auto res = prom.Get("/metrics");
  if (!res || res->status != 200) return 0;
  const std::string name = "prometheus_sd_http_failures_total ";
  std::size_t at = res->body.find("\n" + name);
  return at == std::string::npos ? 0 : std::strtod(res->body.c_str() + at + 1 + name.size(), nullptr);
}

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

}  // namespace sharding_e2e
