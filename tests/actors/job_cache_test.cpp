// The per-root job cache must never change what a root renders: after every
// event of a scripted scenario (monitor edits, Secret rotation, deletion and
// return, namespace relabels, agent spec changes) the cached pipeline equals
// a render over the whole cluster without any cache.
#include <catch2/catch.hpp>

#include "actors/core/pipeline.hpp"
#include "actors_fixtures.hpp"

using actors::core::Pipeline;
using actors_test::doc;
using actors_test::EventType;
using actors_test::yaml_of;

namespace {

void scenario(actors_test::Cluster& c) {
  c.apply_yaml(actors_test::kScenario);
  c.apply_yaml(R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web-a, namespace: app1, labels: {team: web}}
spec:
  selector: {matchLabels: {app: web-a}}
  endpoints: [{port: http, interval: 15s, bearerTokenSecret: {name: token, key: t}}]
)",
               EventType::modified);
  c.apply_yaml("{apiVersion: v1, kind: Secret, metadata: {name: token, namespace: app1}, stringData: {t: rotated}}",
               EventType::modified);
  c.add(doc("{apiVersion: v1, kind: Secret, metadata: {name: token, namespace: app1}}"), EventType::deleted);
  c.apply_yaml("{apiVersion: v1, kind: Secret, metadata: {name: token, namespace: app1}, stringData: {t: back}}");
  c.apply_yaml("{apiVersion: v1, kind: Namespace, metadata: {name: app2, labels: {monitored: 'yes'}}}",
               EventType::modified);
  c.apply_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: alpha, namespace: mon, uid: uid-alpha}
spec:
  metrics: {shards: 1, instanceSelector: {matchLabels: {agent: alpha}}}
)",
               EventType::modified);
  c.apply_yaml(R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: db, namespace: app1, labels: {team: web}}
spec:
  selector: {matchLabels: {app: db}}
  endpoints: [{port: sql, basicAuth: {username: {name: token, key: t}, password: {name: token, key: t}}}]
)",
               EventType::modified);
  c.add(doc("{apiVersion: monitoring.coreos.com/v1, kind: ServiceMonitor, metadata: {name: web-b, namespace: app2}}"),
        EventType::deleted);
}

}  // namespace

TEST_CASE("cached re-renders equal uncached renders after every event", "[actors][cache]") {
  actors_test::Cluster full;
  full.stamp_versions = true;
  scenario(full);
  actors_test::Cluster partial;
  Pipeline p;
  for (const auto& e : full.events()) {
    p.feed(e);
    partial.add(*e.object, e.type);
    p.settle();
    INFO("seq " << e.seq);
    REQUIRE(yaml_of(p.desired()) == yaml_of(partial.reference()));
  }
  // The cache did its job: unchanged monitors were reused.
  std::uint64_t hits = 0;
  for (const auto& [key, root] : p.roots()) hits += root.job_cache->hits();
  CHECK(hits > 0);
}

TEST_CASE("a changed referenced Secret invalidates the cached job", "[actors][cache]") {
  model::Inventory inv;
  inv.add(doc("{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: n}, stringData: {k: one}}"));
  model::JobCache cache;
  model::ObjectMeta m, a;
  m.uid = "m";
  m.resource_version = "1";
  a.uid = "a";
  a.resource_version = "1";
  std::string key = model::JobCache::key("ServiceMonitor", m, a, 0);
  REQUIRE_FALSE(key.empty());
  cache.store(key, {model::Value::array(), {}, {{true, "n", "s", "k", std::string("one")}}});
  CHECK(cache.find(key, inv) != nullptr);
  model::Inventory changed;
  changed.add(doc("{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: n}, stringData: {k: two}}"));
  CHECK(cache.find(key, changed) == nullptr);
  m.resource_version = "";
  CHECK(model::JobCache::key("ServiceMonitor", m, a, 0).empty());  // unversioned objects are never cached
}
