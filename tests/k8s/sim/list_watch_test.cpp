#include <catch2/catch.hpp>

#include "k8s/sim/api_error.hpp"
#include "sim_fixture.hpp"

using namespace k8s::sim;
using model::Value;
using simtest::meta;

namespace {

std::vector<std::string> names(const std::vector<SnapshotPtr>& items) {
  std::vector<std::string> out;
  for (const auto& s : items) out.push_back(meta(s, "name"));
  return out;
}

void seed(simtest::SimFixture& f) {
  f.create("namespaces", R"({"metadata":{"name":"b"}})", "");
  f.create("configmaps", R"({"metadata":{"name":"web","labels":{"app":"web","tier":"front"}}})");
  f.create("configmaps", R"({"metadata":{"name":"db","labels":{"app":"db","tier":"back"}}})");
  f.create("configmaps", R"({"metadata":{"name":"cache","labels":{"app":"cache"}}})", "b");
  f.create("configmaps", R"({"metadata":{"name":"plain"}})", "b");
}

std::vector<std::pair<EventType, std::string>> drain(Watcher& w) {
  std::vector<std::pair<EventType, std::string>> out;
  for (auto& [type, snap] : w.take(std::chrono::milliseconds(0))) out.emplace_back(type, meta(snap, "name"));
  return out;
}

}  // namespace

TEST_CASE("list filters by namespace label and field selectors in key order", "[k8s][store][selector]") {
  simtest::SimFixture f;
  seed(f);
  auto t = f.type("", "configmaps");
  auto& store = f.cluster.store();
  using V = std::vector<std::string>;
  REQUIRE(names(store.list(t, "", {}).items) == V{"cache", "plain", "db", "web"});  // b/... sorts before default/...
  REQUIRE(names(store.list(t, "default", {}).items) == V{"db", "web"});
  auto with = [&](const char* labels, const char* fields) {
    ListOptions o;
    o.labels = parse_label_selector(labels);
    o.fields = parse_field_selector(fields, t.selectable_fields());
    return names(store.list(t, "", o).items);
  };
  REQUIRE(with("app=web", "") == V{"web"});
  REQUIRE(with("app in (web,db)", "") == V{"db", "web"});
  REQUIRE(with("app notin (web,db)", "") == V{"cache", "plain"});
  REQUIRE(with("!tier", "") == V{"cache", "plain"});
  REQUIRE(with("tier,app!=db", "") == V{"web"});
  REQUIRE(with("", "metadata.namespace=b") == V{"cache", "plain"});
  REQUIRE(with("", "metadata.name!=web,metadata.namespace==default") == V{"db"});
  REQUIRE_THROWS_AS(with("", "spec.x=y"), ApiError);
}

TEST_CASE("list pages with limit and continue - an expired continue is 410", "[k8s][store]") {
  simtest::SimFixture f;
  seed(f);
  auto t = f.type("", "configmaps");
  auto& store = f.cluster.store();
  ListOptions o;
  o.limit = 3;
  auto first = store.list(t, "", o);
  REQUIRE(first.items.size() == 3);
  REQUIRE(first.remaining == 1);
  REQUIRE(!first.continue_token.empty());
  o.continue_token = first.continue_token;
  auto second = store.list(t, "", o);
  REQUIRE(names(second.items) == std::vector<std::string>{"web"});
  REQUIRE(second.continue_token.empty());
  REQUIRE(second.rv == first.rv);
  f.create("configmaps", R"({"metadata":{"name":"later"}})");
  store.compact();
  try {
    store.list(t, "", o);
    FAIL("expected 410");
  } catch (const ApiError& e) {
    REQUIRE(e.code() == 410);
    REQUIRE(e.reason() == "Expired");
  }
}

TEST_CASE("remainingItemCount follows the pages and counts again after writes", "[k8s][store]") {
  simtest::SimFixture f;
  for (int i = 0; i < 10; ++i) f.create("configmaps", R"({"metadata":{"name":"cm-)" + std::to_string(i) + R"("}})");
  f.create("configmaps", R"({"metadata":{"name":"other"}})", "kube-system");
  auto t = f.type("", "configmaps");
  auto& store = f.cluster.store();
  ListOptions o;
  o.limit = 3;
  std::vector<std::int64_t> remaining;
  std::vector<std::string> seen;
  auto page = [&](const std::string& ns) {
    auto r = store.list(t, ns, o);
    for (const auto& item : r.items) seen.push_back(meta(item, "name"));
    remaining.push_back(r.remaining.value_or(-1));
    o.continue_token = r.continue_token;
    return !r.continue_token.empty();
  };
  while (page("default")) {
  }
  CHECK(remaining == std::vector<std::int64_t>{7, 4, 1, -1});
  CHECK(seen.size() == 10);
  remaining.clear();
  seen.clear();
  REQUIRE(page(""));
  REQUIRE(page(""));
  f.create("configmaps", R"({"metadata":{"name":"cm-99"}})");  // lands in the part not yet listed
  while (page("")) {
  }
  CHECK(remaining == std::vector<std::int64_t>{8, 5, 3, -1});
  CHECK(seen.size() == 12);
}

