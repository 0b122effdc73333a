// ScrapeConfig -> the job scrapeConfig/<ns>/<name>, in the shape
// prometheus-operator renders it. Only the fields the CR sets are written
// (Prometheus's defaults apply otherwise). Relabel order: job name into
// __tmp_prometheus_job_name, scrape class relabelings, spec.jobName as the
// `job` label, user relabelings, enforced namespace label, and the sharding
// pair when there is more than one shard and no hashmod rule yet. Metric
// relabelings: the class's, then the CR's.
#include "model/scrape/jobs.hpp"

namespace model::scrape {
namespace {

void set_scrape_fields(Value& job, const JobContext& ctx, const ScrapeConfig& sc, const ScrapeClass* c) {
  const auto& m = ctx.metrics();
  if (sc.honor_timestamps) job.set("honor_timestamps", *sc.honor_timestamps && !m.override_honor_timestamps);
  if (sc.track_timestamps_staleness) job.set("track_timestamps_staleness", *sc.track_timestamps_staleness);
  if (sc.honor_labels) job.set("honor_labels", *sc.honor_labels && !m.override_honor_labels);
  job.set_nonempty("metrics_path", sc.metrics_path);
  job.set_nonempty("params", params_value(sc.params));
  if (sc.enable_compression) job.set("enable_compression", *sc.enable_compression);
  if (sc.enable_http2) job.set("enable_http2", *sc.enable_http2);
  job.set_nonempty("scrape_interval", sc.scrape_interval);
  job.set_nonempty("scrape_timeout", sc.scrape_timeout);
  job.set_nonempty("scrape_protocols", Value::strings(sc.scrape_protocols));
  set_fallback_protocol(job, ctx, sc.fallback_scrape_protocol, c);
  job.set_nonempty("scheme", sc.scheme);
}

void set_auth(Value& job, const JobContext& ctx, const ScrapeConfig& sc, const ScrapeClass* c, AssetRefs& assets) {
  const std::string& ns = sc.meta.ns;
  set_proxy(job, ns, sc.proxy, "spec", assets);
  if (sc.basic_auth) job.set_nonempty("basic_auth", inline_basic_auth(ns, *sc.basic_auth, "spec.basicAuth", assets));
  auto authorization = class_authorization(
      sc.authorization, c, {{"basicAuth", sc.basic_auth.has_value()}, {"oauth2", sc.oauth2.has_value()}}, "spec",
      assets);
  if (authorization) job.set("authorization", authorization_block(ns, *authorization, "spec.authorization", assets));
  if (sc.oauth2) job.set("oauth2", inline_oauth2(ns, *sc.oauth2, "spec.oauth2", assets, ctx.opts.inline_tls));
  if (auto tls = class_tls(sc.tls_config, c, true))
    job.set("tls_config", tls_config(ns, *tls, "spec.tlsConfig", assets, ctx.opts.inline_tls));
}

// Limits, then native histograms with Prometheus 3's field names (the
// collectors' Prometheus receiver is built on Prometheus 3).
void set_limit_fields(Value& job, const JobContext& ctx, const ScrapeConfig& sc, AssetRefs& assets) {
  set_limits(job, ctx, sc.limits, assets);
  set_native_histograms_v3(job, sc.native_histograms);
  job.set_nonempty("body_size_limit", sc.body_size_limit);
}

Value relabel_configs(const JobContext& ctx, const ScrapeConfig& sc, const ScrapeClass* c) {
  Value rules = Value::array();
  rules.push(copy_rule("job", "__tmp_prometheus_job_name"));
  append_class_relabelings(rules, c, ctx.compat());
  // job_name stays scrapeConfig/<ns>/<name> (Prometheus needs unique job
  // names); spec.jobName only sets the label.
  if (!sc.job_name.empty())
    rules.push(Value::obj({{"target_label", "job"}, {"action", "replace"}, {"replacement", sc.job_name}}));
  for (const auto& r : sc.relabelings) rules.push(relabel_rule(r, ctx.compat()));
  const std::string& enforced = ctx.metrics().enforced_namespace_label;
  if (!enforced.empty()) rules.push(set_rule(enforced, sc.meta.ns));
  // A user's hashmod rule means the ScrapeConfig shards itself.
  if (ctx.shards > 1 && !has_hashmod(rules)) append_sharding(rules, "__address__", ctx.shards);
  return rules;
}

}  // namespace

Value scrape_config_job(const JobContext& ctx, const ScrapeConfig& sc, AssetRefs& assets) {
  Value job = Value::obj({{"job_name", "scrapeConfig/" + sc.meta.ns + "/" + sc.meta.name}});
  const ScrapeClass* c = monitor_scrape_class(ctx, sc.scrape_class, "spec.scrapeClass", assets);
  check_scrape_timing(ctx, sc.scrape_interval, sc.scrape_timeout, "spec", assets, "scrapeInterval");
  set_scrape_fields(job, ctx, sc, c);
  set_auth(job, ctx, sc, c, assets);
  set_limit_fields(job, ctx, sc, assets);
  set_scrape_config_sd(job, ctx, sc, assets);
  job.set("relabel_configs", relabel_configs(ctx, sc, c));
  set_metric_relabels(job, ctx, sc.metric_relabelings, c);
  job.set_nonempty("metric_name_validation_scheme", sc.name_validation_scheme);
  job.set_nonempty("metric_name_escaping_scheme", sc.name_escaping_scheme);
  return job;
}

}  // namespace model::scrape
