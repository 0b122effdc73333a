// Probe -> one scrape job that sends each target to the prober
// (blackbox exporter) as ?target=. Static targets win over ingress
// discovery. Outside compat mode the job also gets what upstream drops:
// the sharding pair on __param_target, metricRelabelings, limits,
// prober.proxyUrl, oauth2 and authorization. A scrape class's relabelings
// go after the prober rules, before the Probe's own relabelingConfigs.
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
  if (auto tls = class_tls(p.tls_config, c, true))
    job.set("tls_config", tls_config(ns, *tls, "spec.tlsConfig", assets, ctx.opts.inline_tls));
  if (p.bearer_token_secret)
    job.set_nonempty("bearer_token", assets.secret_value(ns, *p.bearer_token_secret, "spec.bearerTokenSecret"));
  if (p.basic_auth) job.set_nonempty("basic_auth", inline_basic_auth(ns, *p.basic_auth, "spec.basicAuth", assets));
  if (ctx.compat()) return;
  if (p.oauth2) job.set("oauth2", inline_oauth2(ns, *p.oauth2, "spec.oauth2", assets));
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

}  // namespace

Value probe_job(const JobContext& ctx, const Probe& p, AssetRefs& assets) {
  const std::string& ns = p.meta.ns;
  Value job = Value::obj({{"job_name", "probe/" + ns + "/" + p.meta.name}});
  job.set("honor_timestamps", !ctx.metrics().override_honor_timestamps);
  job.set("metrics_path", p.prober_path.empty() ? std::string("/probe") : p.prober_path);
  job.set_nonempty("scrape_interval", p.interval);
  job.set_nonempty("scrape_timeout", p.scrape_timeout);
  job.set_nonempty("scheme", p.prober_scheme);
  job.set("params", Value::obj({{"module", Value::arr({p.module})}}));
  check_scrape_timing(ctx, p.interval, p.scrape_timeout, "spec", assets);
  const ScrapeClass* c = monitor_scrape_class(ctx, p.scrape_class, "spec.scrapeClass", assets);
  set_auth(job, ctx, p, c, assets);
  if (p.static_targets)
    job.set("static_configs", static_configs(p));
  else
    job.set("kubernetes_sd_configs",
            Value::arr({kubernetes_sd(ctx, "ingress", p.ingress_targets->namespace_selector, ns, false)}));
  job.set("relabel_configs", relabel_configs(ctx, p, c));
  if (ctx.compat()) return job;
  job.set_nonempty("proxy_url", p.prober_proxy_url);
  set_metric_relabels(job, ctx, p.metric_relabelings, c);
  set_limits(job, ctx, p.limits);
  set_fallback_protocol(job, ctx, p.fallback_scrape_protocol, c);
  return job;
}

}  // namespace model::scrape
