// Probe -> one scrape job that sends each target to the prober
// (blackbox exporter) as ?target=. Static targets win over ingress
// discovery. Outside compat mode the job also gets what upstream drops:
// the sharding pair on __param_target, metricRelabelings, limits, the
// prober's proxy settings, oauth2, authorization, params and the fields
// of later prometheus-operator releases; compat mode warns about each of
// those that is set. A scrape class's relabelings go after the prober
// rules, before the Probe's own relabelingConfigs.
#include "model/scrape/jobs.hpp"

namespace model::scrape {
namespace {

constexpr const char* kIngressPrefix = "__meta_kubernetes_ingress_";

Value static_configs(const Probe& p) {
  Value labels = Value::object();
  for (const auto& [k, v] : p.static_targets->labels) labels.set(k, v);
  labels.set("namespace", p.meta.ns);  // the Probe's namespace wins over a user label
  return Value::arr({Value::obj({{"targets", Value::strings(p.static_targets->targets)}, {"labels", labels}})});
}

void append_static_rules(Value& rules, const JobContext& ctx, const Probe& p, const ScrapeClass* c) {
  rules.push(copy_rule("__address__", "__param_target"));
  rules.push(copy_rule("__param_target", "instance"));
  rules.push(set_rule("__address__", p.prober_url));
  append_class_relabelings(rules, c, ctx.compat());
  for (const auto& r : p.static_targets->relabelings) rules.push(relabel_rule(r, ctx.compat()));
}

void append_ingress_rules(Value& rules, const JobContext& ctx, const Probe& p, const ScrapeClass* c) {
  const ProbeIngressTargets& ing = *p.ingress_targets;
  if (ing.selector) append_selector_rules(rules, *ing.selector, kIngressPrefix, ctx.compat());
  rules.push(Value::obj({{"source_labels", Value::arr({"__meta_kubernetes_ingress_scheme", "__address__",
                                                       "__meta_kubernetes_ingress_path"})},
                         {"separator", ";"},
                         {"regex", "(.+);(.+);(.+)"},
                         {"target_label", "__param_target"},
                         {"replacement", "$1://$2$3"},
                         {"action", "replace"}}));
  rules.push(copy_rule("__meta_kubernetes_namespace", "namespace"));
  rules.push(copy_rule("__meta_kubernetes_ingress_name", "ingress"));
  rules.push(copy_rule("__param_target", "instance"));
  rules.push(set_rule("__address__", p.prober_url));
  append_class_relabelings(rules, c, ctx.compat());
  for (const auto& r : ing.relabelings) rules.push(relabel_rule(r, ctx.compat()));
}

Value relabel_configs(const JobContext& ctx, const Probe& p, const ScrapeClass* c) {
  Value rules = Value::array();
  rules.push(copy_rule("job", "__tmp_prometheus_job_name"));
  if (!p.job_name.empty()) rules.push(set_rule("job", p.job_name));
  if (p.static_targets)
    append_static_rules(rules, ctx, p, c);
  else
    append_ingress_rules(rules, ctx, p, c);
  const std::string& enforced = ctx.metrics().enforced_namespace_label;
  if (!enforced.empty()) rules.push(set_rule(enforced, p.meta.ns));
  // Upstream shards no Probe, so every shard probes every target.
  if (!ctx.compat()) append_sharding(rules, "__param_target", ctx.shards);
  return rules;
}

void set_auth(Value& job, const JobContext& ctx, const Probe& p, const ScrapeClass* c, AssetRefs& assets) {
  const std::string& ns = p.meta.ns;
  if (auto tls = compat_tls(ctx, class_tls(p.tls_config, c, true), "spec.tlsConfig", assets))
    job.set("tls_config", tls_config(ns, *tls, "spec.tlsConfig", assets, ctx.opts.inline_tls));
  if (p.bearer_token_secret)
    job.set_nonempty("bearer_token", assets.secret_value(ns, *p.bearer_token_secret, "spec.bearerTokenSecret"));
  if (p.basic_auth) job.set_nonempty("basic_auth", inline_basic_auth(ns, *p.basic_auth, "spec.basicAuth", assets));
  if (ctx.compat()) {
    if (p.oauth2) ignored_in_compat(ctx, assets, "spec.oauth2");
    if (p.authorization) ignored_in_compat(ctx, assets, "spec.authorization");
    return;
  }
  if (p.oauth2) job.set("oauth2", inline_oauth2(ns, *p.oauth2, "spec.oauth2", assets, ctx.opts.inline_tls));
  if (!c || !c->authorization) {
    if (p.authorization)
      job.set("authorization", inline_authorization(ns, *p.authorization, "spec.authorization", assets));
    return;
  }
  auto a = class_authorization(p.authorization, c,
                               {{"basicAuth", p.basic_auth.has_value()},
                                {"oauth2", p.oauth2.has_value()},
                                {"bearerTokenSecret", p.bearer_token_secret.has_value()}},
                               "spec", assets);
  job.set("authorization", authorization_block(ns, *a, "spec.authorization", assets));
}

// `module` as the module parameter (always, as upstream renders it), then
// spec.params, whose own `module` counts only when spec.module is unset
// (prometheus-operator).
Value probe_params(const JobContext& ctx, const Probe& p, AssetRefs& assets) {
  Value out = Value::obj({{"module", Value::arr({p.module})}});
  if (p.params.empty() || ignored_in_compat(ctx, assets, "spec.params")) return out;
  for (const auto& [name, values] : p.params) {
    if (name == "module" && !p.module.empty()) continue;
    out.set(name, Value::strings(values));
  }
  return out;
}

// Upstream renders none of the fields after the relabelings: compat mode
// leaves them out, each one set as a warning. Rendering them into a job
// that is thrown away reports the rest (what the agent could not take
// either, and the fields only this project renders).
void warn_compat_tail(const JobContext& ctx, const Probe& p, const SpecSettings& spec, AssetRefs& assets) {
  for (const auto& [field, v] :
       {std::pair{"sampleLimit", p.limits.sample_limit}, std::pair{"targetLimit", p.limits.target_limit}})
    if (v.value_or(0) > 0) ignored_in_compat(ctx, assets, std::string("spec.") + field);
  if (!p.prober_proxy.proxy_url.empty()) ignored_in_compat(ctx, assets, "spec.prober.proxyUrl");
  if (!p.metric_relabelings.empty()) ignored_in_compat(ctx, assets, "spec.metricRelabelings");
  Value discarded = Value::object();
  set_monitor_proxy(discarded, ctx, p.meta.ns, p.prober_proxy, "spec.prober", assets);
  set_spec_settings(discarded, ctx, spec, nullptr, assets);
}

}  // namespace

Value probe_job(const JobContext& ctx, const Probe& p, AssetRefs& assets) {
  const std::string& ns = p.meta.ns;
  Value job = Value::obj({{"job_name", "probe/" + ns + "/" + p.meta.name}});
  job.set("honor_timestamps", !ctx.metrics().override_honor_timestamps);
  job.set("metrics_path", p.prober_path.empty() ? std::string("/probe") : p.prober_path);
  job.set_nonempty("scrape_interval", p.interval);
  job.set_nonempty("scrape_timeout", p.scrape_timeout);
  job.set_nonempty("scheme", p.prober_scheme);
  job.set("params", probe_params(ctx, p, assets));
  if (p.enable_http2 == false && !ignored_in_compat(ctx, assets, "spec.enableHttp2")) job.set("enable_http2", false);
  if (p.follow_redirects == false && !ignored_in_compat(ctx, assets, "spec.followRedirects"))
    job.set("follow_redirects", false);
  check_scrape_timing(ctx, p.interval, p.scrape_timeout, "spec", assets);
  const ScrapeClass* c = monitor_scrape_class(ctx, p.protocols.scrape_class, "spec.scrapeClass", assets);
  set_auth(job, ctx, p, c, assets);
  if (p.static_targets)
    job.set("static_configs", static_configs(p));
  else
    job.set("kubernetes_sd_configs",
            Value::arr({kubernetes_sd(ctx, "ingress", p.ingress_targets->namespace_selector, ns, false)}));
  job.set("relabel_configs", relabel_configs(ctx, p, c));
  const std::string no_body_size_limit;  // Probes have none
  const SpecSettings spec{p.limits, no_body_size_limit, p.native_histograms, p.protocols};
  if (ctx.compat()) {
    warn_compat_tail(ctx, p, spec, assets);
    return job;
  }
  set_monitor_proxy(job, ctx, ns, p.prober_proxy, "spec.prober", assets);
  set_metric_relabels(job, ctx, p.metric_relabelings, c);
  set_spec_settings(job, ctx, spec, c, assets);
  return job;
}

}  // namespace model::scrape
