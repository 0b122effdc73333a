// PodMonitor -> one scrape job per podMetricsEndpoint, discovering the
// selected pods. Relabel order: job name, pod-phase filter, selector
// (unless selectorMechanism: RoleSelector puts it into kubernetes_sd
// selectors), port filter (port, portNumber or targetPort),
// namespace/service/pod/container, podTargetLabels,
// job (<ns>/<name>, + jobLabel), endpoint, scrape class relabelings, user
// relabelings, enforced namespace label, sharding pair. TLS is
// SafeTLSConfig only (no files but a scrape class's).
#include "model/scrape/jobs.hpp"

namespace model::scrape {
namespace {

constexpr const char* kPodPrefix = "__meta_kubernetes_pod_";

std::string pod_endpoint_path(std::size_t i) {
  return "spec.podMetricsEndpoints[" + std::to_string(i) + "]";
}

Value relabel_configs(const JobContext& ctx, const PodMonitor& pm, std::size_t i, bool role_selectors,
                      const ScrapeClass* c, AssetRefs& assets) {
  const Endpoint& e = pm.endpoints[i];
  Value rules = Value::array();
  rules.push(copy_rule("job", "__tmp_prometheus_job_name"));
  if (filter_running(ctx, e)) rules.push(pod_phase_drop_rule());
  if (pm.selector && !role_selectors) append_selector_rules(rules, *pm.selector, kPodPrefix, ctx.compat());
  if (auto r = port_rule(ctx, e, "__meta_kubernetes_pod_container_port_name", pod_endpoint_path(i), assets))
    rules.push(std::move(*r));
  rules.push(copy_rule("__meta_kubernetes_namespace", "namespace"));
  rules.push(copy_rule("__meta_kubernetes_service_name", "service"));
  rules.push(copy_rule("__meta_kubernetes_pod_name", "pod"));
  rules.push(copy_rule("__meta_kubernetes_pod_container_name", "container"));
  append_label_copies(rules, pm.pod_target_labels, kPodPrefix);
  rules.push(set_rule("job", pm.meta.ns + "/" + pm.meta.name));
  if (!pm.job_label.empty())
    rules.push(nonempty_copy_rule(std::string(kPodPrefix) + "label_" + sanitize_label_name(pm.job_label), "job"));
  if (auto r = endpoint_label_rule(e)) rules.push(std::move(*r));
  append_relabel_tail(rules, ctx, pm.meta.ns, e.relabelings, c);
  return rules;
}

Value endpoint_job(const JobContext& ctx, const PodMonitor& pm, std::size_t i, const ScrapeClass* c,
                   AssetRefs& assets) {
  Value selectors = role_selectors(ctx, pm.selector_mechanism, pm.selector, {"pod"}, assets);
  const SpecSettings spec{pm.limits, pm.body_size_limit, pm.native_histograms, pm.protocols};
  MonitorEndpoint m{.kind = "podMonitor",
                    .role = "pod",
                    .meta = pm.meta,
                    .namespace_selector = pm.namespace_selector,
                    .attach_node = class_attach_node(pm.attach_metadata_node, c),
                    .spec = spec,
                    .endpoint = pm.endpoints[i],
                    .index = i,
                    .path = pod_endpoint_path(i),
                    .scrape_class = c,
                    .selectors = selectors};
  Value rules = relabel_configs(ctx, pm, i, !selectors.is_null(), c, assets);
  return monitor_endpoint_job(ctx, m, std::move(rules), assets);
}

}  // namespace

Value pod_monitor_jobs(const JobContext& ctx, const PodMonitor& pm, AssetRefs& assets) {
  Value jobs = Value::array();
  check_label_names(pm.pod_target_labels, "spec.podTargetLabels", assets);
  const ScrapeClass* c = monitor_scrape_class(ctx, pm.protocols.scrape_class, "spec.scrapeClass", assets);
  if (pm.attach_metadata_node == true) ignored_in_compat(ctx, assets, "spec.attachMetadata.node");
  for (std::size_t i = 0; i < pm.endpoints.size(); ++i) jobs.push(endpoint_job(ctx, pm, i, c, assets));
  return jobs;
}

}  // namespace model::scrape
