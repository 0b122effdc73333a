// Chunked per-collector bodies: the same bytes as a fresh serialisation,
// cuts that depend only on the targets, unchanged chunks shared, written
// in slices as HTTP asks for them, and gzipped once.
#include <catch2/catch.hpp>

#include <condition_variable>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <set>
#include <thread>

#include "allocation/responses.hpp"
#include "allocation/targets_body.hpp"
#include "model/codec.hpp"
#include "model/http_sd.hpp"

using namespace allocation;

namespace {

Target body_target(int i, const std::string& version = "1") {
  auto group = std::make_shared<const LabelSet>(LabelSet{{"__meta_group", "g"}, {"env", "prod<&>"}});
  std::vector<Label> own = {{Name::intern("__address__"), "10.0." + std::to_string(i) + ":9100"},
                            {Name::intern("pod"), "pod-" + std::to_string(i)},
                            {Name::intern("version"), version}};
  Target t;
  REQUIRE(make_target(Name::intern("j"), group, std::make_shared<const LabelSet>(LabelSet(std::move(own))), t));
  return t;
}

StrategyConfig least_weighted() {
  StrategyConfig config;
  config.name = "least-weighted";
  return config;
}

struct OneCollector {
  ManualClock clock;
  Allocator a{make_strategy(least_weighted()), {}, clock};
  OneCollector() { a.set_collectors({{"col-1", "", true, {}}}); }
  const JobBucket& bucket() const { return *a.bucket("col-1", Name::find("j")); }
};

TargetList numbered(int n) {
  TargetList out;
  for (int i = 0; i < n; ++i) out.push_back(body_target(i));
  return out;
}

}  // namespace

TEST_CASE("a chunked body is the fresh serialisation, whole and gzipped", "[allocation][http][chunks]") {
  OneCollector c;
  c.a.set_targets(numbered(500));
  BodyBuildStats stats;
  const auto body = build_targets_body(c.a, c.bucket(), nullptr, stats);
  const std::string expected = collector_targets_json(c.a, "col-1", "j");
  CHECK(body->str() == expected);
  CHECK(body->size() == expected.size());
  CHECK(stats.serialised_targets == 500);
  // About one target in eight ends a chunk, none holds more than the cap.
  CHECK(body->chunks().size() > 500 / 16);
  CHECK(body->chunks().size() < 500 / 4);
  for (const auto& chunk : body->chunks()) CHECK(chunk->fragments().size() <= kMaxChunkTargets);
  const std::string& gz = body->gzipped();
  CHECK(gz == model::gzip_compress(expected, 1));
  CHECK(&body->gzipped() == &gz);  // once per body
  CHECK(gz.size() * 4 < expected.size());
  CHECK(body->gzip_etag() != body->etag());

  std::string array;
  body->append_array(array);
  CHECK(array + "\n" == expected);
  CHECK(TargetsBody::empty()->str() == "[]\n");
  CHECK(model::gzip_decompress(TargetsBody::empty()->gzipped()) == "[]\n");
  CHECK(TargetsBody::empty()->etag() == body_etag("[]\n"));
}

TEST_CASE("a body written in slices of any size is the same bytes", "[allocation][http][chunks]") {
  OneCollector c;
  c.a.set_targets(numbered(200));
  BodyBuildStats stats;
  const auto body = build_targets_body(c.a, c.bucket(), nullptr, stats);
  const auto pieces = body->pieces();
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    std::string out;
    std::size_t offset = 0;
    while (offset < body->size()) {
      const std::size_t length = std::min<std::size_t>(body->size() - offset, 1 + rng() % 3000);
      REQUIRE(model::write_pieces(pieces, offset, length, [&](const char* d, std::size_t n) {
        out.append(d, n);
        return true;
      }));
      REQUIRE(out.size() == offset + length);
      offset += length;
    }
    CHECK(out == body->str());
  }
  CHECK_FALSE(model::write_pieces(pieces, 0, body->size(), [](const char*, std::size_t) { return false; }));
  // Gathered into blocks: one send per 64 KiB, not one per chunk.
  std::size_t calls = 0;
  REQUIRE(model::write_pieces(pieces, 0, body->size(), [&](const char*, std::size_t n) {
    CHECK(n <= 64 * 1024);
    return ++calls > 0;
  }));
  CHECK(calls == (body->size() + 64 * 1024 - 1) / (64 * 1024));
}

