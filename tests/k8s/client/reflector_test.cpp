// Reflector against an in-process simcluster: list then watch, resume
// after dropped and timed-out watches, relist after 410 with only the
// differences, stop() semantics, and many watches on one I/O thread.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "client_fixture.hpp"
#include "k8s/client/reflector.hpp"
#include "model/object_fields.hpp"
#include "scripted_transport.hpp"

using namespace k8s;
using clienttest::eventually;

namespace {

const Resource& config_maps() {
  return *resource_for_kind("ConfigMap");
}

struct Seen {
  model::Change type;
  std::string name;
  bool operator<(const Seen& o) const { return std::tie(type, name) < std::tie(o.type, o.name); }
  bool operator==(const Seen& o) const { return type == o.type && name == o.name; }
};

// Records events from the I/O thread for the test thread.
struct Recorder {
  std::mutex mutex;
  std::vector<Seen> events;
  std::map<std::string, std::shared_ptr<const model::Value>> latest;  // by name
  std::set<std::thread::id> threads;
  std::atomic<bool> synced{false};

  Reflector::Sink sink() {
    return [this](ObjectEvent e) {
      std::lock_guard lock(mutex);
      events.push_back({e.type, e.object->find("metadata")->find("name")->as_string()});
      latest[events.back().name] = e.object;
      threads.insert(std::this_thread::get_id());
    };
  }
  Reflector::Synced on_synced() {
    return [this] { synced = true; };
  }
  std::shared_ptr<const model::Value> object(const std::string& name) {
    std::lock_guard lock(mutex);
    return latest[name];
  }
  std::size_t size() {
    std::lock_guard lock(mutex);
    return events.size();
  }
  std::vector<Seen> since(std::size_t from) {
    std::lock_guard lock(mutex);
    return {events.begin() + static_cast<std::ptrdiff_t>(from), events.end()};
  }
};

ReflectorOptions quick() {
  ReflectorOptions o;
  o.ns = "default";
  o.page_size = 7;
  o.backoff = Backoff{std::chrono::milliseconds(10), std::chrono::milliseconds(100)};
  return o;
}

struct ReflectorEnv {
  clienttest::SimServer sim;
  Client client;
  explicit ReflectorEnv(sim::ServerOptions so = {}) : sim(so), client(make_curl_transport(sim.config())) {}

  void create(const std::string& name) { sim.fixture.create("configmaps", R"({"metadata":{"name":")" + name + "\"}}"); }
  void modify(const std::string& name, const std::string& value) {
    auto t = sim.fixture.type("", "configmaps");
    sim.cluster().patch(t, "default", name, sim::PatchType::merge,
                        model::parse_json(R"({"data":{"v":")" + value + "\"}}"), sim::Subresource::main, {},
                        sim.fixture.warnings);
  }
  void remove(const std::string& name) {
    sim.cluster().remove(sim.fixture.type("", "configmaps"), "default", name, {});
  }
  Result admin(const std::string& path) {
    Request r;
    r.method = "POST";
    r.path = path;
    r.timeout = std::chrono::seconds(20);
    return clienttest::call([&](Callback cb) { client.transport().send(r, cb); });
  }
};

}  // namespace

TEST_CASE("a reflector lists in pages then watches changes", "[client][reflector]") {
  ReflectorEnv env;
  for (int i = 0; i < 20; ++i) env.create("cm" + std::to_string(100 + i));
  env.sim.fixture.create("configmaps", R"({"metadata":{"name":"elsewhere"}})", "kube-system");
  Recorder rec;
  Reflector r(env.client, config_maps(), quick(), rec.sink(), rec.on_synced());
  r.start();
  REQUIRE(eventually([&] { return rec.synced.load(); }));
  CHECK(rec.size() == 20);  // kube-system is not listed
  CHECK(rec.since(0).front() == Seen{model::Change::added, "cm100"});
  env.create("new");
  env.modify("cm100", "x");
  env.remove("cm101");
  REQUIRE(eventually([&] { return rec.size() == 23; }));
  CHECK(rec.since(20) == std::vector<Seen>{{model::Change::added, "new"},
                                           {model::Change::modified, "cm100"},
                                           {model::Change::deleted, "cm101"}});
  CHECK(r.stats().lists == 1);
  CHECK(r.stats().events == 23);
}

