// The parts of a scrape job that ServiceMonitor endpoints and PodMonitor
// podMetricsEndpoints render the same way: HTTP settings and auth, the
// port filter, the endpoint label, the pod-phase filter and the end of the
// relabel list (user rules, enforced namespace label, sharding).
#include "model/scrape/common.hpp"

namespace model::scrape {

Value params_value(const std::map<std::string, std::vector<std::string>>& params) {
  Value out = Value::object();
  for (const auto& [k, v] : params) out.set(k, Value::strings(v));
  return out;
}

namespace {

// Secrets of a monitor endpoint are inlined; TLS material is a file path
// unless RenderOptions::inline_tls. A scrape class adds TLS files and an
// authorization (without one, the output is the endpoint's alone).
void set_endpoint_auth(Value& job, const JobContext& ctx, const std::string& ns, const Endpoint& e,
                       const std::string& path, AssetRefs& assets, const ScrapeClass* c, bool tls_zero_is_unset) {
  if (auto tls = compat_tls(ctx, class_tls(e.tls_config, c, tls_zero_is_unset), path + ".tlsConfig", assets))
    job.set("tls_config", tls_config(ns, *tls, path + ".tlsConfig", assets, ctx.opts.inline_tls));
  job.set_nonempty("bearer_token_file", e.bearer_token_file);
  if (e.bearer_token_secret)
    job.set_nonempty("bearer_token", assets.secret_value(ns, *e.bearer_token_secret, path + ".bearerTokenSecret"));
  if (e.basic_auth) job.set_nonempty("basic_auth", inline_basic_auth(ns, *e.basic_auth, path + ".basicAuth", assets));
  if (ctx.compat()) {  // upstream ignores oauth2 and authorization
    if (e.oauth2) ignored_in_compat(ctx, assets, path + ".oauth2");
    if (e.authorization) ignored_in_compat(ctx, assets, path + ".authorization");
    return;
  }
  if (e.oauth2) job.set("oauth2", inline_oauth2(ns, *e.oauth2, path + ".oauth2", assets, ctx.opts.inline_tls));
  if (!c || !c->authorization) {
    if (e.authorization)
      job.set("authorization", inline_authorization(ns, *e.authorization, path + ".authorization", assets));
    return;
  }
  auto authorization = class_authorization(e.authorization, c,
                                           {{"basicAuth", e.basic_auth.has_value()},
                                            {"oauth2", e.oauth2.has_value()},
                                            {"bearerTokenSecret", e.bearer_token_secret.has_value()},
                                            {"bearerTokenFile", !e.bearer_token_file.empty()}},
                                           path, assets);
  job.set("authorization", authorization_block(ns, *authorization, path + ".authorization", assets));
}

}  // namespace

void set_endpoint_http_fields(Value& job, const JobContext& ctx, const std::string& ns, const Endpoint& e,
                              const std::string& path, AssetRefs& assets, const ScrapeClass* c,
                              bool tls_zero_is_unset) {
  job.set_nonempty("scrape_interval", e.interval);
  job.set_nonempty("scrape_timeout", e.scrape_timeout);
  job.set_nonempty("metrics_path", e.path);
  set_monitor_proxy(job, ctx, ns, e.proxy, path, assets);
  job.set_nonempty("params", params_value(e.params));
  job.set_nonempty("scheme", e.scheme);
  // Only the non-default values are written, as upstream does.
  if (e.enable_http2 == false) job.set("enable_http2", false);
  if (e.follow_redirects == false && !ignored_in_compat(ctx, assets, path + ".followRedirects"))
    job.set("follow_redirects", false);
  set_endpoint_auth(job, ctx, ns, e, path, assets, c, tls_zero_is_unset);
}

std::optional<Value> port_rule(const JobContext& ctx, const Endpoint& e, const char* port_name_label,
                               const std::string& path, AssetRefs& assets) {
  if (!e.port.empty()) return match_rule(port_name_label, e.port, "keep");
  if (e.port_number && !ignored_in_compat(ctx, assets, path + ".portNumber"))
    return match_rule("__meta_kubernetes_pod_container_port_number", std::to_string(*e.port_number), "keep");
  if (!e.target_port) return std::nullopt;
  const IntOrString& tp = *e.target_port;
  if (!tp.is_int && !tp.str_value.empty())
    return match_rule("__meta_kubernetes_pod_container_port_name", tp.str_value, "keep");
  if (tp.is_int && tp.int_value != 0)
    return match_rule("__meta_kubernetes_pod_container_port_number", std::to_string(tp.int_value), "keep");
  return std::nullopt;
}

std::optional<Value> endpoint_label_rule(const Endpoint& e) {
  if (!e.port.empty()) return set_rule("endpoint", e.port);
  if (!e.target_port) return std::nullopt;
  const IntOrString& tp = *e.target_port;
  if (tp.is_int ? tp.int_value == 0 : tp.str_value.empty()) return std::nullopt;
  return set_rule("endpoint", tp.to_string());
}

bool filter_running(const JobContext& ctx, const Endpoint& e) {
  if (ctx.compat()) return e.filter_running == true;
  return e.filter_running != false;
}

Value pod_phase_drop_rule() {
  return match_rule("__meta_kubernetes_pod_phase", "(Failed|Succeeded)", "drop");
}

void append_relabel_tail(Value& rules, const JobContext& ctx, const std::string& ns,
                         const std::vector<RelabelConfig>& relabelings, const ScrapeClass* c) {
  // prometheus-operator: the generated rules, then the class's, then the user's.
  append_class_relabelings(rules, c, ctx.compat());
  for (const auto& r : relabelings) rules.push(relabel_rule(r, ctx.compat()));
  // Last but for sharding, so no other rule can override it.
  const std::string& enforced = ctx.metrics().enforced_namespace_label;
  if (!enforced.empty()) rules.push(set_rule(enforced, ns));
  append_sharding(rules, "__address__", ctx.shards);
}

void set_metric_relabels(Value& job, const JobContext& ctx, const std::vector<RelabelConfig>& rules,
                         const ScrapeClass* c) {
  Value out = c ? relabel_rules(c->metric_relabelings, ctx.compat()) : Value::array();
  Value own = metric_relabel_rules(rules, ctx.metrics().enforced_namespace_label, ctx.compat());
  for (auto& r : own.as_array()) out.push(std::move(r));
  job.set_nonempty("metric_relabel_configs", std::move(out));
}

Value monitor_endpoint_job(const JobContext& ctx, const MonitorEndpoint& m, Value relabel_configs, AssetRefs& assets) {
  const Endpoint& e = m.endpoint;
  const std::string& ns = m.meta.ns;
  Value job =
      Value::obj({{"job_name", std::string(m.kind) + "/" + ns + "/" + m.meta.name + "/" + std::to_string(m.index)}});
  set_honor_fields(job, ctx, e.honor_labels, e.honor_timestamps);
  if (e.track_timestamps_staleness && !ignored_in_compat(ctx, assets, m.path + ".trackTimestampsStaleness"))
    job.set("track_timestamps_staleness", *e.track_timestamps_staleness);
  job.set("kubernetes_sd_configs",
          Value::arr({kubernetes_sd(ctx, m.role, m.namespace_selector, ns, m.attach_node, m.selectors)}));
  // ServiceMonitor TLS is the full TLSConfig, which counts as set when present.
  const bool tls_zero_is_unset = std::string_view(m.kind) != "serviceMonitor";
  set_endpoint_http_fields(job, ctx, ns, e, m.path, assets, m.scrape_class, tls_zero_is_unset);
  check_scrape_timing(ctx, e.interval, e.scrape_timeout, m.path, assets);
  job.set("relabel_configs", std::move(relabel_configs));
  set_metric_relabels(job, ctx, e.metric_relabelings, m.scrape_class);
  set_spec_settings(job, ctx, m.spec, m.scrape_class, assets);
  return job;
}

}  // namespace model::scrape
