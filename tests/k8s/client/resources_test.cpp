// The kind table and URL paths, checked against simcluster's discovery:
// every kind the client knows must be served where the client looks.
#include <catch2/catch.hpp>

#include "client_fixture.hpp"

using namespace k8s;

TEST_CASE("resource paths for core and grouped kinds", "[client][resources]") {
  const Resource* secret = resource_for_kind("Secret");
  REQUIRE(secret);
  CHECK(resource_path(*secret, "ns1") == "/api/v1/namespaces/ns1/secrets");
  CHECK(resource_path(*secret, "ns1", "s") == "/api/v1/namespaces/ns1/secrets/s");
  CHECK(resource_path(*secret, "") == "/api/v1/secrets");
  const Resource* agent = resource_for_kind("GrafanaAgent");
  REQUIRE(agent);
  CHECK(agent->api_version() == "monitoring.grafana.com/v1alpha1");
  CHECK(resource_path(*agent, "ns", "a", "status") ==
        "/apis/monitoring.grafana.com/v1alpha1/namespaces/ns/grafanaagents/a/status");
  const Resource* node = resource_for_kind("Node");
  REQUIRE(node);
  CHECK(resource_path(*node, "ignored", "n1") == "/api/v1/nodes/n1");
  CHECK(resource_for_kind("Event")->group.empty());
  CHECK(resource_for_kind("events.k8s.io/Event")->group == "events.k8s.io");
  CHECK(resource_for_kind("Unknown") == nullptr);
  CHECK(resource_for_kind("secret") == nullptr);  // kinds are case-sensitive
}

TEST_CASE("every built-in kind of the table is served by simcluster at its path", "[client][resources]") {
  clienttest::SimServer sim;
  Client client(make_curl_transport(sim.config()));
  std::vector<std::string> unserved;
  for (const char* kind : {"Namespace",
                           "Node",
                           "Secret",
                           "ConfigMap",
                           "Service",
                           "Endpoints",
                           "Pod",
                           "ServiceAccount",
                           "Event",
                           "StatefulSet",
                           "DaemonSet",
                           "Deployment",
                           "Lease",
                           "EndpointSlice",
                           "events.k8s.io/Event",
                           "Role",
                           "RoleBinding",
                           "ClusterRole",
                           "ClusterRoleBinding",
                           "CustomResourceDefinition",
                           "Ingress"}) {
    INFO(kind);
    const Resource* r = resource_for_kind(kind);
    REQUIRE(r);
    auto type = sim.cluster().find_type(r->group, r->version, r->plural);
    if (!type) {
      unserved.push_back(kind);
      continue;
    }
    CHECK(type->kind == r->kind);
    CHECK(type->namespaced == r->namespaced);
    Result res = clienttest::call([&](Callback cb) { client.list(*r, r->namespaced ? "default" : "", {}, cb); });
    CHECK(res.status == 200);
    CHECK(res.body.find("\"kind\":\"" + r->kind + "List\"") != std::string::npos);
  }
  // simcluster does not serve these (yet); when it does, they are checked above.
  CHECK(unserved == std::vector<std::string>{"events.k8s.io/Event"});
}
