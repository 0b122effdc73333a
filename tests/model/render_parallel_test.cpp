// RenderOptions::render_threads must not change a byte: objects, problems
// and (through a JobCache) the memoised text are the same for any thread
// count, with members that render, warn and fail mixed over several
// batches, and parallel_for itself runs every index once and rethrows.
#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden_util.hpp"
#include "model/codec.hpp"
#include "model/job_cache.hpp"
#include "model/parallel_for.hpp"
#include "model/render.hpp"
#include "model/yaml_emit.hpp"
#include "test_render.hpp"

namespace {

// A GrafanaAgent, one MetricsInstance selecting every ServiceMonitor, and
// `count` ServiceMonitors (more than one batch of 256): every 7th has a
// regex that does not compile (an error: left out), every 5th a Secret
// that does not exist (an error), every 3rd a field the agent ignores.
std::string cluster(int count) {
  std::string y = R"(apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: a, namespace: ns, uid: ga-uid, resourceVersion: "1"}
spec:
  metrics: {instanceSelector: {matchLabels: {x: y}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: mi, namespace: ns, uid: mi-uid, resourceVersion: "1", labels: {x: y}}
spec:
  serviceMonitorSelector: {}
---
apiVersion: v1
kind: Secret
metadata: {name: token, namespace: ns}
data: {t: dG9rZW4=}
)";
  for (int i = 0; i < count; ++i) {
    const std::string n = std::to_string(i);
    y += "---\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: sm-" + n +
         ", namespace: ns, uid: u" + n + ", resourceVersion: \"" + n + "\"}\nspec:\n  selector: {matchLabels: {app: a" +
         n + "}}\n  endpoints:\n  - port: web\n";
    y += i % 5 == 0 ? "    bearerTokenSecret: {name: " + std::string(i % 10 == 0 ? "token" : "missing") + ", key: t}\n"
                    : "";
    y += i % 7 == 0 ? "    relabelings: [{sourceLabels: [a], regex: \"(\", action: keep}]\n"
                    : "    relabelings: [{sourceLabels: [__meta_x], targetLabel: x" + n + "}]\n";
    if (i % 3 == 0) y += "    scrapeProtocols: [PrometheusProto]\n";
  }
  return y;
}

// The objects, the decoded data of every Secret (agent.yml readable), and
// the problems, as one text.
std::string stream(const model::RenderAll& r) {
  std::string out = model::to_yaml_stream(r.objects);
  for (const auto& o : r.objects) {
    const model::Value* data = o.find("data");
    if (o.find("kind")->as_string() != "Secret" || !data) continue;
    for (const auto& [key, value] : data->as_object())
      out += key + ": " + *model::base64_decode(value.as_string()) + "\n";
  }
  for (const auto& p : r.problems) out += p.str() + (p.warning ? " (warning)\n" : "\n");
  return out;
}

}  // namespace

TEST_CASE("render_all gives the same objects and problems for any thread count", "[render]") {
  const model::Inventory inv = testutil::inventory_from_yaml(cluster(700));
  model::RenderOptions one;
  one.gzip_threshold = std::size_t(-1);  // agent.yml as text, not gzip
  const std::string want = stream(model::render_all(inv, one));
  REQUIRE(want.find("sm-699") != std::string::npos);
  REQUIRE(want.find("ServiceMonitor ns/sm-7:") != std::string::npos);  // the bad regex
  REQUIRE(want.find("ServiceMonitor ns/sm-5:") != std::string::npos);  // the missing Secret
  for (unsigned threads : {2u, 3u, 8u}) {
    model::RenderOptions opts = one;
    opts.render_threads = threads;
    CHECK(stream(model::render_all(inv, opts)) == want);
  }
}

TEST_CASE("a JobCache filled and then hit by a threaded render gives the unthreaded bytes", "[render]") {
  const model::Inventory inv = testutil::inventory_from_yaml(cluster(600));
  const model::GrafanaAgent& agent = testutil::only_agent(inv);
  model::RenderOptions plain;
  const model::AgentRender want = model::render_agent(inv, agent, plain);
  for (bool packed : {false, true}) {
    CAPTURE(packed);
    model::JobCache cache(packed);
    model::RenderOptions opts;
    opts.render_threads = 4;
    opts.job_cache = &cache;
    for (int round = 0; round < 3; ++round) {  // misses, then hits
      const model::AgentRender got = model::render_agent(inv, agent, opts);
      CHECK(model::to_yaml_stream(got.objects) == model::to_yaml_stream(want.objects));
      CHECK(got.problems == want.problems);
      CHECK(got.assets == want.assets);
      cache.sweep();
    }
    CHECK(cache.hits() > 0);
  }
}

TEST_CASE("parallel_for runs each index once and rethrows the first failure", "[render]") {
  std::vector<std::atomic<int>> seen(1000);
  model::parallel_for(seen.size(), 4, [&](std::size_t i) { seen[i]++; });
  for (const auto& s : seen) CHECK(s.load() == 1);
  model::parallel_for(0, 4, [](std::size_t) { FAIL("no index"); });
  CHECK_THROWS_AS(model::parallel_for(100, 3,
                                      [](std::size_t i) {
                                        if (i == 42) throw std::runtime_error("item 42");
                                      }),
                  std::runtime_error);
  int calls = 0;
  model::parallel_for(5, 1, [&](std::size_t) { ++calls; });  // on the calling thread
  CHECK(calls == 5);
}
