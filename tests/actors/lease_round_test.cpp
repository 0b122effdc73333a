// The election round both electors share (k8s/lease/round.hpp), driven by
// hand: create when absent, renew, step down on another live holder or a
// missed renew deadline, and hand the Lease back on shutdown.
#include <catch2/catch.hpp>

#include "k8s/lease/round.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

using namespace k8s::lease;

namespace {

LeaderConfig config(const std::string& id) {
  LeaderConfig c;
  c.identity = id;
  c.ns = "ops";
  c.lease_duration = std::chrono::milliseconds(3000);
  c.renew_deadline = std::chrono::milliseconds(2000);
  return c;
}

// What the API server stores: the body with a resourceVersion.
std::string stored(const model::Value& body, int rv) {
  model::Value v = body;
  v.find("metadata")->set("resourceVersion", std::to_string(rv));
  return model::to_json(v);
}

std::string holder(const std::string& json) {
  return model::parse_json(json).find("spec")->find("holderIdentity")->as_string();
}

}  // namespace

TEST_CASE("an election round creates, renews, and steps down on a missed deadline", "[leader]") {
  LeaderConfig cfg = config("a");
  RoundState st;
  RoundStep s = after_read(cfg, st, 404, "", 100, 1'000);
  REQUIRE(s.write == LeaseWrite::create);
  after_write(cfg, st, true, stored(s.body, 1), 150);
  CHECK(st.leading);
  CHECK(st.last_renew_ms == 100);  // the send time, not the answer's
  s = after_read(cfg, st, 200, stored(s.body, 1), 1'100, 2'000);
  REQUIRE(s.write == LeaseWrite::update);
  CHECK(s.body.find("metadata")->find("resourceVersion")->as_string() == "1");
  after_write(cfg, st, false, "", 1'200);  // the renew failed: within the deadline
  CHECK(st.leading);
  after_read(cfg, st, 500, "", 2'100, 3'000);
  CHECK(st.leading);
  after_read(cfg, st, 500, "", 2'101, 3'001);  // 2001 ms since the renew was sent
  CHECK_FALSE(st.leading);
}

TEST_CASE("an election round steps down at once when another replica holds a live Lease", "[leader]") {
  LeaderConfig a = config("a"), b = config("b");
  RoundState sa, sb;
  RoundStep s = after_read(a, sa, 404, "", 0, 0);
  after_write(a, sa, true, stored(s.body, 1), 0);
  std::string lease = stored(s.body, 1);
  CHECK(after_read(b, sb, 200, lease, 10, 10).write == LeaseWrite::none);
  // b waits out the lease duration from when it first saw this record.
  RoundStep take = after_read(b, sb, 200, lease, 3'010, 3'010);
  REQUIRE(take.write == LeaseWrite::update);
  after_write(b, sb, true, stored(take.body, 2), 3'020);
  CHECK(sb.leading);
  CHECK(after_read(a, sa, 200, stored(take.body, 2), 3'030, 3'030).write == LeaseWrite::none);
  CHECK_FALSE(sa.leading);
  CHECK_FALSE(step_down(a, sa, 3'040));  // nothing to hand back
}

TEST_CASE("stepping down hands back the Lease this replica holds", "[leader]") {
  LeaderConfig cfg = config("a");
  RoundState st;
  RoundStep s = after_read(cfg, st, 404, "", 0, 0);
  after_write(cfg, st, true, stored(s.body, 4), 0);
  auto out = step_down(cfg, st, 5'000);
  REQUIRE(out);
  CHECK_FALSE(st.leading);
  CHECK(holder(model::to_json(*out)).empty());
  CHECK(out->find("metadata")->find("resourceVersion")->as_string() == "4");
  CHECK_FALSE(step_down(cfg, st, 5'001));  // only once
}
