// The integrations SD aggregator's core: reading pod answers, the merge,
// single flight, the freshness window and per-pod health.
#include <catch2/catch.hpp>

#include <algorithm>

#include "model/log_format.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"
#include "sd/aggregator.hpp"

using namespace sd;
using namespace std::chrono_literals;

namespace {

const AgentKey kA{"mon", "a"}, kB{"ops", "b"};

PodAnswer ok(const AgentKey& agent, const std::string& address, const std::string& body) {
  PodAnswer a;
  a.pod = {agent, address};
  a.status = 200;
  a.content_type = "application/json";
  a.body = body;
  return a;
}

std::string node_exporter(const std::string& host) {
  return R"([{"targets": [")" + host + R"(:12345"], "labels": {"job": "integrations/node_exporter",
             "instance": ")" +
         host + R"(", "__metrics_path__": "/integrations/node_exporter/metrics"}}])";
}

}  // namespace

TEST_CASE("a pod answer is read as http_sd, and every failure is classified", "[sd]") {
  CHECK(read_answer(ok(kA, "10.0.0.1:80", node_exporter("n1"))).groups.size() == 1);
  PodAnswer a = ok(kA, "10.0.0.1:80", "[{]");
  CHECK(read_answer(a).failure == Failure::malformed);
  a = ok(kA, "10.0.0.1:80", R"([{"targets": [1]}])");
  CHECK(read_answer(a).failure == Failure::malformed);
  CHECK(read_answer(a).detail == "[0].targets[0]: must be a string");
  a.status = 500;
  CHECK(read_answer(a).failure == Failure::status);
  a = ok(kA, "10.0.0.1:80", "[]");
  a.content_type = "text/html";
  CHECK(read_answer(a).failure == Failure::content_type);
  a = PodAnswer{{kA, "10.0.0.1:80"}, 0, "", "", "Connection refused"};
  CHECK(read_answer(a).failure == Failure::transport);
  a.timed_out = true;
  CHECK(read_answer(a).failure == Failure::timeout);
  a.too_large = true;
  CHECK(read_answer(a).failure == Failure::too_large);
}

TEST_CASE("the merge labels each group with its GrafanaAgent and sorts, whatever the order", "[sd]") {
  Fragments results;
  results[{kB, "10.0.1.1:80"}] =
      Fragment(pod_fragment({kB, "10.0.1.1:80"}, read_answer(ok(kB, "10.0.1.1:80", node_exporter("n2"))).groups));
  results[{kA, "10.0.0.1:80"}] =
      Fragment(pod_fragment({kA, "10.0.0.1:80"}, read_answer(ok(kA, "10.0.0.1:80", node_exporter("n1"))).groups));
  const std::string body = merge(results, std::nullopt);
  const model::Value doc = model::parse_json(body, "merged");
  REQUIRE(doc.as_array().size() == 2);
  const model::Value& first = doc.as_array()[0];
  CHECK(first.find("labels")->find(kAgentNamespaceLabel)->as_string() == "mon");
  CHECK(first.find("labels")->find(kAgentNameLabel)->as_string() == "a");
  CHECK(first.find("targets")->as_array()[0].as_string() == "n1:12345");
  // ?agent=ops/b
  const model::Value only = model::parse_json(merge(results, kB), "b");
  REQUIRE(only.as_array().size() == 1);
  CHECK(only.as_array()[0].find("labels")->find(kAgentNameLabel)->as_string() == "b");
  CHECK(merge({}, std::nullopt) == "[]");
  // A pod's groups are sorted whatever order it answered them in, and the
  // text is what to_json writes for the same groups.
  std::vector<model::HttpSdGroup> groups = {{{"b:1"}, {{"job", "z"}}}, {{"a:1"}, {{"job", "y"}}}};
  std::string fragment = pod_fragment({kA, "p"}, groups);
  std::reverse(groups.begin(), groups.end());
  CHECK(pod_fragment({kA, "p"}, groups) == fragment);
  model::Value doc2 = model::parse_json("[" + fragment + "]", "f");
  CHECK(model::to_json(doc2) == "[" + fragment + "]");
  CHECK(doc2.as_array()[0].find("labels")->find("job")->as_string() == "y");
}

