// Shared by the consistent and node sharding e2e tests (issue 19): the
// operator's allocations and targets endpoint beside the fixture's
// controller, ServiceAccount tokens minted by simcluster, the endpoint's
// answers, and a real Prometheus's view of its scrape pools.
// Contract: every helper REQUIREs what it needs (a minted token, an HTTP
// answer), so a test fails at the step that broke.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <httplib.h>

#include "actors/allocation/agent_allocations.hpp"
#include "actors/allocation/targets_endpoint.hpp"
#include "operator_fixture.hpp"

namespace sharding_e2e {

// GrafanaAgent mon/agent (ServiceAccount agent, 3 shards) with `strategy`.
std::string agent_yaml(const std::string& strategy);
// Namespaces mon and app, ServiceAccounts mon/agent and mon/other,
// MetricsInstance mon/primary selecting every ServiceMonitor, and
// ServiceMonitor app/web over Service app/web's port http-metrics (the
// test adds the Endpoints).
extern const char* const kCluster;
// MetricsInstance mon/probes and Probe app/sites with three static URLs.
extern const char* const kStaticProbe;
inline const std::string kJob = "serviceMonitor/app/web/0";

// Runs the allocations and the endpoint beside the fixture's controller.
struct Sharding {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  std::unique_ptr<k8s::Client> client;
  std::unique_ptr<actors::AgentAllocations> allocations;
  std::unique_ptr<actors::TokenReviewCache> tokens;
  std::unique_ptr<actors::OperatorHttpServer> http;
  std::atomic<bool> leading{true};  // false: the endpoint answers as a standby replica

  explicit Sharding(const std::string& api, const std::string& journal_dir = "");
  ~Sharding();
  std::string url() const;
};

// No examples, no integrations SD, the operator started by the test; every
// root output also goes to `*sharding` once it exists.
e2e::FixtureOptions fixture_options(const std::shared_ptr<std::unique_ptr<Sharding>>& sharding);

// A token of ServiceAccount mon/<sa> for `audience`.
std::string mint(e2e::OperatorFixture& f, const std::string& sa, const std::string& audience);

struct Answer {
  int status = 0;
  std::string body, etag, connection;  // connection: the Connection header
};
// GET the targets endpoint with `query`, the Bearer `token` ("" = none).
Answer get(Sharding& s, const std::string& query, const std::string& token, const std::string& etag = "");
// The addresses of an http_sd answer's groups.
std::set<std::string> addresses_of(const std::string& body);

// The scrape job `job` of a config Secret's agent.yml.
model::Value rendered_job(const model::Value& secret, const std::string& job);
// Job `job` of GrafanaAgent mon/agent's config as the operator renders
// `manifests` (the agent with shardingStrategy hashmod).
model::Value hashmod_job(const std::string& manifests, const std::string& job);
// Shard `shard` of the rendered hashmod job, renamed "hashmod-<shard>",
// its kubernetes_sd swapped for an http_sd stand-in at
// 127.0.0.1:<port>/all serving every discovered target.
model::Value hashmod_over_stand_in(const model::Value& hashmod, int port, int shard);
// `job` renamed to `name` with every `from` replaced by `to` (e.g. the
// $(SHARD) the config reloader expands), its http_sd polled every second.
model::Value renamed_job(const model::Value& job, const std::string& name,
                         const std::map<std::string, std::string>& replacements);

// scrape pool -> canonical final label sets of its active targets (without
// `job`, which differs by construction).
std::map<std::string, std::set<std::string>> pools(httplib::Client& prom);
// Prometheus's own prometheus_sd_http_failures_total (0 when not reported yet).
double http_sd_failures(httplib::Client& prom);
// The union of the pools whose names start with `prefix`, or nullopt when
// a target sits in two of them.
std::optional<std::set<std::string>> union_of(const std::map<std::string, std::set<std::string>>& p,
                                              const std::string& prefix);

}  // namespace sharding_e2e
