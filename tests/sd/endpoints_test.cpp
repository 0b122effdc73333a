// Reading an integrations Service's Endpoints: whose pods, which of them
// are ready, and at which port.
#include <catch2/catch.hpp>

#include "model/parse.hpp"
#include "sd/endpoints.hpp"

using namespace sd;

namespace {

model::Value endpoints(const std::string& labels, const std::string& subsets) {
  return model::parse_documents(
             "apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: a-integrations\n"
             "  namespace: mon\n  labels: " +
                 labels + "\nsubsets: " + subsets,
             "fixture")
      .at(0)
      .value;
}

const std::string kLabels =
    "{operator.agent.grafana.com/name: a, operator.agent.grafana.com/type: integrations,"
    " app.kubernetes.io/managed-by: grafana-agent-operator}";

}  // namespace

TEST_CASE("Endpoints name their GrafanaAgent and its ready pods, sorted", "[sd]") {
  auto pods = read_endpoints(endpoints(kLabels,
                                       "[{addresses: [{ip: 10.0.0.2}, {ip: 10.0.0.1}], notReadyAddresses: [{ip: "
                                       "10.0.0.9}], ports: [{name: http-metrics, port: 8080}]},"
                                       " {addresses: [{ip: 'fd00::1'}, {ip: 10.0.0.1}], ports: [{port: 8080}]}]"));
  REQUIRE(pods);
  CHECK(pods->agent == AgentKey{"mon", "a"});
  CHECK(pods->addresses == std::vector<std::string>{"10.0.0.1:8080", "10.0.0.2:8080", "[fd00::1]:8080"});
}

TEST_CASE("of several ports the agent's is asked, and a subset without one is skipped", "[sd]") {
  auto pods = read_endpoints(
      endpoints(kLabels,
                "[{addresses: [{ip: 10.0.0.1}], ports: [{name: grpc, port: 9095}, {name: http-metrics, port: 8080}]},"
                " {addresses: [{ip: 10.0.0.2}], ports: [{name: grpc, port: 9095}, {name: other, port: 1}]},"
                " {addresses: [{ip: 10.0.0.3}], ports: [{port: 99999}]}, {addresses: [{ip: 10.0.0.4}]}]"));
  REQUIRE(pods);
  CHECK(pods->addresses == std::vector<std::string>{"10.0.0.1:8080"});
}

TEST_CASE("Endpoints that are not an integrations Service's are not read", "[sd]") {
  CHECK_FALSE(read_endpoints(endpoints("{operator.agent.grafana.com/name: a}", "[]")));
  CHECK_FALSE(read_endpoints(endpoints("{operator.agent.grafana.com/type: integrations}", "[]")));
  // Labelled like agent b's, but not b's Service: it must not set (or, when
  // deleted, clear) b's pods.
  CHECK_FALSE(read_endpoints(
      endpoints("{operator.agent.grafana.com/name: b, operator.agent.grafana.com/type: integrations}", "[]")));
  auto empty = read_endpoints(endpoints(kLabels, "null"));
  REQUIRE(empty);  // no subsets: the agent has no ready pods
  CHECK(empty->addresses.empty());
  CHECK(endpoints_label_selector() ==
        "app.kubernetes.io/managed-by=grafana-agent-operator,operator.agent.grafana.com/type=integrations");
}