TEST_CASE("a merge's entity tag follows its fragments, not the order they arrived in", "[sd]") {
  auto fragment = [](const AgentKey& agent, const std::string& node) {
    PodTarget pod{agent, node + ":80"};
    return Fragment(pod_fragment(pod, read_answer(ok(agent, pod.address, node_exporter(node))).groups));
  };
  Fragments one, two;
  one.emplace(PodTarget{kA, "n1:80"}, fragment(kA, "n1"));
  one.emplace(PodTarget{kB, "n2:80"}, fragment(kB, "n2"));
  two.emplace(PodTarget{kB, "n2:80"}, fragment(kB, "n2"));
  two.emplace(PodTarget{kA, "n1:80"}, fragment(kA, "n1"));
  const std::string tag = merge_etag(one, std::nullopt);
  CHECK(tag.size() == 34);
  CHECK(tag.front() == '"');
  CHECK(merge_etag(two, std::nullopt) == tag);
  // A filter keeps fewer fragments: another body, another tag.
  CHECK(merge_etag(one, kA) != tag);
  CHECK(merge(one, kA) != merge(one, std::nullopt));
  // One target changes: a new body and a new tag.
  two.insert_or_assign(PodTarget{kB, "n2:80"}, fragment(kB, "n3"));
  CHECK(merge(two, std::nullopt) != merge(one, std::nullopt));
  CHECK(merge_etag(two, std::nullopt) != tag);
  CHECK(merge_etag(two, kA) == merge_etag(one, kA));
  // A pod that answered with no groups adds nothing to the body or the tag.
  one.emplace(PodTarget{kA, "n9:80"}, Fragment(""));
  CHECK(merge_etag(one, std::nullopt) == tag);
}

TEST_CASE("one fan-out at a time, served from the last merge while fresh", "[sd]") {
  Aggregator agg(1000ms);
  agg.set_pods(kA, {"10.0.0.2:80", "10.0.0.1:80"});
  agg.set_pods(kB, {"10.0.1.1:80"});
  const TimePoint t0{};
  Poll p = agg.poll(t0);
  REQUIRE(p.action == Poll::Action::start);
  REQUIRE(p.fetch.size() == 3);
  CHECK(agg.poll(t0 + 5ms).action == Poll::Action::wait);  // single flight
  std::vector<model::LogEntry> logs;
  // Answers arrive in any order; a hanging pod does not drop the others.
  CHECK_FALSE(agg.answer(ok(kB, "10.0.1.1:80", node_exporter("n3")), t0 + 10ms, logs));
  CHECK_FALSE(agg.answer(ok(kA, "10.0.0.2:80", node_exporter("n2")), t0 + 12ms, logs));
  PodAnswer hung{{kA, "10.0.0.1:80"}, 0, "", "", "Operation timed out after 5000 milliseconds", true};
  CHECK(agg.answer(hung, t0 + 5000ms, logs));
  CHECK_FALSE(agg.in_flight());
  REQUIRE(logs.size() == 1);
  CHECK(model::log_text(logs[0]) ==
        "level=warn component=integrations-sd msg=\"pod answer failed\" object=\"GrafanaAgent mon/a\" "
        "pod=10.0.0.1:80 reason=timeout error=\"Operation timed out after 5000 milliseconds\"");
  CHECK(agg.failures().at({kA, "timeout"}) == 1);
  CHECK(model::parse_json(agg.body(std::nullopt), "x").as_array().size() == 2);
  CHECK(agg.poll(t0 + 5500ms).action == Poll::Action::serve);  // fresh
  // Stale: a new fan-out. The same failure is counted again but not logged
  // again; a recovery is logged once.
  p = agg.poll(t0 + 6001ms);
  REQUIRE(p.action == Poll::Action::start);
  logs.clear();
  agg.answer(hung, t0 + 6100ms, logs);
  CHECK(logs.empty());
  CHECK(agg.failures().at({kA, "timeout"}) == 2);
  agg.answer(ok(kA, "10.0.0.2:80", node_exporter("n2")), t0 + 6100ms, logs);
  agg.answer(ok(kB, "10.0.1.1:80", node_exporter("n3")), t0 + 6100ms, logs);
  p = agg.poll(t0 + 7200ms);
  agg.answer(ok(kA, "10.0.0.1:80", node_exporter("n1")), t0 + 7210ms, logs);
  REQUIRE(logs.size() == 1);
  CHECK(model::log_text(logs[0]) ==
        "level=info component=integrations-sd msg=\"pod answers again\" object=\"GrafanaAgent mon/a\" "
        "pod=10.0.0.1:80");
}