TEST_CASE("a new version shares every chunk whose targets did not change", "[allocation][http][chunks]") {
  OneCollector c;
  TargetList targets = numbered(1000);
  c.a.set_targets(targets);
  BodyBuildStats stats;
  const auto first = build_targets_body(c.a, c.bucket(), nullptr, stats);
  auto next = [&](const TargetsBody& previous) {
    c.a.set_targets(targets);
    stats = {};
    auto body = build_targets_body(c.a, c.bucket(), &previous, stats);
    REQUIRE(body->str() == collector_targets_json(c.a, "col-1", "j"));
    BodyBuildStats fresh_stats;
    const auto fresh = build_targets_body(c.a, c.bucket(), nullptr, fresh_stats);
    CHECK(body->etag() == fresh->etag());  // the cuts depend on the targets only
    CHECK(body->chunks().size() == fresh->chunks().size());
    return body;
  };
  SECTION("new labels for one target: one chunk and one target") {
    targets[417] = body_target(417, "2");
    const auto second = next(*first);
    CHECK(stats.built_chunks == 1);
    CHECK(stats.serialised_targets == 1);
    CHECK(second->etag() != first->etag());
    std::size_t shared = 0;
    for (std::size_t i = 0; i < second->chunks().size(); ++i) shared += second->chunks()[i] == first->chunks()[i];
    CHECK(shared == first->chunks().size() - 1);
  }
  SECTION("one target leaves, one arrives: at most three chunks, one target") {
    targets.erase(targets.begin() + 100);
    targets.insert(targets.begin() + 700, body_target(5000));
    next(*first);
    CHECK(stats.built_chunks <= 3);
    CHECK(stats.serialised_targets == 1);
  }
  SECTION("new label sets with the same labels: serialised again, the rest shared") {
    for (int i : {3, 4, 5, 600}) targets[i] = body_target(i);  // as a discovery that rebuilt its sets
    next(*first);
    CHECK(stats.serialised_targets == 4);
    CHECK(stats.built_chunks >= 2);
    CHECK(stats.built_chunks <= 4);
  }
  SECTION("the same targets again: nothing built") {
    const auto again = next(*first);
    CHECK(stats.built_chunks == 0);
    CHECK(again->etag() == first->etag());
    CHECK(again->chunks() == first->chunks());
  }
}

TEST_CASE("a label set freed and another built at its address with other labels is serialised again",
          "[allocation][http][chunks]") {
  // Bodies do not hold the label sets their text came from, so the sets of
  // a target that left can be freed and their address reused by discovery.
  // Target 7's set is built in place, so the next one lands where it was.
  alignas(LabelSet) unsigned char storage[sizeof(LabelSet)];
  auto in_place = [&](const std::string& version) {
    const LabelSet* set = new (storage) LabelSet{{"__address__", "10.1.7:9100"}, {"version", version}};
    Target t;
    REQUIRE(make_target(Name::intern("j"), nullptr,
                        std::shared_ptr<const LabelSet>(set, [](const LabelSet* p) { p->~LabelSet(); }), t));
    return t;
  };
  const std::size_t at = 7;
  OneCollector c;
  std::vector<Target> kept;
  for (int i = 0; i < 40; ++i) kept.push_back(i == static_cast<int>(at) ? in_place("1") : body_target(i));
  c.a.set_targets(TargetList(kept.begin(), kept.end()));
  BodyBuildStats stats;
  const auto first = build_targets_body(c.a, c.bucket(), nullptr, stats);
  std::weak_ptr<const LabelSet> watch = kept[at].own;
  kept.erase(kept.begin() + at);
  c.a.set_targets(TargetList(kept.begin(), kept.end()));  // the last holder lets the set go
  REQUIRE(watch.expired());
  kept.insert(kept.begin() + at, in_place("2"));
  c.a.set_targets(TargetList(kept.begin(), kept.end()));
  stats = {};
  const auto second = build_targets_body(c.a, c.bucket(), first.get(), stats);
  CHECK(second->str() == collector_targets_json(c.a, "col-1", "j"));
  CHECK(stats.serialised_targets == 1);
  kept.clear();
  c.a.set_targets({});  // before `storage` goes
}

