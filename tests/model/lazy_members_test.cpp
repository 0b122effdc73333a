// A lazy inventory (a controller root's) keeps ServiceMonitors, PodMonitors
// and Probes as their served trees once their jobs are cached, and decodes
// a tree again only when a render misses. It must render exactly what an
// eager inventory of the same objects renders, before and after letting
// go of the decoded forms, and after a change that makes every member miss.
#include <catch2/catch.hpp>

#include <memory>
#include <random>

#include "golden_util.hpp"
#include "model/codec.hpp"
#include "model/job_cache.hpp"
#include "model/parse.hpp"
#include "model/render.hpp"

namespace {

const char* kCluster = R"(
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: a, namespace: mon, uid: ua, resourceVersion: '1'}
spec: {metrics: {instanceSelector: {}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: i, namespace: mon, uid: ui, resourceVersion: '1'}
spec:
  serviceMonitorSelector: {matchExpressions: [{key: team, operator: In, values: [web]}]}
  serviceMonitorNamespaceSelector: {}
  podMonitorSelector: {}
  podMonitorNamespaceSelector: {}
  probeSelector: {matchLabels: {team: web}}
  probeNamespaceSelector: {}
---
apiVersion: v1
kind: Secret
metadata: {name: tok, namespace: app}
stringData: {t: secret-token}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: app, uid: u1, resourceVersion: '10', labels: {team: web}}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: http, bearerTokenSecret: {name: tok, key: t}}, {port: admin, interval: 5s}]
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: lost, namespace: app, uid: u2, resourceVersion: '11', labels: {team: web}}
spec:
  selector: {}
  endpoints: [{port: http, basicAuth: {username: {name: missing, key: u}, password: {name: tok, key: t}}}]
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: other, namespace: app, uid: u3, resourceVersion: '12', labels: {team: db}}
spec: {selector: {}, endpoints: [{port: sql}]}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: broken, namespace: app, uid: u4, resourceVersion: '13', labels: {team: web}}
spec: {selector: {}, endpoints: "not a list"}
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: pods, namespace: app2, uid: u5, resourceVersion: '14', labels: {team: web}}
spec: {selector: {}, podMetricsEndpoints: [{port: metrics}]}
---
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: ping, namespace: app2, uid: u6, resourceVersion: '15', labels: {team: web}}
spec:
  prober: {url: "blackbox:9115"}
  targets: {staticConfig: {static: ["https://example.com"]}}
)";

struct Pair {
  model::Inventory eager;
  model::Inventory lazy{model::LazyMembers{}};

  void add(const std::string& yaml) {
    for (auto& d : model::parse_documents(yaml, "test")) {
      eager.add(d.value);
      lazy.add_shared(std::make_shared<const model::Value>(std::move(d.value)));
    }
  }
};

const model::GrafanaAgent& agent_of(const model::Inventory& inv) {
  return inv.agents.at({"mon", "a"}).obj;
}

// Renders the lazy inventory through its cache, as a root does, and checks
// it against an uncached render of the eager one.
void check_render(Pair& p, model::JobCache& cache, const model::RenderOptions& base = {}) {
  const model::AgentRender want = model::render_agent(p.eager, agent_of(p.eager), base);
  model::RenderOptions opts = base;
  opts.job_cache = &cache;
  const model::AgentRender got = model::render_agent(p.lazy, agent_of(p.lazy), opts);
  cache.sweep();
  model::release_cached_members(p.lazy, cache, agent_of(p.lazy), opts);
  REQUIRE(got.problems == want.problems);
  REQUIRE(got.objects.size() == want.objects.size());
  for (std::size_t i = 0; i < want.objects.size(); ++i)
    CHECK(model::to_yaml(got.objects[i]) == model::to_yaml(want.objects[i]));
}

bool held(const model::Inventory& inv, const char* name) {
  return inv.service_monitors.at({"app", name}).decoded != nullptr;
}

}  // namespace

