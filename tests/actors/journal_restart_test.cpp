// The journal across restarts and rotations: start markers and snapshots
// make replay forget what vanished while no operator ran, each rotated file
// replays on its own, a rotated set replays in order, and a journal with no
// base state is refused. Driven through FileJournal and JournalRecorder, the
// journal actor's own parts, and replayed with replay_files as the replay
// command does.
#include <catch2/catch.hpp>

#include <map>

#include "actors/core/journal_reader.hpp"
#include "actors/core/journal_recorder.hpp"
#include "actors/core/journal_replay.hpp"
#include "actors/core/root_state.hpp"
#include "actors_fixtures.hpp"
#include "journal_test_util.hpp"

using namespace actors::core;
using actors_test::doc;
using actors_test::docs;
using actors_test::yaml_of;
using journal_test::TempDir;

namespace {

FileJournalOptions options(const std::string& path) {
  FileJournalOptions o;
  o.path = path;
  o.header = JournalHeader{kJournalVersion, "0.1.0", {{"secrets", "included"}}};
  o.fsync = FsyncPolicy::never;
  return o;
}

// One operator process writing the journal: its start marker, its initial
// list as RESYNC events, the synced marker, then changes. Secret values are
// included so replays compare with renders of the plain objects.
struct RestartRun {
  std::shared_ptr<FileJournal> file;
  JournalRecorder recorder;
  std::uint64_t seq;

  explicit RestartRun(const FileJournalOptions& o, std::chrono::milliseconds grace = std::chrono::minutes(5))
      : file(std::make_shared<FileJournal>(o)), recorder(file, policy(), grace), seq(file->last_seq()) {
    recorder.start(seq, actors_test::kT0, 4242);
  }
  static RedactionPolicy policy() {
    RedactionPolicy p("a fixed test key, 32 bytes long!");
    p.include_secrets = true;
    return p;
  }
  void list(const std::vector<model::Value>& objects) {
    for (const auto& o : objects) change(o, EventType::resync);
    recorder.synced(actors_test::kT0);
  }
  void change(const model::Value& obj, EventType t) {
    ++seq;
    recorder.record(make_event(seq, actors_test::kT0 + static_cast<std::int64_t>(seq) + later_ms, t, obj));
  }
  std::int64_t later_ms = 0;  // added to event times (1 ms per seq otherwise)
};

Pipeline replay_pipeline(const std::vector<std::string>& files, std::optional<std::uint64_t> until = std::nullopt) {
  ReplayOptions o;
  o.until = until;
  Pipeline p;
  replay_files(files, o, p);
  return p;
}

std::string replayed(const std::vector<std::string>& files, std::optional<std::uint64_t> until = std::nullopt) {
  return yaml_of(replay_pipeline(files, until).desired());
}

// Whether agent mon/alpha's hierarchy holds ServiceMonitor app1/web-a (its
// config Secret is gzipped, so the YAML does not show it).
bool alpha_has_web_a(const Pipeline& p) {
  return p.roots().at({"mon", "alpha"}).inventory.service_monitors.count({"app1", "web-a"}) == 1;
}

std::string reference_of(const std::vector<model::Value>& objects) {
  actors_test::Cluster c;
  for (const auto& o : objects) c.add(o);
  return yaml_of(c.reference());
}

bool named(const model::Value& obj, const std::string& name) {
  return object_key(obj).second == name;
}

model::Value monitor(int i, const std::string& team) {
  return doc("{apiVersion: monitoring.coreos.com/v1, kind: ServiceMonitor, metadata: {name: sm-" + std::to_string(i) +
             ", namespace: app1, labels: {team: " + team + "}}, spec: {selector: {matchLabels: {app: a" +
             std::to_string(i) + "}}, endpoints: [{port: http}]}}");
}

}  // namespace

TEST_CASE("a restart replaces what the previous run folded", "[actors][journal][replay]") {
  TempDir dir;
  std::string path = dir.file("journal.jsonl");
  std::vector<model::Value> before = docs(actors_test::kScenario);
  {
    RestartRun first(options(path));
    first.list(before);
  }
  // Deleted while no operator ran: the shared monitor and its token Secret.
  std::vector<model::Value> after;
  for (const auto& o : before)
    if (!named(o, "web-a") && !named(o, "token")) after.push_back(o);
  REQUIRE(after.size() == before.size() - 2);
  {
    RestartRun second(options(path));
    CHECK(second.seq == before.size());
    second.list(after);
  }
  JournalContents all = read_journal(journal_test::slurp(path));
  REQUIRE(all.markers.size() == 4);  // start, synced, start, synced
  CHECK(all.markers[2].type == MarkerType::start);
  CHECK(all.markers[2].seq == before.size());
  CHECK(all.markers[2].pid == 4242);

  std::string expected = reference_of(after);
  Pipeline replay = replay_pipeline({path});
  CHECK(yaml_of(replay.desired()) == expected);
  CHECK_FALSE(alpha_has_web_a(replay));
  // Folding every event without the boundary keeps web-a: the fault the
  // start marker fixes.
  Pipeline naive;
  for (const auto& e : all.events) naive.feed(e);
  naive.settle();
  CHECK(alpha_has_web_a(naive));
  CHECK(yaml_of(naive.desired()) != expected);
  // Up to the first run's last event, the replay shows the first run.
  Pipeline first_run = replay_pipeline({path}, before.size());
  CHECK(alpha_has_web_a(first_run));
  CHECK(yaml_of(first_run.desired()) == reference_of(before));
  // Inside the second run's initial list the state is partial, and said so.
  ReplayOptions mid;
  mid.until = before.size() + 3;
  Pipeline partial;
  ReplayReport r = replay_files({path}, mid, partial);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].find("before the operator had listed the whole cluster") != std::string::npos);
  CHECK(replay_files({path}, {}, partial).warnings.empty());
}

