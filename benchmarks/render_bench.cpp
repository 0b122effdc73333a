// Render benchmark: one GrafanaAgent with 10 MetricsInstances, 2,000
// ServiceMonitors (2 endpoints each), 1,000 PodMonitors, 200 Probes and
// 1,000 Secrets, times a scale factor (--scale N). Reports parse, decode
// and render wall time, peak RSS and the size of the rendered agent.yml.
// --write-yaml FILE / --write-json FILE write the input and exit, for
// timing `agent-operator render -f FILE` end to end (benchmarks/README.md).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "model/codec.hpp"
#include "model/job_cache.hpp"
#include "model/parse.hpp"
#include "model/render.hpp"
#include "model/yaml_emit.hpp"

namespace {

using Clock = std::chrono::steady_clock;

std::string service_monitor(int i, int secrets) {
  std::string ns = "team-" + std::to_string(i % 50);
  std::string s = "---\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: sm-" +
                  std::to_string(i) + "\n  namespace: " + ns + "\n  labels: {instance: mi-" + std::to_string(i % 10) +
                  "}\nspec:\n  jobLabel: app.kubernetes.io/name\n  selector:\n    matchLabels: {app: svc-" +
                  std::to_string(i) + "}\n    matchExpressions: [{key: tier, operator: In, values: [web, api]}]\n" +
                  "  endpoints:\n  - port: http-metrics\n    interval: 30s\n    bearerTokenSecret: {name: token-" +
                  std::to_string(i % secrets) +
                  ", key: token}\n    metricRelabelings:\n    - {sourceLabels: [__name__], " +
                  "regex: 'go_gc_.*', action: drop}\n  - port: admin\n    path: /admin/metrics\n    relabelings:\n" +
                  "    - {sourceLabels: [__meta_kubernetes_pod_node_name], targetLabel: node}\n";
  return s;
}

std::string pod_monitor(int i) {
  return "---\napiVersion: monitoring.coreos.com/v1\nkind: PodMonitor\nmetadata:\n  name: pm-" + std::to_string(i) +
         "\n  namespace: team-" + std::to_string(i % 50) + "\n  labels: {instance: mi-" + std::to_string(i % 10) +
         "}\nspec:\n  selector: {matchLabels: {app: pod-" + std::to_string(i) +
         "}}\n  podMetricsEndpoints:\n  - port: metrics\n";
}

std::string probe(int i) {
  return "---\napiVersion: monitoring.coreos.com/v1\nkind: Probe\nmetadata:\n  name: probe-" + std::to_string(i) +
         "\n  namespace: team-" + std::to_string(i % 50) + "\n  labels: {instance: mi-" + std::to_string(i % 10) +
         "}\nspec:\n  module: http_2xx\n  prober: {url: 'blackbox:9115'}\n  targets:\n    staticConfig:\n" +
         "      static: ['https://site-" + std::to_string(i) + ".example.com']\n";
}

std::string cluster(int scale) {
  std::string y =
      "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: agent, namespace: "
      "monitoring}\nspec:\n  metrics:\n    shards: 2\n    instanceSelector: {matchLabels: {agent: agent}}\n";
  for (int i = 0; i < 10 * scale; ++i) {
    y += "---\napiVersion: monitoring.grafana.com/v1alpha1\nkind: MetricsInstance\nmetadata:\n  name: mi-" +
         std::to_string(i) +
         "\n  namespace: monitoring\n  labels: {agent: agent}\nspec:\n  remoteWrite: [{url: "
         "'https://mimir.example/api/v1/push'}]\n  serviceMonitorNamespaceSelector: {}\n  serviceMonitorSelector: "
         "{matchLabels: {instance: mi-" +
         std::to_string(i) +
         "}}\n  podMonitorNamespaceSelector: {}\n  "
         "podMonitorSelector: {matchLabels: {instance: mi-" +
         std::to_string(i) +
         "}}\n  probeNamespaceSelector: {}\n"
         "  probeSelector: {matchLabels: {instance: mi-" +
         std::to_string(i) + "}}\n";
  }
  int secrets = 1000 * scale;
  for (int i = 0; i < secrets; ++i)
    for (int ns = 0; ns < 1; ++ns)
      y += "---\napiVersion: v1\nkind: Secret\nmetadata: {name: token-" + std::to_string(i) + ", namespace: team-" +
           std::to_string(i % 50) + "}\nstringData: {token: secret-value-" + std::to_string(i) + "}\n";
  for (int i = 0; i < 2000 * scale; ++i) y += service_monitor(i, secrets);
  for (int i = 0; i < 1000 * scale; ++i) y += pod_monitor(i);
  for (int i = 0; i < 200 * scale; ++i) y += probe(i);
  return y;
}

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
  int scale = 1, iterations = 5;
  std::string write_yaml, write_json;  // the input, for timing `agent-operator render -f` on it
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--scale") == 0) scale = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--iterations") == 0) iterations = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--write-yaml") == 0) write_yaml = argv[i + 1];
    if (std::strcmp(argv[i], "--write-json") == 0) write_json = argv[i + 1];
  }
  std::string text = cluster(scale);
  // The same cluster as one JSON List: the controller's input format.
  std::string json;
  {
    model::Value list = model::Value::obj({{"apiVersion", "v1"}, {"kind", "List"}, {"items", model::Value::array()}});
    for (auto& d : model::parse_documents(text, "bench")) list.find("items")->push(std::move(d.value));
    json = model::to_json(list);
  }
  if (!write_yaml.empty() || !write_json.empty()) {
    if (!write_yaml.empty()) std::ofstream(write_yaml, std::ios::binary) << text;
    if (!write_json.empty()) std::ofstream(write_json, std::ios::binary) << json;
    return 0;
  }
  std::vector<double> parse_ms, decode_ms, render_ms, json_ms, emit_ms, gzip_ms, gzip_fast_ms, cold_cached_ms,
      warm_cached_ms;
  std::size_t gzip_bytes = 0, gzip_fast_bytes = 0;
  std::size_t config_bytes = 0, objects = 0, problems = 0, secret_refs = 0;
  for (int it = 0; it < iterations; ++it) {
    auto t0 = Clock::now();
    auto docs = model::parse_documents(text, "bench");
    parse_ms.push_back(ms_since(t0));
    // uid and resourceVersion, as an API server sets them (the JobCache is
    // keyed by them; objects without them are never cached).
    for (std::size_t k = 0; k < docs.size(); ++k) {
      if (model::Value* md = docs[k].value.find("metadata")) {
        md->set("uid", "uid-" + std::to_string(k));
        md->set("resourceVersion", "1");
      }
    }
    auto t1 = Clock::now();
    model::Inventory inv;
    for (const auto& d : docs) inv.add(d.value);
    decode_ms.push_back(ms_since(t1));
    auto tj = Clock::now();
    model::Value parsed_json = model::parse_json(json);
    json_ms.push_back(ms_since(tj));
    auto t2 = Clock::now();
    model::AgentRender r = model::render_agent(inv, inv.agents.begin()->second.obj, model::RenderOptions{});
    render_ms.push_back(ms_since(t2));
    auto te = Clock::now();
    std::string yml = model::to_yaml(r.configs.at("agent-config"));
    emit_ms.push_back(ms_since(te));
    auto tz = Clock::now();
    gzip_bytes = model::gzip_compress(yml).size();
    gzip_ms.push_back(ms_since(tz));
    auto tf = Clock::now();
    gzip_fast_bytes = model::gzip_compress(yml, 3).size();
    gzip_fast_ms.push_back(ms_since(tf));
    // A root's re-render after an edit: a warm JobCache (filled by the
    // first cached render) reuses every monitor's jobs as text.
    model::JobCache cache;
    model::RenderOptions cached;
    cached.job_cache = &cache;
    auto tc = Clock::now();
    model::AgentRender cold = model::render_agent(inv, inv.agents.begin()->second.obj, cached);
    cold_cached_ms.push_back(ms_since(tc));
    cache.sweep();
    auto tw = Clock::now();
    model::AgentRender warm = model::render_agent(inv, inv.agents.begin()->second.obj, cached);
    warm_cached_ms.push_back(ms_since(tw));
    if (warm.objects != r.objects || cold.objects != r.objects) std::printf("unexpected: cached render differs\n");
    config_bytes = yml.size();
    objects = r.objects.size();
    problems = r.problems.size() + inv.problems().size();
    secret_refs = r.assets.size();
  }
  std::sort(parse_ms.begin(), parse_ms.end());
  std::sort(decode_ms.begin(), decode_ms.end());
  std::sort(render_ms.begin(), render_ms.end());
  std::sort(json_ms.begin(), json_ms.end());
  std::sort(emit_ms.begin(), emit_ms.end());
  std::sort(gzip_ms.begin(), gzip_ms.end());
  std::sort(gzip_fast_ms.begin(), gzip_fast_ms.end());
  std::sort(cold_cached_ms.begin(), cold_cached_ms.end());
  std::sort(warm_cached_ms.begin(), warm_cached_ms.end());
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("scale=%d input_bytes=%zu objects=%zu problems=%zu assets=%zu config_bytes=%zu\n", scale, text.size(),
              objects, problems, secret_refs, config_bytes);
  std::printf("(inside render) yaml_emit_ms(median)=%.1f gzip_ms(median)=%.1f gzip_bytes=%zu\n",
              emit_ms[emit_ms.size() / 2], gzip_ms[gzip_ms.size() / 2], gzip_bytes);
  std::printf("gzip_level3_ms(median)=%.1f gzip_level3_bytes=%zu\n", gzip_fast_ms[gzip_fast_ms.size() / 2],
              gzip_fast_bytes);
  std::printf("render with JobCache: cold_ms(median)=%.1f warm_ms(median)=%.1f\n",
              cold_cached_ms[cold_cached_ms.size() / 2], warm_cached_ms[warm_cached_ms.size() / 2]);
  std::printf("json_bytes=%zu json_parse_ms(median)=%.1f\n", json.size(), json_ms[json_ms.size() / 2]);
  std::printf("yaml_parse_ms(median)=%.1f decode_ms(median)=%.1f render_ms(median)=%.1f render_ms(min)=%.1f\n",
              parse_ms[parse_ms.size() / 2], decode_ms[decode_ms.size() / 2], render_ms[render_ms.size() / 2],
              render_ms[0]);
  std::printf("decode+render_ms(median)=%.1f peak_rss_mib=%.1f\n",
              decode_ms[decode_ms.size() / 2] + render_ms[render_ms.size() / 2], ru.ru_maxrss / 1024.0);
  return problems == 0 ? 0 : 1;
}