TEST_CASE("a changed pod set is fanned out at once, and an answer from outside the fan-out is ignored", "[sd]") {
  Aggregator agg(60s);
  const TimePoint t0{};
  Poll p = agg.poll(t0);
  CHECK(p.action == Poll::Action::serve);  // no pods: an empty merge at once
  CHECK(agg.body(std::nullopt) == "[]");
  agg.set_pods(kA, {"10.0.0.1:80"});
  p = agg.poll(t0 + 1ms);  // within the window, but the pods changed
  REQUIRE(p.action == Poll::Action::start);
  std::vector<model::LogEntry> logs;
  CHECK_FALSE(agg.answer(ok(kA, "10.9.9.9:80", node_exporter("x")), t0 + 2ms, logs));
  CHECK(agg.in_flight());
  CHECK(agg.answer(ok(kA, "10.0.0.1:80", node_exporter("n1")), t0 + 3ms, logs));
  CHECK(model::parse_json(agg.body(kA), "x").as_array().size() == 1);
  agg.set_pods(kA, {});
  CHECK(agg.pods().empty());
  CHECK(agg.body(std::nullopt) == "[]");  // a pod that left is no longer served
}

TEST_CASE("a late answer from an earlier fan-out never counts for a later one", "[sd]") {
  Aggregator agg(0ms);
  agg.set_pods(kA, {"10.0.0.1:80"});
  const TimePoint t0{};
  REQUIRE(agg.poll(t0).action == Poll::Action::start);
  std::uint64_t first = agg.fanout();
  std::vector<model::LogEntry> logs;
  CHECK(agg.expire(t0 + 5020ms, logs).size() == 1);  // the deadline: timed out
  REQUIRE(agg.poll(t0 + 5021ms).action == Poll::Action::start);
  PodAnswer late = ok(kA, "10.0.0.1:80", node_exporter("stale"));
  late.fanout = first;
  CHECK_FALSE(agg.answer(late, t0 + 5030ms, logs));
  CHECK(agg.in_flight());
  PodAnswer fresh = ok(kA, "10.0.0.1:80", node_exporter("n1"));
  fresh.fanout = agg.fanout();
  CHECK(agg.answer(fresh, t0 + 5040ms, logs));
  CHECK(agg.body(std::nullopt).find("stale") == std::string::npos);
  CHECK(agg.body(std::nullopt).find("n1:12345") != std::string::npos);
}

TEST_CASE("a pod set changed during a fan-out drops leavers and makes the merge stale", "[sd]") {
  Aggregator agg(60s);
  agg.set_pods(kA, {"10.0.0.1:80", "10.0.0.2:80"});
  const TimePoint t0{};
  REQUIRE(agg.poll(t0).action == Poll::Action::start);
  std::uint64_t before = agg.generation();
  agg.set_pods(kA, {"10.0.0.1:80", "10.0.0.3:80"});  // .2 leaves, .3 arrives mid-flight
  CHECK(agg.generation() > before);
  std::vector<model::LogEntry> logs;
  agg.answer(ok(kA, "10.0.0.2:80", node_exporter("n2")), t0 + 1ms, logs);
  CHECK(agg.answer(ok(kA, "10.0.0.1:80", node_exporter("n1")), t0 + 2ms, logs));
  std::string body = agg.body(std::nullopt);
  CHECK(body.find("n1:12345") != std::string::npos);
  CHECK(body.find("n2:12345") == std::string::npos);
  Poll p = agg.poll(t0 + 3ms);  // within the window, but .3 was never asked
  REQUIRE(p.action == Poll::Action::start);
  CHECK(p.fetch.size() == 2);
  agg.answer(ok(kA, "10.0.0.1:80", node_exporter("n1")), t0 + 4ms, logs);
  agg.answer(ok(kA, "10.0.0.3:80", node_exporter("n3")), t0 + 5ms, logs);
  CHECK(agg.poll(t0 + 6ms).action == Poll::Action::serve);
  CHECK(&agg.body(std::nullopt) == &agg.body(std::nullopt));  // kept until it changes
}

TEST_CASE("http_sd bodies round-trip through encode and parse", "[sd][http_sd]") {
  std::vector<model::HttpSdGroup> groups = {{{"a:1", "b:2"}, {{"job", "x"}, {"z", "\"quoted\"\n"}}}, {{}, {}}};
  CHECK(model::parse_http_sd(model::encode_http_sd(groups), "t") == groups);
  CHECK_THROWS_AS(model::parse_http_sd("{}", "t"), model::HttpSdError);
  CHECK_THROWS_WITH(model::parse_http_sd(R"([{"labels": {"1bad": "x"}}])", "t"),
                    "[0].labels: \"1bad\" is not a valid label name");
  CHECK_NOTHROW(model::check_http_sd_response(200, "application/json; charset=utf-8"));
  CHECK_THROWS_WITH(model::check_http_sd_response(503, "application/json"), "status: server returned HTTP status 503");
}