TEST_CASE("a lazy inventory stores what an eager one stores, keeping trees", "[model][inventory]") {
  Pair p;
  p.add(kCluster);
  REQUIRE(p.lazy.problems() == p.eager.problems());
  REQUIRE_FALSE(p.eager.problems().empty());  // "broken" does not decode
  for (const auto& [key, e] : p.eager.service_monitors) {
    CAPTURE(key.second);
    const auto& l = p.lazy.service_monitors.at(key);
    CHECK(l.tree != nullptr);
    CHECK(e.tree == nullptr);
    CHECK(l.valid == e.valid);
    CHECK(l.uid() == e.uid());
    CHECK(l.resource_version == e.resource_version);
    CHECK(l.refs == e.refs);
    CHECK((l.decoded != nullptr) == e.valid);  // an invalid member is never rendered
  }
  const model::StoredSecret& tok = p.lazy.secrets.at({"app", "tok"});
  CHECK(tok.tree != nullptr);
  CHECK(tok.decoded == nullptr);
  CHECK(p.eager.secrets.at({"app", "tok"}).decoded->data.at("t") == "secret-token");
  model::AssetFind found = model::find_asset(p.lazy, true, "app", "tok", "t");
  CHECK(found.object);
  CHECK(found.value == "secret-token");
  found = model::find_asset(p.lazy, true, "app", "tok", "nope");
  CHECK(found.object);
  CHECK_FALSE(found.value);
  CHECK_FALSE(model::find_asset(p.lazy, true, "app", "missing", "t").object);
  CHECK(p.lazy.service_monitors.at({"app", "web"}).refs == std::vector<model::AssetRef>{{true, "tok"}});
  // Labels read in the tree select as the decoded labels do.
  model::LabelSelector web{{{"team", "web"}}, {}};
  model::LabelSelector not_db{{}, {{"team", "NotIn", {"db"}}}};
  for (const auto* sel : {&web, &not_db})
    for (const auto& [key, e] : p.eager.service_monitors) {
      auto& l = p.lazy.service_monitors.at(key);
      CHECK(l.matches(*sel) == e.matches(*sel));
      auto kept = l.decoded;
      l.decoded.reset();  // read the tree
      CHECK(l.matches(*sel) == e.matches(*sel));
      CHECK(l.uid() == e.uid());
      l.decoded = kept;
    }
}

TEST_CASE("a lazy inventory renders as an eager one while it lets decoded members go", "[model][inventory]") {
  Pair p;
  p.add(kCluster);
  model::JobCache cache(/*packed=*/true);
  check_render(p, cache);
  // Rendered and cached: trees only. Failed (a missing Secret) or not
  // selected: still decoded, so they are not decoded again on every render.
  CHECK_FALSE(held(p.lazy, "web"));
  CHECK_FALSE(p.lazy.pod_monitors.begin()->second.decoded);
  CHECK_FALSE(p.lazy.probes.begin()->second.decoded);
  CHECK(held(p.lazy, "lost"));
  CHECK(held(p.lazy, "other"));
  CHECK_FALSE(held(p.lazy, "broken"));
  const std::uint64_t hits = cache.hits();
  check_render(p, cache);  // every cached member hits
  CHECK(cache.hits() == hits + 3);

  SECTION("a new agent version makes every member miss and decode its tree") {
    p.add(
        "{apiVersion: monitoring.grafana.com/v1alpha1, kind: GrafanaAgent, metadata: {name: a, namespace: mon, "
        "uid: ua, resourceVersion: '2'}, spec: {metrics: {instanceSelector: {}, scrapeInterval: 7s}}}");
    check_render(p, cache);
    CHECK_FALSE(held(p.lazy, "web"));
  }
  SECTION("the missing Secret arrives: the held member renders and is let go") {
    p.add("{apiVersion: v1, kind: Secret, metadata: {name: missing, namespace: app}, stringData: {u: user}}");
    check_render(p, cache);
    CHECK_FALSE(held(p.lazy, "lost"));
  }
  SECTION("a rotated Secret invalidates the entry and the tree is decoded again") {
    p.add("{apiVersion: v1, kind: Secret, metadata: {name: tok, namespace: app}, stringData: {t: rotated}}");
    check_render(p, cache);
    CHECK_FALSE(held(p.lazy, "web"));
  }
  SECTION("a member edited to a new version is decoded once, rendered and let go") {
    p.add(R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: app, uid: u1, resourceVersion: '20', labels: {team: web}}
spec: {selector: {matchLabels: {app: web}}, endpoints: [{port: http, interval: 9s}]}
)");
    CHECK(held(p.lazy, "web"));
    CHECK(p.lazy.service_monitors.at({"app", "web"}).refs.empty());
    check_render(p, cache);
    CHECK_FALSE(held(p.lazy, "web"));
  }
}

