// The target allocator's Lease elector against an in-process simcluster,
// with rounds driven by hand on a fake clock (no sleeping): takeover only
// after expiry, immediate step-down on seeing another holder, and
// step-down once renewals fail for longer than the renew deadline.
#include <catch2/catch.hpp>

#include "k8s/client/curl_transport.hpp"
#include "k8s/sim/server.hpp"
#include "k8s/sim_fixture.hpp"
#include "lease_elector.hpp"

namespace {

struct Replica {
  k8s::Client client;
  std::vector<bool> changes;
  target_allocator::LeaseElector elector;

  Replica(k8s::sim::Server& api, const std::string& id, std::int64_t& now, unsigned max_retries = 5)
      : client(k8s::make_curl_transport(cluster(api)), options(max_retries)),
        elector(client, config(id), [this](bool leading) { changes.push_back(leading); },
                {[&now] { return now; }, [&now] { return 1714564800000 + now; }}) {}

  static k8s::ClusterConfig cluster(k8s::sim::Server& api) {
    k8s::ClusterConfig cc;
    cc.server = api.url();
    return cc;
  }
  static k8s::ClientOptions options(unsigned max_retries) {
    k8s::ClientOptions o;
    o.max_retries = max_retries;
    return o;
  }
  static k8s::lease::LeaderConfig config(const std::string& id) {
    k8s::lease::LeaderConfig c;
    c.identity = id;
    c.ns = "observability";
    c.name = "target-allocator";
    c.lease_duration = std::chrono::milliseconds(2000);
    c.renew_deadline = std::chrono::milliseconds(1500);
    c.retry_period = std::chrono::milliseconds(200);
    return c;
  }
};

std::string holder(simtest::SimFixture& sim) {
  auto lease = sim.cluster.store().get(sim.type("coordination.k8s.io", "leases"), "observability", "target-allocator");
  return lease ? lease->value.find("spec")->find("holderIdentity")->as_string() : "";
}

// simcluster with the Lease's namespace, served over HTTP.
struct LeaseApi {
  simtest::SimFixture sim;
  k8s::sim::Server api{sim.cluster, {}};
  LeaseApi() {
    api.start();
    sim.create("namespaces", R"({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "observability"}})", "");
  }
};

}  // namespace

TEST_CASE("allocator replicas elect one leader and a standby takes over only after the lease expires",
          "[allocation][leader]") {
  LeaseApi env;
  auto& sim = env.sim;
  auto& api = env.api;
  std::int64_t now = 0;
  Replica a(api, "a", now), b(api, "b", now);
  CHECK(a.elector.step());
  CHECK_FALSE(b.elector.step());
  CHECK(holder(sim) == "a");
  now += 1000;
  CHECK(a.elector.step());  // renews
  CHECK_FALSE(b.elector.step());
  now += 1900;  // a stops renewing; b saw the renewal 1900 ms ago: not expired yet
  CHECK_FALSE(b.elector.step());
  now += 200;
  CHECK(b.elector.step());
  CHECK(holder(sim) == "b");
  CHECK(a.elector.leading());     // a has not looked yet...
  CHECK_FALSE(a.elector.step());  // ...and steps down on its next round
  CHECK(a.changes == std::vector<bool>{true, false});
  CHECK(b.changes == std::vector<bool>{true});
}

TEST_CASE("an allocator leader steps down when renewals fail past the renew deadline", "[allocation][leader]") {
  LeaseApi env;
  auto& api = env.api;
  std::int64_t now = 0;
  Replica a(api, "a", now, 0);
  REQUIRE(a.elector.step());
  k8s::sim::FaultConfig fc;
  fc.error_5xx_rate = 1.0;
  api.faults().set_config(fc);
  now += 1000;
  CHECK(a.elector.step());  // the read failed, but the deadline has not passed
  now += 600;
  CHECK_FALSE(a.elector.step());
  CHECK(a.changes == std::vector<bool>{true, false});
  api.faults().set_config({});
  now += 200;
  CHECK(a.elector.step());  // still the holder of record: renews again
}

TEST_CASE("an allocator leader hands the Lease back on shutdown and a standby takes it at once",
          "[allocation][leader]") {
  LeaseApi env;
  auto& sim = env.sim;
  auto& api = env.api;
  std::int64_t now = 0;
  Replica a(api, "a", now), b(api, "b", now);
  REQUIRE(a.elector.step());
  CHECK_FALSE(b.elector.step());
  CHECK_FALSE(b.elector.release());  // a standby has nothing to hand back
  CHECK(holder(sim) == "a");
  CHECK(a.elector.release());
  CHECK(holder(sim) == "");
  CHECK(a.changes == std::vector<bool>{true, false});
  now += 10;  // far less than the lease duration
  CHECK(b.elector.step());
  CHECK(holder(sim) == "b");
}
