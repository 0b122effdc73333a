// Replay: a journal recorded in a live run against simcluster, replayed by
// the real `agent-operator replay` command, gives byte-identical desired
// objects at the seq points where the live roots rendered.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <mutex>

#include "k8s/sim/process.hpp"
#include "model/render.hpp"
#include "operator_fixture.hpp"

namespace {

struct Recorder {
  std::mutex mu;
  std::map<std::uint64_t, std::string> renders;  // seq -> desired objects as YAML
};

actors::ControllerOptions recording_options(const std::string& journal, Recorder& rec) {
  actors::ControllerOptions co;
  co.journal_path = journal;
  co.journal_include_secrets = true;
  co.root.debounce = std::chrono::milliseconds(20);
  co.writer.now_rfc3339 = [] { return std::string("2024-05-01T12:00:00Z"); };
  co.root.on_render = [&rec](const actors::RootOutput& out) {
    std::lock_guard<std::mutex> lock(rec.mu);
    rec.renders[out.seq] = model::to_yaml_stream(*out.effects.desired);
  };
  return co;
}

}  // namespace

TEST_CASE("a recorded journal replays to byte-identical desired objects", "[e2e][replay]") {
  auto dir = std::filesystem::temp_directory_path() / ("ao-replay-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string journal = (dir / "journal.jsonl").string();
  Recorder rec;
  std::vector<std::uint64_t> checkpoints;
  {
    e2e::OperatorFixture f({.start_operator = false});
    f.start_operator(recording_options(journal, rec));
    auto checkpoint = [&] {
      REQUIRE(f.wait_idle());
      std::lock_guard<std::mutex> lock(rec.mu);
      REQUIRE_FALSE(rec.renders.empty());
      checkpoints.push_back(rec.renders.rbegin()->first);
    };
    checkpoint();
    f.apply_yaml("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels: {monitoring: disabled}\n");
    checkpoint();
    f.apply_yaml(R"(apiVersion: v1
kind: Secret
metadata: {name: remote-write-credentials, namespace: monitoring}
stringData: {username: "123456", password: rotated}
)");
    checkpoint();
    f.stop_operator();
  }
  REQUIRE(checkpoints.size() == 3);
  for (std::uint64_t seq : checkpoints) {
    INFO("seq " << seq);
    auto r =
        k8s::sim::run({std::string(AO_BIN_DIR) + "/agent-operator", "replay", journal, "--until", std::to_string(seq)});
    REQUIRE(r.code == 0);
    CHECK(r.out == rec.renders.at(seq));
  }
  // The checkpoints differ from each other: the test would notice a replay
  // that ignored --until.
  CHECK(rec.renders.at(checkpoints[0]) != rec.renders.at(checkpoints[1]));
  std::filesystem::remove_all(dir);
}

// The fault of issue 13: restarts appended to the journal with no boundary,
// so an object deleted while the operator was down stayed in the replay.
TEST_CASE("a journal across a restart replays without what was deleted meanwhile", "[e2e][replay]") {
  auto dir = std::filesystem::temp_directory_path() / ("ao-restart-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string journal = (dir / "journal.jsonl").string();
  Recorder first, second;
  std::uint64_t first_seq = 0, second_seq = 0;
  {
    e2e::OperatorFixture f({.start_operator = false});
    f.start_operator(recording_options(journal, first));
    REQUIRE(f.wait_idle());
    f.stop_operator();
    first_seq = first.renders.rbegin()->first;
    f.remove("ServiceMonitor", "shop", "checkout");
    f.start_operator(recording_options(journal, second));
    REQUIRE(f.wait_idle());
    f.stop_operator();
    second_seq = second.renders.rbegin()->first;
  }
  REQUIRE(second_seq > first_seq);
  std::string bin = std::string(AO_BIN_DIR) + "/agent-operator";
  auto before = k8s::sim::run({bin, "replay", journal, "--until", std::to_string(first_seq)});
  REQUIRE(before.code == 0);
  CHECK(before.out == first.renders.at(first_seq));
  auto after = k8s::sim::run({bin, "replay", journal});
  INFO(after.err);
  REQUIRE(after.code == 0);
  CHECK(after.out == second.renders.at(second_seq));
  CHECK(after.out != first.renders.at(first_seq));  // the checkout job is gone from the config
  CHECK(after.err.find("level=info component=replay msg=replayed ") != std::string::npos);
  CHECK(after.err.find(" base=\"start marker after seq") != std::string::npos);
  auto explain = k8s::sim::run({bin, "replay", journal, "--explain", "monitoring/grafana-agent"});
  REQUIRE(explain.code == 0);
  CHECK(explain.out.find("ServiceMonitor shop/checkout") == std::string::npos);
  CHECK(explain.out.find("PodLogs shop/checkout: in") != std::string::npos);  // not deleted
  auto explain_before = k8s::sim::run(
      {bin, "replay", journal, "--until", std::to_string(first_seq), "--explain", "monitoring/grafana-agent"});
  CHECK(explain_before.out.find("ServiceMonitor shop/checkout: in") != std::string::npos);
  std::filesystem::remove_all(dir);
}