TEST_CASE("an agent under operator SD keeps every member decoded", "[model][inventory]") {
  Pair p;
  p.add(kCluster);
  p.add(
      "{apiVersion: monitoring.grafana.com/v1alpha1, kind: GrafanaAgent, metadata: {name: a, namespace: mon, "
      "uid: ua, resourceVersion: '3'}, spec: {metrics: {instanceSelector: {}, shardingStrategy: consistent}}}");
  model::JobCache cache(/*packed=*/true);
  check_render(p, cache);
  CHECK(held(p.lazy, "web"));  // its allocator config renders every member on every render
  check_render(p, cache);
}

TEST_CASE("retree swaps a lazy member's tree and keeps its decoded version", "[model][inventory]") {
  Pair p;
  p.add(kCluster);
  auto echo = std::make_shared<const model::Value>(model::parse_documents(R"(
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: app, uid: u1, resourceVersion: '99', labels: {team: web}}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: http, bearerTokenSecret: {name: tok, key: t}}, {port: admin, interval: 5s}]
status: {bindings: []}
)",
                                                                          "test")
                                                       .at(0)
                                                       .value);
  p.lazy.retree("ServiceMonitor", {"app", "web"}, echo);
  const auto& m = p.lazy.service_monitors.at({"app", "web"});
  CHECK(m.tree == echo);
  CHECK(m.resource_version == "10");  // the job cache key stays
  auto secret = std::make_shared<const model::Value>(
      model::parse_documents(
          "{apiVersion: v1, kind: Secret, metadata: {name: tok, namespace: app, resourceVersion: '5'}, "
          "stringData: {t: secret-token}}",
          "test")
          .at(0)
          .value);
  p.lazy.retree("Secret", {"app", "tok"}, secret);
  CHECK(p.lazy.secrets.at({"app", "tok"}).tree == secret);
  p.eager.retree("ServiceMonitor", {"app", "web"}, echo);
  CHECK(p.eager.service_monitors.at({"app", "web"}).tree == nullptr);  // eager inventories hold no trees
}

// Random data and stringData maps: valid and invalid base64, nulls,
// numbers, duplicate keys, fields that are not maps.
TEST_CASE("a Secret's key read in its tree equals its decoded value", "[model][inventory]") {
  std::mt19937 rng(7);
  const std::vector<std::string> keys{"a", "b", "c"};
  auto random_value = [&]() -> model::Value {
    switch (rng() % 5) {
      case 0:
        return model::Value();
      case 1:
        return model::Value(model::base64_encode("v" + std::to_string(rng() % 9)));
      case 2:
        return model::Value("!!not base64");
      case 3:
        return model::Value(static_cast<std::int64_t>(rng() % 9));
      default:
        return model::Value("plain" + std::to_string(rng() % 9));
    }
  };
  for (int round = 0; round < 2000; ++round) {
    model::Value secret = model::Value::obj({{"apiVersion", "v1"}, {"kind", "Secret"}});
    for (const char* field : {"data", "stringData"}) {
      const unsigned shape = rng() % 4;
      if (shape == 1) secret.set(field, model::Value("not a map"));
      if (shape < 2) continue;
      model::Value map = model::Value::object();
      for (unsigned i = rng() % 5; i > 0; --i) map.as_object().push_back({keys[rng() % keys.size()], random_value()});
      secret.set(field, std::move(map));
    }
    model::FieldErrors errors;
    const model::Secret decoded = model::decode_secret(secret, errors);
    for (const auto& k : keys) {
      auto it = decoded.data.find(k);
      INFO(model::to_json(secret) << " key " << k);
      CHECK(model::secret_tree_value(secret, k) ==
            (it == decoded.data.end() ? std::nullopt : std::optional<std::string>(it->second)));
    }
  }
}
