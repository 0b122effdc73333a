// A referenced Secret that is deleted keeps being used until its grace
// expiry event: a delete-and-recreate rotation is no outage.
#include <catch2/catch.hpp>

#include "actors/core/pipeline.hpp"
#include "actors_fixtures.hpp"
#include "model/codec.hpp"

using namespace actors::core;
using actors_test::doc;

namespace {

using actors_test::kAlpha;
const char* kToken = "{apiVersion: v1, kind: Secret, metadata: {name: token, namespace: app1}, stringData: {t: %s}}";

std::string token(const std::string& value) {
  std::string s = kToken;
  return s.replace(s.find("%s"), 2, value);
}

std::string config_of(const Pipeline& p) {
  for (const auto& o : *p.roots().at(kAlpha).desired)
    if (o.find("metadata")->find("name")->as_string() == "alpha-config")
      return *model::base64_decode(o.find("data")->find("agent.yml")->as_string());
  return "";
}

struct GraceRun {
  actors_test::Cluster c;
  Pipeline p;
  std::size_t fed = 0;
  GraceRun() {
    c.expire_deletions = false;  // the test sends the expiry itself
    c.apply_yaml(actors_test::kScenario);
    settle();
  }
  void settle() {
    for (; fed < c.events().size(); ++fed) p.feed(c.events()[fed]);
    p.settle();
  }
  const std::vector<model::Problem>& problems() const { return p.roots().at(kAlpha).problems; }
};

}  // namespace

TEST_CASE("a deleted Secret stays in use, reported, until its grace expiry", "[actors][grace]") {
  GraceRun r;
  std::string before = config_of(r.p);
  REQUIRE(before.find("bearer_token: s3cret") != std::string::npos);
  r.c.add(doc(token("s3cret")), EventType::deleted);
  r.settle();
  CHECK(config_of(r.p) == before);  // jobs and values kept
  REQUIRE(r.problems().size() == 1);
  CHECK(r.problems()[0].kind == "Secret");
  CHECK(r.problems()[0].name == "token");
  CHECK(r.problems()[0].message.find("stays in use for the grace period") != std::string::npos);

  SECTION("re-created: only the rotated value changes") {
    r.c.add(doc(token("rotated")));
    r.settle();
    std::string after = config_of(r.p);
    CHECK(r.problems().empty());
    std::string expected = before;
    expected.replace(expected.find("s3cret"), 6, "rotated");
    CHECK(after == expected);
    // The expiry of the old deletion arrives late: it is void.
    r.c.add(grace_expiry(doc(token("s3cret"))), EventType::deleted);
    r.settle();
    CHECK(config_of(r.p) == expected);
  }
  SECTION("expired: the member that references it is dropped as before") {
    r.c.add(grace_expiry(doc(token("s3cret"))), EventType::deleted);
    r.settle();
    CHECK(config_of(r.p).find("web-a") == std::string::npos);
    REQUIRE_FALSE(r.problems().empty());
    CHECK(r.problems()[0].kind == "ServiceMonitor");
  }
}

// Found by the chaos soak: a root that stops referencing a Secret in its
// grace period is not routed that Secret's expiry. Its tombstone (with the
// old value) must go when the reference goes, or a member that references
// the Secret again later is rendered with the deleted value.
TEST_CASE("a tombstone goes when its last reference goes, not only at the expiry", "[actors][grace]") {
  GraceRun r;
  r.c.add(doc(token("s3cret")), EventType::deleted);
  r.settle();
  REQUIRE(config_of(r.p).find("bearer_token: s3cret") != std::string::npos);
  const std::string web_a = R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web-a, namespace: app1, labels: {team: %s}}
spec:
  selector: {matchLabels: {app: web-a}}
  endpoints: [{port: http, bearerTokenSecret: {name: token, key: t}}]
)";
  auto with_team = [&](const std::string& team) {
    std::string s = web_a;
    return doc(s.replace(s.find("%s"), 2, team));
  };
  r.c.add(with_team("none"));  // no root selects it, so none references the Secret
  r.settle();
  r.c.add(grace_expiry(doc(token("s3cret"))), EventType::deleted);
  r.settle();
  r.c.add(with_team("web"));  // selected again: the Secret is gone
  r.settle();
  CHECK(config_of(r.p).find("s3cret") == std::string::npos);
  bool reported = false;
  for (const auto& p : r.problems()) reported = reported || (p.kind == "ServiceMonitor" && p.name == "web-a");
  CHECK(reported);
}
