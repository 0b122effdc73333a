// Routing benchmark for the controller core (actors/core): 50 GrafanaAgents,
// 200 MetricsInstances (4 per agent; 10 select with an In expression, 5 with
// only Exists, which puts them on the always-check list; half of them read
// Namespace labels),
// 20,000 ServiceMonitors across 500 namespaces, and a Secret per monitor
// referenced as its bearer token. Reports the synchronous core cold start
// (subscriptions plus every root's first render), then routed events/s
// through Router::route, through route plus RootState::apply on every
// interested root, and through encode_event (the journal's encoder).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "actors/core/journal.hpp"
#include "actors/core/pipeline.hpp"
#include "model/parse.hpp"

namespace {

using namespace actors::core;
using Clock = std::chrono::steady_clock;
using model::Value;

constexpr int kAgents = 50, kInstances = 200, kMonitors = 20'000, kNamespaces = 500;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

Value yaml(const std::string& text) {
  return model::parse_documents(text, "bench").at(0).value;
}

std::string ns_name(int i) {
  return "ns-" + std::to_string(i);
}

// Built directly (not parsed): the edit stream has hundreds of thousands.
Value service_monitor(int k, int instance, int rev) {
  std::string app = "app-" + std::to_string(k);
  Value labels = Value::obj({{"instance", "mi-" + std::to_string(instance)}, {"app", app}});
  Value endpoint =
      Value::obj({{"port", "http"},
                  {"interval", std::to_string(10 + rev % 50) + "s"},
                  {"bearerTokenSecret", Value::obj({{"name", "token-" + std::to_string(k)}, {"key", "t"}})}});
  return Value::obj({{"apiVersion", "monitoring.coreos.com/v1"},
                     {"kind", "ServiceMonitor"},
                     {"metadata", Value::obj({{"name", "sm-" + std::to_string(k)},
                                              {"namespace", ns_name(k % kNamespaces)},
                                              {"labels", std::move(labels)}})},
                     {"spec", Value::obj({{"selector", Value::obj({{"matchLabels", Value::obj({{"app", app}})}})},
                                          {"endpoints", Value::arr({std::move(endpoint)})}})}});
}

Value metrics_instance(int j) {
  std::string sel = "{matchLabels: {instance: mi-" + std::to_string(j) + "}}";
  if (j % 20 == 0)  // indexed by the In values
    sel = "{matchExpressions: [{key: instance, operator: In, values: [mi-" + std::to_string(j) +
          "]}, {key: canary, operator: DoesNotExist}]}";
  else if (j % 40 == 5)  // not indexable: always checked (selects no monitor here)
    sel = "{matchExpressions: [{key: scrape-me, operator: Exists}]}";
  std::string ns_sel = j % 2 ? "{}" : "{matchLabels: {tier: t" + std::to_string(j % 5) + "}}";
  return yaml("{apiVersion: monitoring.grafana.com/v1alpha1, kind: MetricsInstance, metadata: {name: mi-" +
              std::to_string(j) + ", namespace: monitoring, labels: {agent: agent-" + std::to_string(j % kAgents) +
              "}}, spec: {remoteWrite: [{url: 'https://mimir.example/api/v1/push'}], serviceMonitorSelector: " + sel +
              ", serviceMonitorNamespaceSelector: " + ns_sel + "}}");
}

std::vector<Event> cluster_events() {
  std::vector<Value> objs;
  for (int i = 0; i < kNamespaces; ++i)
    objs.push_back(yaml("{apiVersion: v1, kind: Namespace, metadata: {name: " + ns_name(i) + ", labels: {tier: t" +
                        std::to_string(i % 5) + "}}}"));
  for (int a = 0; a < kAgents; ++a)
    objs.push_back(yaml("{apiVersion: monitoring.grafana.com/v1alpha1, kind: GrafanaAgent, metadata: {name: agent-" +
                        std::to_string(a) +
                        ", namespace: monitoring}, spec: {metrics: {instanceSelector: "
                        "{matchLabels: {agent: agent-" +
                        std::to_string(a) + "}}}}}"));
  for (int j = 0; j < kInstances; ++j) objs.push_back(metrics_instance(j));
  for (int k = 0; k < kMonitors; ++k) {
    objs.push_back(yaml("{apiVersion: v1, kind: Secret, metadata: {name: token-" + std::to_string(k) + ", namespace: " +
                        ns_name(k % kNamespaces) + "}, stringData: {t: v" + std::to_string(k) + "}}"));
    objs.push_back(service_monitor(k, k % kInstances, 0));
  }
  std::vector<Event> out;
  std::uint64_t seq = 0;
  for (auto& o : objs) out.push_back(make_event(++seq, 0, EventType::added, std::move(o)));
  return out;
}

// Edits: 90% change the scrape interval, 10% move a monitor to another instance.
std::vector<Event> edit_events(std::size_t n, std::uint64_t first_seq) {
  std::vector<Event> out;
  std::uint64_t x = 88172645463325252ull;
  for (std::size_t i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int k = static_cast<int>(x % kMonitors);
    int instance = (x >> 32) % 10 == 0 ? static_cast<int>((x >> 40) % kInstances) : k % kInstances;
    out.push_back(make_event(first_seq + i, 0, EventType::modified, service_monitor(k, instance, static_cast<int>(i))));
  }
  return out;
}

long peak_rss_mib() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n_events = 200'000;
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--events")) n_events = std::strtoul(argv[i + 1], nullptr, 10);

