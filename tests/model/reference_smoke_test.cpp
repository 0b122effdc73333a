#include <catch2/catch.hpp>

#include "golden_util.hpp"

TEST_CASE("reference cases load", "[golden]") {
  auto rc = testutil::load_reference_case("D1_servicemonitor_tls_bearer_ns");
  CHECK(rc.entry == "agent-metrics.libsonnet");
  CHECK(rc.inventory.agents.size() == 1);
  CHECK(rc.inventory.service_monitors.size() == 2);
  CHECK(rc.inventory.secrets.at({"app", "web-auth"}).decoded->data.at("pass") == "s3cret");
  CHECK(rc.expected.find("metrics") != nullptr);
}
