// The per-root job cache must never change what a root renders: after every
// event of a scripted scenario (monitor edits, Secret rotation, deletion and
// return, namespace relabels, agent spec changes, PodMonitors and Probes,
// an IntegrationMonitor selected by two MetricsInstances, edited and
// deleted, additional scrape configs, a member whose Secret is missing and
// then appears) the cached pipeline equals a render over the whole cluster
// without any cache.
#include <catch2/catch.hpp>

#include <set>

#include "actors/core/pipeline.hpp"
#include "actors_fixtures.hpp"
#include "model/config.hpp"
#include "model/job_cache.hpp"
#include "model/render.hpp"
#include "model/yaml_emit.hpp"

using actors::core::Pipeline;
using actors_test::doc;
using actors_test::EventType;
using actors_test::yaml_of;

namespace {

const char* kMoreMembers = R"(
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: pods, namespace: app1, labels: {team: web}}
spec:
  selector: {matchLabels: {app: pods}}
  podMetricsEndpoints: [{port: metrics, basicAuth: {username: {name: token, key: t}, password: {name: token, key: t}}}]
---
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: ping, namespace: app1, labels: {team: web}}
spec:
  prober: {url: "blackbox:9115"}
  targets: {staticConfig: {static: ["https://example.com"]}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: alpha-extra, namespace: mon, labels: {agent: alpha}}
spec:
  serviceMonitorSelector: {matchLabels: {team: web}}
  podMonitorSelector: {matchLabels: {team: web}}
  probeSelector: {matchLabels: {team: web}}
  serviceMonitorNamespaceSelector: {}
  podMonitorNamespaceSelector: {}
  probeNamespaceSelector: {}
  integrationMonitorSelector: {matchLabels: {team: web}}
  integrationMonitorNamespaceSelector: {}
  additionalScrapeConfigs: {name: extra, key: jobs.yaml}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: alpha-third, namespace: mon, labels: {agent: alpha}}
spec:
  integrationMonitorSelector: {matchLabels: {team: web}}
  integrationMonitorNamespaceSelector: {any: true}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: IntegrationMonitor
metadata: {name: infra, namespace: app1, labels: {team: web}}
spec:
  selector: {matchLabels: {run: 'yes'}}
  namespaceSelector: {any: true}
---
apiVersion: v1
kind: Secret
metadata: {name: extra, namespace: mon}
stringData:
  jobs.yaml: |
    - job_name: extra
      static_configs: [{targets: ["a:1"]}]
)";

void scenario(actors_test::Cluster& c) {
  c.apply_yaml(actors_test::kScenario);
  c.apply_yaml(kMoreMembers);
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
  c.apply_yaml(R"(
apiVersion: v1
kind: Secret
metadata: {name: extra, namespace: mon}
stringData:
  jobs.yaml: |
    - job_name: extra-renamed
      static_configs: [{targets: ["b:2"]}]
)",
               EventType::modified);
  c.add(doc("{apiVersion: monitoring.coreos.com/v1, kind: ServiceMonitor, metadata: {name: web-b, namespace: app2}}"),
        EventType::deleted);
  c.add(doc("{apiVersion: monitoring.coreos.com/v1, kind: Probe, metadata: {name: ping, namespace: app1}}"),
        EventType::deleted);
  c.apply_yaml(R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: IntegrationMonitor
metadata: {name: infra, namespace: app1, labels: {team: web}}
spec: {selector: {matchLabels: {run: 'no'}}, interval: 15s}
)",
               EventType::modified);
  c.add(doc("{apiVersion: monitoring.grafana.com/v1alpha1, kind: IntegrationMonitor, metadata: {name: infra, "
            "namespace: app1}}"),
        EventType::deleted);
}

}  // namespace