// Chunks come from a pool shared by every thread, and a body's last holder
// (an HTTP worker) frees its chunks while the publisher makes new ones.
TEST_CASE("chunks made on one thread while another frees others keep their own bytes", "[allocation][http][chunks]") {
  constexpr int kRounds = 200, kPerRound = 64;
  std::vector<std::vector<TargetsBody::Chunk>> handed(kRounds);
  std::mutex m;
  std::condition_variable cv;
  int ready = 0;
  std::thread freer([&] {
    for (int r = 0; r < kRounds; ++r) {
      std::unique_lock lock(m);
      cv.wait(lock, [&] { return ready > r; });
      auto batch = std::move(handed[static_cast<std::size_t>(r)]);
      lock.unlock();
      batch.clear();  // the last references: back to the pool from this thread
    }
  });
  std::vector<TargetsBody::Chunk> kept;
  bool intact = true;
  for (int r = 0; r < kRounds; ++r) {
    std::vector<TargetsBody::Chunk> batch;
    for (int i = 0; i < kPerRound; ++i) {
      auto chunk = make_chunk(std::to_string(r) + "/" + std::to_string(i), {});
      if (i % 16 == 0) kept.push_back(chunk);
      batch.push_back(std::move(chunk));
    }
    for (int i = 0; i < kPerRound; ++i)
      intact = intact && batch[static_cast<std::size_t>(i)]->text() == std::to_string(r) + "/" + std::to_string(i);
    std::lock_guard lock(m);
    handed[static_cast<std::size_t>(r)] = std::move(batch);
    ++ready;
    cv.notify_one();
  }
  freer.join();
  CHECK(intact);
  std::set<const BodyChunk*> distinct;
  for (std::size_t k = 0; k < kept.size(); ++k) {
    distinct.insert(kept[k].get());
    const int r = static_cast<int>(k) / (kPerRound / 16), i = static_cast<int>(k) % (kPerRound / 16) * 16;
    CHECK(kept[k]->text() == std::to_string(r) + "/" + std::to_string(i));
  }
  CHECK(distinct.size() == kept.size());
}

TEST_CASE("gzip of pieces is gzip of the joined bytes", "[allocation][http][chunks]") {
  std::mt19937 rng(11);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::string> parts;
    std::string all;
    for (std::size_t i = 0, n = rng() % 40; i < n; ++i) {
      std::string p(rng() % 3 == 0 ? 0 : rng() % 70000, 'x');
      for (auto& c : p) c = static_cast<char>('a' + rng() % (round % 5 + 1));
      parts.push_back(p);
      all += p;
    }
    const std::vector<std::string_view> views(parts.begin(), parts.end());
    const std::string gz = model::gzip_compress_pieces(views, 1);
    CHECK(gz == model::gzip_compress(all, 1));
    CHECK(model::gzip_decompress(gz) == all);
  }
}

namespace {

// Numbered targets for update_targets (which needs discovery orders), made
// once per number and version: a body reuses a target's text only for the
// same label sets, as discovery keeps the sets of unchanged targets.
const Target& ordered_target(int i, const std::string& version = "1") {
  static std::map<std::pair<int, std::string>, Target> made;
  auto [it, fresh] = made.try_emplace({i, version});
  if (fresh) {
    it->second = body_target(i, version);
    it->second.order = static_cast<std::uint64_t>(i + 100);
  }
  return it->second;
}

std::uint64_t hash_of(int i, const std::string& version = "1") {
  return ordered_target(i, version).hash;
}

struct Updated {
  ManualClock clock;
  Allocator a{make_strategy(StrategyConfig{}), {}, clock};  // consistent-hashing: it has update_targets
  BodyBuildStats stats;
  std::shared_ptr<const TargetsBody> body;