TEST_CASE("watch replays from a resourceVersion and follows selector transitions", "[k8s][store][watch]") {
  simtest::SimFixture f;
  seed(f);
  auto t = f.type("", "configmaps");
  auto& store = f.cluster.store();
  std::string start = std::to_string(store.current_rv());
  auto web = store.get(t, "default", "web");
  Value changed = web->value;
  changed.find("metadata")->find("labels")->set("tier", "back");
  f.cluster.update(t, "default", "web", changed, Subresource::main, {}, f.warnings);

  WatchOptions all;
  all.resource_version = start;
  auto w = store.watch(t, "", all);
  REQUIRE(drain(*w) == std::vector<std::pair<EventType, std::string>>{{EventType::modified, "web"}});

  WatchOptions front;
  front.resource_version = start;
  front.labels = parse_label_selector("tier=front");
  auto wf = store.watch(t, "", front);
  // web left the selector: a watcher filtered on it sees DELETED.
  REQUIRE(drain(*wf) == std::vector<std::pair<EventType, std::string>>{{EventType::deleted, "web"}});

  WatchOptions initial;  // no resourceVersion: the current state first
  initial.labels = parse_label_selector("tier=back");
  auto wi = store.watch(t, "default", initial);
  REQUIRE(drain(*wi) ==
          std::vector<std::pair<EventType, std::string>>{{EventType::added, "db"}, {EventType::added, "web"}});
  f.cluster.remove(t, "default", "db", {});
  REQUIRE(drain(*wi) == std::vector<std::pair<EventType, std::string>>{{EventType::deleted, "db"}});
  REQUIRE(drain(*w) == std::vector<std::pair<EventType, std::string>>{{EventType::deleted, "db"}});
  store.unwatch(w);
  store.unwatch(wf);
  store.unwatch(wi);
}

TEST_CASE("watch from a version older than the history window fails with 410 Expired", "[k8s][store][watch]") {
  k8s::sim::ClusterOptions o;
  o.store.history_limit = 3;
  simtest::SimFixture f(o);
  auto t = f.type("", "configmaps");
  std::string old = std::to_string(f.cluster.store().current_rv());
  for (int i = 0; i < 5; ++i) f.create("configmaps", R"({"metadata":{"generateName":"x-"}})");
  WatchOptions w;
  w.resource_version = old;
  try {
    f.cluster.store().watch(t, "", w);
    FAIL("expected 410");
  } catch (const ApiError& e) {
    REQUIRE(e.code() == 410);
    REQUIRE(e.reason() == "Expired");
    REQUIRE(std::string(e.what()).find("too old resource version: " + old) == 0);
  }
  w.resource_version = std::to_string(f.cluster.store().current_rv() - 2);
  auto ok = f.cluster.store().watch(t, "", w);
  REQUIRE(drain(*ok).size() == 2);
  f.cluster.store().unwatch(ok);
}

TEST_CASE("bookmarks carry the current resourceVersion only when nothing is pending", "[k8s][store][watch]") {
  simtest::SimFixture f;
  auto t = f.type("", "configmaps");
  WatchOptions w;
  w.resource_version = std::to_string(f.cluster.store().current_rv());
  auto watcher = f.cluster.store().watch(t, "default", w);
  f.create("secrets", R"({"metadata":{"name":"s"}})");  // another kind moves the global version
  auto rv = f.cluster.store().bookmark_rv(*watcher);
  REQUIRE(rv == f.cluster.store().current_rv());
  f.create("configmaps", R"({"metadata":{"name":"c"}})");
  REQUIRE_FALSE(f.cluster.store().bookmark_rv(*watcher).has_value());
  drain(*watcher);
  REQUIRE(f.cluster.store().bookmark_rv(*watcher) == f.cluster.store().current_rv());
  f.cluster.store().unwatch(watcher);
}
