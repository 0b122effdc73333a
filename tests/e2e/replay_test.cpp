// Replay: a journal recorded in a live run against simcluster, replayed by
// the real `agent-operator replay` command, gives byte-identical desired
// objects at the seq points where the live roots rendered.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <mutex>

#include "../k8s/process.hpp"
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
    rec.renders[out.seq] = model::to_yaml_stream(out.effects.desired);
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
        testutil::run({std::string(AO_BIN_DIR) + "/agent-operator", "replay", journal, "--until", std::to_string(seq)});
    REQUIRE(r.code == 0);
    CHECK(r.out == rec.renders.at(seq));
  }
  // The checkpoints differ from each other: the test would notice a replay
  // that ignored --until.
  CHECK(rec.renders.at(checkpoints[0]) != rec.renders.at(checkpoints[1]));
  std::filesystem::remove_all(dir);
}