  Updated() {
    a.set_collectors({{"col-1", "", true, {}}});
    TargetList all;
    for (int i = 0; i < 2000; i += 2) all.push_back(ordered_target(i));  // odd numbers can arrive between
    a.set_targets(all);
    body = build_targets_body(a, bucket(), nullptr, stats);
  }
  const JobBucket& bucket() const { return *a.bucket("col-1", Name::find("j")); }
  // Rebuilds the body after an update, from the delta, and checks it is
  // the fresh serialisation with the fresh entity tag.
  void update(std::vector<std::uint64_t> removed, TargetList added) {
    REQUIRE(a.update_targets(removed, std::move(added)));
    rebuild();
    CHECK(stats.delta_builds == 1);
  }
  void rebuild() {
    stats = {};
    body = build_targets_body(a, bucket(), body.get(), stats);
    REQUIRE(body->str() == collector_targets_json(a, "col-1", "j"));
    BodyBuildStats fresh;
    CHECK(body->etag() == build_targets_body(a, bucket(), nullptr, fresh)->etag());
  }
};

}  // namespace

TEST_CASE("after update_targets a body is rebuilt from the bucket's delta", "[allocation][http][chunks]") {
  Updated u;
  REQUIRE(u.stats.read_targets == 1000);
  SECTION("new labels for one target: its chunk is read, the rest shared unread") {
    u.update({hash_of(500)}, {ordered_target(500, "2")});
    CHECK(u.stats.serialised_targets == 1);
    CHECK(u.stats.built_chunks <= 2);
    CHECK(u.stats.read_targets <= 2 * kMaxChunkTargets);
  }
  SECTION("the first and last targets leave, others arrive at both ends and inside") {
    u.update({hash_of(0), hash_of(1998)}, {ordered_target(-7), ordered_target(2005), ordered_target(999)});
    CHECK(u.stats.serialised_targets == 3);
    CHECK(u.stats.read_targets <= 6 * kMaxChunkTargets);
  }
  SECTION("every target leaves but one") {
    std::vector<std::uint64_t> removed;
    for (int i = 0; i < 2000; i += 2)
      if (i != 1000) removed.push_back(hash_of(i));
    u.update(removed, {});
    CHECK(u.body->chunks().size() == 1);
  }
  SECTION("random updates in a row, each checked against a fresh body") {
    std::mt19937 rng(5);
    std::set<int> present;
    for (int i = 0; i < 2000; i += 2) present.insert(i);
    for (int round = 0; round < 40; ++round) {
      std::vector<std::uint64_t> removed;
      TargetList added;
      const int changes = 1 + static_cast<int>(rng() % 12);
      std::set<int> touched;
      for (int k = 0; k < changes; ++k) {
        const int i = static_cast<int>(rng() % 2000);
        if (!touched.insert(i).second) continue;  // one change per target and update
        if (present.erase(i)) {
          removed.push_back(hash_of(i));
        } else {
          added.push_back(ordered_target(i));
          present.insert(i);
        }
      }
      u.update(removed, std::move(added));
      CHECK(u.stats.read_targets < present.size() / 2);
    }
  }
  SECTION("after a full pass the body is built by walking every target") {
    TargetList all;
    for (int i = 0; i < 2000; i += 2) all.push_back(ordered_target(i == 400 ? 401 : i));
    u.a.set_targets(all);
    u.rebuild();
    CHECK(u.stats.delta_builds == 0);
    CHECK(u.stats.read_targets == 1000);
    CHECK(u.stats.serialised_targets == 1);
  }
}
