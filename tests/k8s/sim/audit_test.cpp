// simcluster's audit log (--audit-log-path): one audit.k8s.io/v1 Event per
// write request, whatever its answer, with the user, the User-Agent and
// the object; Leases with the object as written; reads not logged.
#include <catch2/catch.hpp>

#include <httplib.h>
#include <filesystem>
#include <fstream>

#include "k8s/sim/server.hpp"
#include "model/parse.hpp"
#include "sim_fixture.hpp"

using namespace k8s::sim;

namespace {

std::vector<model::Value> read_lines(const std::string& path) {
  std::vector<model::Value> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) out.push_back(model::parse_json(line, "audit"));
  return out;
}

std::string at(const model::Value& v, std::initializer_list<const char*> path) {
  const model::Value* x = &v;
  for (const char* p : path) x = x ? x->find(p) : nullptr;
  if (!x) return "<absent>";
  return x->is_string() ? x->as_string() : std::to_string(x->as_int());
}

}  // namespace

TEST_CASE("simcluster audits every write with its user, agent, object and answer", "[k8s][audit]") {
  std::string path = (std::filesystem::temp_directory_path() / ("ao-audit-" + std::to_string(::getpid()))).string();
  std::filesystem::remove(path);
  SystemClock clock;
  Cluster cluster(clock);
  ServerOptions o;
  o.token = "admin";
  o.audit_log_path = path;
  Server server(cluster, o);
  server.start();
  httplib::Client cli("127.0.0.1", server.port());
  httplib::Headers h = {{"Authorization", "Bearer admin"}, {"User-Agent", "agent-operator/1.0 (replica-a)"}};
  const char* leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
  REQUIRE(cli.Post(leases, h, R"({"metadata":{"name":"l"},"spec":{"holderIdentity":"replica-a"}})", "application/json")
              ->status == 201);
  REQUIRE(cli.Get("/api/v1/namespaces/default/configmaps", h)->status == 200);
  REQUIRE(cli.Post("/api/v1/namespaces/default/configmaps", h, R"({"metadata":{"name":"c"}})", "application/json")
              ->status == 201);
  server.faults().set_config({.error_5xx_rate = 1});
  REQUIRE(cli.Delete("/api/v1/namespaces/default/configmaps/c", h)->status >= 500);
  server.faults().set_config({});
  REQUIRE(cli.Delete("/api/v1/namespaces/default/configmaps/c", {{"User-Agent", "anonymous"}})->status == 401);
  server.stop();

  auto events = read_lines(path);
  REQUIRE(events.size() == 4);  // the list is not a write
  const model::Value& lease = events[0];
  CHECK(at(lease, {"apiVersion"}) == "audit.k8s.io/v1");
  CHECK(at(lease, {"level"}) == "RequestResponse");
  CHECK(at(lease, {"verb"}) == "create");
  CHECK(at(lease, {"user", "username"}) == "kubernetes-admin");
  CHECK(at(lease, {"userAgent"}) == "agent-operator/1.0 (replica-a)");
  CHECK(at(lease, {"objectRef", "name"}) == "l");  // from the answer: a create's URL has no name
  CHECK(at(lease, {"responseObject", "spec", "holderIdentity"}) == "replica-a");
  CHECK(at(lease, {"requestReceivedTimestamp"}) <= at(lease, {"stageTimestamp"}));
  CHECK(at(lease, {"stageTimestamp"}).size() == std::string("2024-05-01T12:00:00.000000Z").size());
  CHECK(at(events[1], {"level"}) == "Metadata");
  CHECK(at(events[1], {"objectRef", "resource"}) == "configmaps");
  CHECK(at(events[1], {"responseObject"}) == "<absent>");
  CHECK(at(events[2], {"verb"}) == "delete");
  CHECK(std::stoi(at(events[2], {"responseStatus", "code"})) >= 500);
  CHECK(at(events[3], {"responseStatus", "code"}) == "401");
  CHECK(at(events[3], {"user", "username"}) == "");
  std::filesystem::remove(path);
}
