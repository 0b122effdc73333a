// ServiceMonitor -> one scrape job per endpoint, discovering the endpoints
// (or, with serviceDiscoveryRole: EndpointSlice, the endpoint slices) of
// the selected Services. Relabel order: job name, selector (unless
// selectorMechanism: RoleSelector puts it into kubernetes_sd selectors),
// port filter, node/pod from the address target,
// namespace/service/pod/container, pod-phase filter, targetLabels,
// podTargetLabels, job (+ jobLabel), endpoint, scrape class relabelings,
// user relabelings, enforced namespace label, sharding pair.
#include "model/scrape/jobs.hpp"

namespace model::scrape {
namespace {

constexpr const char* kServicePrefix = "__meta_kubernetes_service_";

std::string service_endpoint_path(std::size_t i) {
  return "spec.endpoints[" + std::to_string(i) + "]";
}

// arbitraryFSAccessThroughSMs.deny (the allocator's
// deny_fs_access_through_sms): a ServiceMonitor that reads files from the
// scraper's filesystem is rejected whole. A scrape class's files are the
// administrator's, so they are not checked.
std::string file_access_denier(const JobContext& ctx) {
  if (ctx.prom_operator) return ctx.prom_operator->deny_fs_setting;
  const ObjectMeta& ga = ctx.agent.meta;
  return "GrafanaAgent " + ga.ns + "/" + ga.name + " (spec.metrics.arbitraryFSAccessThroughSMs.deny)";
}

void check_file_access(const JobContext& ctx, const ServiceMonitor& sm, AssetRefs& assets) {
  if (!ctx.metrics().deny_fs_access_through_sms) return;
  std::string why = "reading files is denied by " + file_access_denier(ctx);
  for (std::size_t i = 0; i < sm.endpoints.size(); ++i) {
    const Endpoint& e = sm.endpoints[i];
    if (!e.bearer_token_file.empty()) assets.error(service_endpoint_path(i) + ".bearerTokenFile", why);
    if (!e.tls_config) continue;
    if (!e.tls_config->ca_file.empty()) assets.error(service_endpoint_path(i) + ".tlsConfig.caFile", why);
    if (!e.tls_config->cert_file.empty()) assets.error(service_endpoint_path(i) + ".tlsConfig.certFile", why);
    if (!e.tls_config->key_file.empty()) assets.error(service_endpoint_path(i) + ".tlsConfig.keyFile", why);
  }
}

// The endpoints or endpointslice meta labels' prefix of the job's role.
std::string role_prefix(bool slices) {
  return slices ? "__meta_kubernetes_endpointslice_" : "__meta_kubernetes_endpoint_";
}

Value address_target_rule(bool slices, const char* kind, const char* target) {
  const std::string prefix = role_prefix(slices);
  return Value::obj({{"source_labels", Value::arr({prefix + "address_target_kind", prefix + "address_target_name"})},
                     {"separator", ";"},
                     {"regex", std::string(kind) + ";(.*)"},
                     {"replacement", "$1"},
                     {"target_label", target}});
}

struct JobShape {
  bool slices;          // role endpointslice
  bool role_selectors;  // the selector is in kubernetes_sd, not in the rules
};

Value relabel_configs(const JobContext& ctx, const ServiceMonitor& sm, std::size_t i, const JobShape& shape,
                      const ScrapeClass* c, AssetRefs& assets) {
  const Endpoint& e = sm.endpoints[i];
  Value rules = Value::array();
  rules.push(copy_rule("job", "__tmp_prometheus_job_name"));
  if (sm.selector && !shape.role_selectors) append_selector_rules(rules, *sm.selector, kServicePrefix, ctx.compat());
  const std::string port_label = role_prefix(shape.slices) + "port_name";
  if (auto r = port_rule(ctx, e, port_label.c_str(), service_endpoint_path(i), assets)) rules.push(std::move(*r));
  rules.push(address_target_rule(shape.slices, "Node", "node"));
  rules.push(address_target_rule(shape.slices, "Pod", "pod"));
  rules.push(copy_rule("__meta_kubernetes_namespace", "namespace"));
  rules.push(copy_rule("__meta_kubernetes_service_name", "service"));
  rules.push(copy_rule("__meta_kubernetes_pod_name", "pod"));
  rules.push(copy_rule("__meta_kubernetes_pod_container_name", "container"));
  if (filter_running(ctx, e)) rules.push(pod_phase_drop_rule());
  append_label_copies(rules, sm.target_labels, kServicePrefix);
  append_label_copies(rules, sm.pod_target_labels, "__meta_kubernetes_pod_");
  Value job_rule = copy_rule("__meta_kubernetes_service_name", "job");
  job_rule.set("replacement", "$1");
  rules.push(std::move(job_rule));
  if (!sm.job_label.empty())
    rules.push(nonempty_copy_rule(std::string(kServicePrefix) + "label_" + sanitize_label_name(sm.job_label), "job"));
  if (auto r = endpoint_label_rule(e)) rules.push(std::move(*r));
  append_relabel_tail(rules, ctx, sm.meta.ns, e.relabelings, c);
  return rules;
}

Value endpoint_job(const JobContext& ctx, const ServiceMonitor& sm, std::size_t i, const ScrapeClass* c,
                   AssetRefs& assets) {
  const bool slices = sm.endpoint_slices && !ignored_in_compat(ctx, assets, "spec.serviceDiscoveryRole");
  const char* role = slices ? "endpointslice" : "endpoints";
  Value selectors = role_selectors(ctx, sm.selector_mechanism, sm.selector, {role, "service"}, assets);
  const SpecSettings spec{sm.limits, sm.body_size_limit, sm.native_histograms, sm.protocols};
  MonitorEndpoint m{.kind = "serviceMonitor",
                    .role = role,
                    .meta = sm.meta,
                    .namespace_selector = sm.namespace_selector,
                    .attach_node = class_attach_node(sm.attach_metadata_node, c),
                    .spec = spec,
                    .endpoint = sm.endpoints[i],
                    .index = i,
                    .path = service_endpoint_path(i),
                    .scrape_class = c,
                    .selectors = selectors};
  Value rules = relabel_configs(ctx, sm, i, JobShape{slices, !selectors.is_null()}, c, assets);
  return monitor_endpoint_job(ctx, m, std::move(rules), assets);
}

}  // namespace

Value service_monitor_jobs(const JobContext& ctx, const ServiceMonitor& sm, AssetRefs& assets) {
  Value jobs = Value::array();
  check_file_access(ctx, sm, assets);
  check_label_names(sm.target_labels, "spec.targetLabels", assets);
  check_label_names(sm.pod_target_labels, "spec.podTargetLabels", assets);
  const ScrapeClass* c = monitor_scrape_class(ctx, sm.protocols.scrape_class, "spec.scrapeClass", assets);
  if (sm.attach_metadata_node == true) ignored_in_compat(ctx, assets, "spec.attachMetadata.node");
  if (!assets.errors.empty()) return jobs;
  for (std::size_t i = 0; i < sm.endpoints.size(); ++i) jobs.push(endpoint_job(ctx, sm, i, c, assets));
  return jobs;
}

}  // namespace model::scrape