TEST_CASE("cached re-renders equal uncached renders after every event", "[actors][cache]") {
  actors_test::Cluster full;
  full.stamp_versions = true;
  scenario(full);
  actors_test::Cluster partial;
  partial.expire_deletions = false;  // the expiry events come from `full`
  Pipeline p;
  for (const auto& e : full.events()) {
    p.feed(e);
    partial.add(*e.object, e.type);
    p.settle();
    INFO("seq " << e.seq);
    // Between a Secret's deletion and its grace expiry the root still uses it.
    bool in_grace = e.type == EventType::deleted && e.kind == "Secret" && !actors::core::is_grace_expiry(*e.object);
    if (in_grace) continue;
    REQUIRE(yaml_of(p.desired()) == yaml_of(partial.reference()));
  }
  // The cache did its job: unchanged monitors were reused.
  std::uint64_t hits = 0, misses = 0;
  for (const auto& [key, root] : p.roots()) hits += root.job_cache->hits(), misses += root.job_cache->misses();
  CHECK(hits > misses);
  // And the roots hold their cached members as trees only: every render
  // above that missed decoded them again from the trees.
  std::size_t trees_only = 0;
  for (const auto& [key, root] : p.roots())
    for (const auto& [k, m] : root.inventory.service_monitors) trees_only += m.decoded ? 0 : 1;
  CHECK(trees_only > 0);
}

TEST_CASE("a cached monitor reports its warnings as an uncached render does", "[actors][cache]") {
  model::Inventory inv;
  for (const char* d : {R"({apiVersion: monitoring.grafana.com/v1alpha1, kind: GrafanaAgent,
      metadata: {name: a, namespace: mon, uid: ua, resourceVersion: '1'}, spec: {metrics: {instanceSelector: {}}}})",
                        R"({apiVersion: monitoring.grafana.com/v1alpha1, kind: MetricsInstance,
      metadata: {name: i, namespace: mon}, spec: {serviceMonitorSelector: {}}})",
                        R"({apiVersion: monitoring.coreos.com/v1, kind: ServiceMonitor,
      metadata: {name: s, namespace: mon, uid: us, resourceVersion: '1'},
      spec: {selector: {}, endpoints: [{port: web}], scrapeProtocols: [PrometheusProto]}})"})
    inv.add(doc(d));
  const model::GrafanaAgent& agent = inv.agents.begin()->second.obj;
  const model::AgentRender uncached = model::render_agent(inv, agent, {});
  REQUIRE(uncached.problems.size() == 1);
  CHECK(uncached.problems[0].warning);
  CHECK(uncached.problems[0].path == "spec.scrapeProtocols");
  model::JobCache cache;
  model::RenderOptions opts;
  opts.job_cache = &cache;
  const model::AgentRender first = model::render_agent(inv, agent, opts);
  const model::AgentRender second = model::render_agent(inv, agent, opts);
  CHECK(cache.hits() == 1);
  CHECK(first.problems == uncached.problems);
  CHECK(second.problems == uncached.problems);
}

TEST_CASE("a changed referenced Secret invalidates the cached job", "[actors][cache]") {
  const bool packed = GENERATE(false, true);
  CAPTURE(packed);
  model::Inventory inv;
  inv.add(doc("{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: n}, stringData: {k: one}}"));
  model::JobCache cache(packed);
  model::ObjectMeta m, a;
  m.uid = "m";
  m.resource_version = "1";
  a.uid = "a";
  a.resource_version = "1";
  std::string key = model::JobCache::key("ServiceMonitor", m, a, 0);
  REQUIRE_FALSE(key.empty());
  cache.store(key, {"- job_name: x\n", model::PackedLookups({{true, "n", "s", "k", std::string("one")}})});
  REQUIRE(cache.find(key, inv).has_value());
  CHECK(cache.find(key, inv)->yaml == "- job_name: x\n");
  model::Inventory changed;
  changed.add(doc("{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: n}, stringData: {k: two}}"));
  CHECK_FALSE(cache.find(key, changed).has_value());
  CHECK_FALSE(cache.find(key, inv).has_value());  // the stale entry is gone, not resurrected
  m.resource_version = "";
  CHECK(model::JobCache::key("ServiceMonitor", m, a, 0).empty());  // unversioned objects are never cached
}