  auto t = Clock::now();
  std::vector<Event> initial = cluster_events();
  std::printf("generate: %zu objects in %.2f s\n", initial.size(), seconds_since(t));

  Pipeline p;
  t = Clock::now();
  for (const auto& e : initial) p.feed(e);
  std::size_t renders = p.settle();
  std::printf("core cold start (feed + settle, %zu renders): %.2f s\n", renders, seconds_since(t));
  std::size_t selected = 0;
  for (const auto& [key, root] : p.roots()) selected += root.inventory.service_monitors.size();
  std::printf("roots: %zu, monitors held across roots: %zu, always-check selectors: %zu\n", p.roots().size(), selected,
              p.router().index("ServiceMonitor").always_check_count());
  std::printf("peak RSS after cold start: %ld MiB\n", peak_rss_mib());

  std::vector<Event> edits = edit_events(n_events, initial.size() + 1);

  Router& router = p.router();
  router.reset_examined();
  std::size_t routed = 0;
  t = Clock::now();
  for (const auto& e : edits) routed += router.route(e).roots.size();
  double route_s = seconds_since(t);
  std::printf("route(): %zu events in %.3f s = %.0f events/s; %.2f roots/event, %.2f candidates examined/event\n",
              edits.size(), route_s, edits.size() / route_s, double(routed) / edits.size(),
              double(router.examined()) / edits.size());

  std::map<RootKey, RootState> roots = p.roots();
  std::vector<Event> edits2 = edit_events(n_events, initial.size() + n_events + 1);
  t = Clock::now();
  for (const auto& e : edits2)
    for (const RootKey& key : router.route(e).roots) apply(roots.at(key), e, Delivery::dirty);
  double apply_s = seconds_since(t);
  std::printf("route() + RootState apply: %zu events in %.3f s = %.0f events/s\n", edits2.size(), apply_s,
              edits2.size() / apply_s);

  std::size_t bytes = 0;
  t = Clock::now();
  for (const auto& e : edits) bytes += encode_event(e).size();
  double enc_s = seconds_since(t);
  std::printf("encode_event: %.0f events/s, %.1f MB/s (%.0f bytes/event)\n", edits.size() / enc_s, bytes / enc_s / 1e6,
              double(bytes) / edits.size());
  std::printf("peak RSS at exit (includes the pre-built edit events): %ld MiB\n", peak_rss_mib());
  return 0;
}