TEST_CASE("each rotated file replays alone to the state the whole set reaches there", "[actors][journal][replay]") {
  TempDir dir;
  std::string path = dir.file("journal.jsonl");
  FileJournalOptions o = options(path);
  o.max_bytes = 4000;
  o.keep_files = 20;
  std::map<std::uint64_t, std::string> reference;  // seq -> render over the cluster then
  actors_test::Cluster cluster;
  RestartRun run(o);
  std::vector<model::Value> initial = docs(actors_test::kScenario);
  for (const auto& obj : initial) cluster.add(obj);
  run.list(initial);
  reference[run.seq] = yaml_of(cluster.reference());
  for (int i = 0; i < 40; ++i) {
    // Every fifth change deletes the monitor the previous one wrote.
    EventType t = i % 5 == 4 ? EventType::deleted : EventType::modified;
    model::Value sm = t == EventType::deleted ? monitor((i - 1) % 7, (i - 1) % 3 ? "web" : "db")
                                              : monitor(i % 7, i % 3 ? "web" : "db");
    cluster.add(sm, t);
    run.change(sm, t);
    reference[run.seq] = yaml_of(cluster.reference());
  }
  run.recorder.flush();
  REQUIRE(run.file->rotations() >= 3);
  std::vector<std::string> set = rotated_set(path);
  REQUIRE(set.size() == run.file->rotations() + 1);
  REQUIRE(set.back() == path);
  for (std::size_t i = 0; i < set.size(); ++i) {
    INFO(set[i]);
    JournalContents c = read_journal(journal_test::slurp(set[i]));
    REQUIRE_FALSE(c.markers.empty());
    CHECK(c.markers.front().type == (i == 0 ? MarkerType::start : MarkerType::snapshot));
    std::uint64_t last = c.stats.last_seq;
    REQUIRE(reference.count(last));
    std::string alone = replayed({set[i]});
    CHECK(alone == reference.at(last));
    std::vector<std::string> upto(set.begin(), set.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    CHECK(replayed(upto) == alone);
    CHECK(replayed(set, last) == alone);
  }
  CHECK(replayed(set) == reference.rbegin()->second);
  // The states differ along the way: a replay that ignored --until or a
  // snapshot would be noticed.
  CHECK(reference.begin()->second != reference.rbegin()->second);
  // Newest first is refused rather than silently replaying an old state.
  std::vector<std::string> reversed(set.rbegin(), set.rend());
  CHECK_THROWS_AS(replayed(reversed), ReplayError);
}

TEST_CASE("a snapshot larger than the size limit does not rotate on every event", "[actors][journal]") {
  TempDir dir;
  FileJournalOptions o = options(dir.file("journal.jsonl"));
  o.max_bytes = 600;  // smaller than the scenario's state
  RestartRun run(o);
  run.list(docs(actors_test::kScenario));
  for (int i = 0; i < 60; ++i) run.change(monitor(i % 4, "web"), EventType::modified);
  // The state is ~3 KiB and the events ~13 KiB: each file holds at least as
  // much event data as its snapshot, so a handful of rotations.
  CHECK(run.file->rotations() >= 2);
  CHECK(run.file->rotations() <= 12);  // one per event without the rule: ~70
  CHECK(replayed(rotated_set(o.path)) == replayed({o.path}));
}

TEST_CASE("a journal without a base state is refused unless partial", "[actors][journal][replay]") {
  TempDir dir;
  std::vector<model::Value> objs = docs(actors_test::kScenario);
  JournalHeader v1{1, "0.1.0", {{"secrets", "included"}}};
  auto write = [&](const std::string& name, std::uint64_t first, std::size_t count) {
    std::string text = encode_header(v1);
    for (std::size_t i = 0; i < count; ++i)
      text += encode_event(make_event(first + i, actors_test::kT0, EventType::added, objs.at(i % objs.size())));
    journal_test::spit(dir.file(name), text);
    return dir.file(name);
  };
  // A version 1 journal rotated mid-stream: its second file alone has no base.
  std::string older = write("v1.jsonl.1", 1, 6), newer = write("v1.jsonl", 7, 4);
  try {
    replayed({newer});
    FAIL("a file without a base state was replayed");
  } catch (const ReplayError& e) {
    CHECK(std::string(e.what()).find("no base state") != std::string::npos);
    CHECK(std::string(e.what()).find("seq 7") != std::string::npos);
  }
  ReplayOptions partial;
  partial.partial = true;
  Pipeline p;
  ReplayReport r = replay_files({newer}, partial, p);
  CHECK(r.events == 4);
  REQUIRE_FALSE(r.warnings.empty());
  CHECK(r.warnings.front().find("no base state") != std::string::npos);
  // The set from seq 1 has a base (version 1: with a warning about restarts).
  Pipeline whole;
  ReplayReport wr = replay_files(rotated_set(newer), {}, whole);
  CHECK(wr.files == 2);
  CHECK(wr.base.find("seq 1") != std::string::npos);
  CHECK(wr.warnings.size() == 1);
  CHECK(wr.warnings.front().find("version 1") != std::string::npos);
  // A missing file in the middle is a gap, not a base.
  std::string gap = write("gap.jsonl", 20, 2);
  CHECK_THROWS_WITH(replayed({older, gap}), Catch::Contains("seq jumps from 6 to 20"));
  // A header and nothing else replays to nothing: refused too.
  journal_test::spit(dir.file("empty.jsonl"), encode_header(v1));
  CHECK_THROWS_WITH(replayed({dir.file("empty.jsonl")}), Catch::Contains("no events"));
  // --until before a rotated file's snapshot: nothing of that state is there.
  {
    TempDir d2;
    FileJournalOptions o = options(d2.file("j"));
    o.max_bytes = 2000;
    o.keep_files = 20;
    RestartRun run(o);
    run.list(objs);
    for (int i = 0; i < 12; ++i) run.change(monitor(i, "web"), EventType::added);
    REQUIRE(run.file->rotations() >= 1);
    CHECK_THROWS_WITH(replayed({o.path}, 3), Catch::Contains("nothing to replay up to seq 3"));
    CHECK_NOTHROW(replayed(rotated_set(o.path), 3));
  }
}

TEST_CASE("a rotated file keeps deleted Secrets as tombstones until their expiry", "[actors][journal][replay]") {
  TempDir dir;
  FileJournalOptions o = options(dir.file("journal.jsonl"));
  o.max_bytes = 3000;
  o.keep_files = 50;
  RestartRun run(o, std::chrono::milliseconds(40));
  std::vector<model::Value> objs = docs(actors_test::kScenario);
  objs.push_back(doc("{apiVersion: v1, kind: Secret, metadata: {name: unused, namespace: app2}}"));
  run.list(objs);
  const ObjectId token{"Secret", {"app1", "token"}};
  auto rotate_a_few = [&](int from) {
    std::uint64_t before = run.file->rotations();
    for (int i = from; run.file->rotations() < before + 2; ++i) run.change(monitor(i % 5, "db"), EventType::modified);
  };
  auto tombstoned = [&](const Pipeline& p) { return p.roots().at({"mon", "alpha"}).tombstones.count(token) == 1; };
  // web-a references the token: the live roots keep it as a tombstone.
  model::Value secret = doc("{apiVersion: v1, kind: Secret, metadata: {name: token, namespace: app1}}");
  run.change(secret, EventType::deleted);
  run.change(doc("{apiVersion: v1, kind: Secret, metadata: {name: unused, namespace: app2}}"), EventType::deleted);
  rotate_a_few(0);
  Pipeline alone = replay_pipeline({o.path}), whole = replay_pipeline(rotated_set(o.path));
  CHECK(tombstoned(whole));
  CHECK(tombstoned(alone));
  CHECK(yaml_of(alone.desired()) == yaml_of(whole.desired()));
  // The selector's expiry event ends it, in the snapshot too.
  run.change(grace_expiry(secret), EventType::deleted);
  rotate_a_few(10);
  alone = replay_pipeline({o.path});
  whole = replay_pipeline(rotated_set(o.path));
  CHECK_FALSE(tombstoned(whole));
  CHECK_FALSE(tombstoned(alone));
  CHECK(yaml_of(alone.desired()) == yaml_of(whole.desired()));
  // No expiry comes for a Secret nothing referenced: after twice the grace
  // period snapshots drop it.
  run.later_ms = 1000;
  rotate_a_few(20);
  JournalContents newest = read_journal(journal_test::slurp(o.path));
  for (const Event& e : newest.events) CHECK(object_key(*e.object).second != "unused");
}