TEST_CASE("cache keys hold API-server uids as 16 bytes and stay one-to-one with their parts", "[actors][cache]") {
  model::ObjectMeta m, a;
  m.ns = "ns-0001";
  m.name = "sm-12345";
  m.uid = "58b1ae4b-d5de-43f8-b3c6-6740ae7c126f";
  m.resource_version = "44";
  a.uid = "078bc158-e6d4-456b-9b70-7ec7940c2e7e";
  a.resource_version = "7";
  const std::string packed = model::JobCache::key("ServiceMonitor", m, a, 0);
  model::ObjectMeta upper = m;  // not canonical: kept as text
  upper.uid = "58B1AE4B-D5DE-43F8-B3C6-6740AE7C126F";
  const std::string text = model::JobCache::key("ServiceMonitor", upper, a, 0);
  CHECK(packed.size() + 21 == text.size());
  CHECK(packed != text);
  std::set<std::string> keys{packed, text};
  model::ObjectMeta other = m;
  other.uid.back() = 'e';  // one bit of the uid
  keys.insert(model::JobCache::key("ServiceMonitor", other, a, 0));
  other = m;
  other.name = "sm-1234";  // a part's text moving into its neighbour
  other.ns = "ns-00015";
  keys.insert(model::JobCache::key("ServiceMonitor", other, a, 0));
  keys.insert(model::JobCache::key("ServiceMonitor", m, a, 1));
  keys.insert(model::JobCache::key("ServiceMonitor", m, a, 0, "scope"));
  keys.insert(model::JobCache::key("PodMonitor", m, a, 0));
  CHECK(keys.size() == 7);
  CHECK(model::JobCache::key("ServiceMonitor", m, a, 0) == packed);  // deterministic
}

TEST_CASE("sweep drops entries the last render did not use", "[actors][cache]") {
  const bool packed = GENERATE(false, true);
  CAPTURE(packed);
  model::Inventory inv;
  model::JobCache cache(packed);
  CHECK(cache.store("a", {"- a\n", {}, {}}) == "- a\n");
  cache.store("b", {"- b\n", {}, {}});
  cache.sweep();  // both were stored since the last sweep: kept
  REQUIRE(cache.size() == 2);
  REQUIRE(cache.find("a", inv).has_value());
  CHECK(cache.find("a", inv)->yaml == "- a\n");
  cache.sweep();  // only "a" was used
  CHECK(cache.size() == 1);
  CHECK_FALSE(cache.find("b", inv).has_value());
}

TEST_CASE("spliced YAML equals emitting the tree that holds the items", "[model][yaml]") {
  const model::Value jobs_a = doc("[{job_name: a, static_configs: [{targets: ['x:1', 'y:2']}]}, {job_name: b}]");
  const model::Value jobs_b = doc("[{job_name: c, params: {q: ['1']}}]");
  model::Value whole = doc("{metrics: {configs: [{name: i, remote_write: [{url: u}], wal: w}]}, server: {}}");
  model::Value& inst = whole.find("metrics")->find("configs")->as_array()[0];
  model::Value all = jobs_a;
  for (const auto& j : jobs_b.as_array()) all.push(j);
  inst.set("scrape_configs", all);
  model::Value placeholder = whole;
  placeholder.find("metrics")->find("configs")->as_array()[0].set("scrape_configs",
                                                                  model::Value::arr({model::Value()}));
  const model::Value* node = placeholder.find("metrics")->find("configs")->as_array()[0].find("scrape_configs");
  const std::string a = model::to_yaml(jobs_a), b = model::to_yaml(jobs_b);
  std::vector<model::YamlSplice> splices{{node, {a, "", b}}};
  std::string spliced;
  model::emit_yaml(placeholder, spliced, splices);
  CHECK(spliced == model::to_yaml(whole));
}