TEST_CASE("dropped watches resume from the last resourceVersion without gaps or duplicates", "[client][reflector]") {
  sim::ServerOptions so;
  so.faults.drop_watch_rate = 1.0;  // every watch ends after its first event
  ReflectorEnv env(so);
  Recorder rec;
  Reflector r(env.client, config_maps(), quick(), rec.sink(), rec.on_synced());
  r.start();
  REQUIRE(eventually([&] { return rec.synced.load(); }));
  std::vector<Seen> want;
  for (int i = 0; i < 30; ++i) {
    env.create("c" + std::to_string(i));
    want.push_back({model::Change::added, "c" + std::to_string(i)});
    if (i % 3 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(eventually([&] { return rec.size() >= 30; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // room for duplicates to show up
  CHECK(rec.since(0) == want);
  CHECK(r.stats().watches > 2);
  CHECK(r.stats().lists == 1);
  CHECK(r.stats().relists_410 == 0);
}

TEST_CASE("after compaction a 410 relist reports only what changed while disconnected", "[client][reflector]") {
  ReflectorEnv env;
  for (const char* n : {"keep", "gone", "changed"}) env.create(n);
  Recorder rec;
  std::atomic<int> errors{0};
  Reflector r(env.client, config_maps(), quick(), rec.sink(), rec.on_synced(), [&](const Result&) { ++errors; });
  r.start();
  REQUIRE(eventually([&] { return rec.synced.load(); }));
  REQUIRE(rec.size() == 3);
  // Disconnect: every request fails, then the open watch is dropped.
  sim::FaultConfig down;
  down.error_5xx_rate = 1.0;
  down.retry_after_seconds = 0;
  env.sim.server.faults().set_config(down);
  REQUIRE(env.admin("/sim/faults/drop-watches").status == 200);
  REQUIRE(eventually([&] { return errors >= 2; }));
  env.remove("gone");
  env.modify("changed", "2");
  env.create("added");
  env.sim.cluster().store().compact();
  env.sim.server.faults().set_config({});
  REQUIRE(eventually([&] { return r.stats().relists_410 >= 1 && rec.size() >= 6; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto after = rec.since(3);
  std::set<Seen> got(after.begin(), after.end());
  CHECK(after.size() == 3);
  CHECK(got == std::set<Seen>{{model::Change::deleted, "gone"},
                              {model::Change::modified, "changed"},
                              {model::Change::added, "added"}});
  CHECK(r.stats().lists == 2);
  // The unchanged object's tree is still the one the sink holds: the
  // relist's equal copy was dropped, not kept beside it (here, the
  // recorder's pointer and the reflector's, nobody else's).
  CHECK(rec.object("keep").use_count() == 3);
  // Watching again after the relist.
  env.create("later");
  REQUIRE(eventually([&] { return rec.size() == 7; }));
}

TEST_CASE("a watch ended by the server timeout is resumed and bookmarks advance it", "[client][reflector]") {
  sim::ServerOptions so;
  so.api.bookmark_interval = std::chrono::milliseconds(100);
  ReflectorEnv env(so);
  Recorder rec;
  ReflectorOptions o = quick();
  o.watch_timeout_seconds = 1;
  Reflector r(env.client, config_maps(), o, rec.sink(), rec.on_synced());
  r.start();
  REQUIRE(eventually([&] { return r.stats().watches >= 3; }));
  CHECK(r.stats().bookmarks > 0);
  env.create("after-timeouts");
  REQUIRE(eventually([&] { return rec.size() == 1; }));
  CHECK(r.stats().lists == 1);
  CHECK(r.stats().errors == 0);
}

TEST_CASE("no callback runs after stop returns and stop works from a sink", "[client][reflector]") {
  ReflectorEnv env;
  Recorder rec;
  Reflector r(env.client, config_maps(), quick(), rec.sink(), rec.on_synced());
  r.start();
  REQUIRE(eventually([&] { return rec.synced.load(); }));
  env.create("one");
  REQUIRE(eventually([&] { return rec.size() == 1; }));
  r.stop();
  for (int i = 0; i < 5; ++i) env.create("after" + std::to_string(i));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(rec.size() == 1);

  std::atomic<int> calls{0};
  std::unique_ptr<Reflector> self_stopping;
  self_stopping = std::make_unique<Reflector>(env.client, config_maps(), quick(), [&](ObjectEvent) {
    ++calls;
    self_stopping->stop();  // on the I/O thread: must not deadlock
  });
  self_stopping->start();
  REQUIRE(eventually([&] { return calls >= 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK(calls == 1);  // stopped inside the first of six ADDED events
  self_stopping.reset();
}

TEST_CASE("two hundred watches share the one transport thread", "[client][reflector]") {
  ReflectorEnv env;
  constexpr int n = 200;
  std::vector<std::atomic<int>> seen(n);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::atomic<int> synced{0};
  std::vector<std::unique_ptr<Reflector>> reflectors;
  for (int i = 0; i < n; ++i) {
    auto sink = [&, i](ObjectEvent) {
      ++seen[i];
      std::lock_guard lock(mutex);
      threads.insert(std::this_thread::get_id());
    };
    reflectors.push_back(std::make_unique<Reflector>(env.client, config_maps(), quick(), sink, [&] { ++synced; }));
    reflectors.back()->start();
  }
  REQUIRE(eventually([&] { return synced == n; }, std::chrono::seconds(60)));
  env.create("ping");  // after every list: only the watches can deliver it
  REQUIRE(eventually(
      [&] {
        for (auto& s : seen)
          if (s != 1) return false;
        return true;
      },
      std::chrono::seconds(60)));
  std::uint64_t watches = 0, lists = 0;
  for (auto& r : reflectors) {
    watches += r->stats().watches;
    lists += r->stats().lists;
  }
  CHECK(watches >= n);
  CHECK(lists == n);
  std::lock_guard lock(mutex);
  CHECK(threads.size() == 1);
  CHECK(*threads.begin() != std::this_thread::get_id());
}

TEST_CASE("the cache keeps list items sized exactly, kinds filled in, unread metadata dropped when asked",
          "[client][reflector]") {
  // A real API server's list items of built-in kinds carry no kind or
  // apiVersion, and every object carries managedFields.
  const std::string list =
      R"({"kind":"SecretList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[)"
      R"({"metadata":{"name":"a","namespace":"d","resourceVersion":"4",)"
      R"("creationTimestamp":"2026-11-29T04:00:00Z","managedFields":[{"manager":"kubectl","operation":"Update"}]},)"
      R"("type":"Opaque","data":{"k":"dg=="}}]})";
  for (bool strip : {false, true}) {
    auto transport = std::make_shared<testutil::ScriptedTransport>();
    transport->script("GET", "/secrets", testutil::ScriptedTransport::ok(list));
    Client client(transport);
    std::vector<std::shared_ptr<const model::Value>> got;
    ReflectorOptions o;
    if (strip) o.drop_metadata = {"managedFields", "creationTimestamp", "resourceVersion"};
    Reflector r(client, *resource_for_kind("Secret"), o, [&](ObjectEvent e) { got.push_back(e.object); });
    r.start();
    REQUIRE(got.size() == 1);
    const model::Value& obj = *got[0];
    CHECK(model::string_at(obj, {"kind"}) == "Secret");
    CHECK(model::string_at(obj, {"apiVersion"}) == "v1");
    CHECK(model::string_at(obj, {"data", "k"}) == "dg==");
    CHECK(obj.as_object().capacity() == obj.as_object().size());
    CHECK((model::find_path(obj, {"metadata", "managedFields"}) != nullptr) == !strip);
    CHECK((model::find_path(obj, {"metadata", "creationTimestamp"}) != nullptr) == !strip);
    const model::Value& meta = *obj.find("metadata");
    CHECK(meta.as_object().capacity() == meta.as_object().size());
    CHECK(model::meta_string(obj, "resourceVersion") == "4");  // never dropped: the reflector resumes from it
    r.stop();
  }
}

namespace {

// Requests wait for the test (ScriptedTransport::hold); the first watch
// answers 410 Gone, the later ones stay open.
struct GoneOnce : testutil::ScriptedTransport {
  int gone = 1;
  k8s::StreamId stream(k8s::Request req, k8s::LineHandler on_line, k8s::Callback on_done) override {
    sent.push_back(std::move(req));
    if (gone > 0) {
      --gone;
      on_line(R"({"type":"ERROR","object":{"kind":"Status","code":410}})");
      on_done(ok(""));
    }
    return ++watches;
  }
  k8s::StreamId watches = 0;
};

std::string config_map_page(const std::vector<std::pair<std::string, int>>& items, const std::string& next) {
  std::string out = R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"50","continue":")" +
                    next + R"("},"items":[)";
  for (const auto& [name, rv] : items)
    out += (out.back() == '[' ? "" : ",") + std::string(R"({"metadata":{"name":")") + name +
           R"(","namespace":"default","resourceVersion":")" + std::to_string(rv) + R"("}})";
  return out + "]}";
}

}  // namespace

TEST_CASE("a relist that fails half-way loses nothing and the next one reports each difference once",
          "[client][reflector]") {
  auto t = std::make_shared<GoneOnce>();
  t->hold = true;
  Client client(t);
  std::vector<Seen> got;
  std::map<std::string, std::shared_ptr<const model::Value>> told;
  Reflector r(client, config_maps(), quick(), [&](ObjectEvent e) {
    got.push_back({e.type, model::meta_string(*e.object, "name")});
    told[got.back().name] = e.object;
  });
  r.start();
  using S = testutil::ScriptedTransport;
  REQUIRE(t->held.size() == 1);
  t->answer_held(S::ok(config_map_page({{"a", 1}, {"b", 1}}, "p2")));
  t->answer_held(S::ok(config_map_page({{"c", 1}}, "")));
  // Synced, watched, told 410: the relist's first page is waiting.
  CHECK(got.size() == 3);
  REQUIRE(t->watches == 1);
  REQUIRE(t->held.size() == 1);
  t->answer_held(S::ok(config_map_page({{"a", 1}, {"b", 2}}, "p2")));
  CHECK(got.size() == 4);
  CHECK(got.back() == Seen{model::Change::modified, "b"});
  t->answer_held(S::status(403));  // its second page fails: c, unlisted by it, is still told
  CHECK(got.size() == 4);
  t->run_posted();  // the next relist
  REQUIRE(t->held.size() == 1);
  t->answer_held(S::ok(config_map_page({{"a", 1}, {"b", 2}}, "p2")));
  CHECK(got.size() == 4);  // nothing new: a unchanged since the start, b since the failed relist
  t->answer_held(S::ok(config_map_page({{"d", 1}}, "")));
  std::vector<Seen> last(got.begin() + 4, got.end());
  CHECK(last == std::vector<Seen>{{model::Change::added, "d"}, {model::Change::deleted, "c"}});
  CHECK(t->watches == 2);
  // The unchanged object's tree is the first one told (the sink's copy and
  // the reflector's): no relist kept an equal copy beside it.
  CHECK(told["a"].use_count() == 2);
  CHECK(r.stats().lists == 3);
  r.stop();
}
