// The spec-level settings ServiceMonitor, PodMonitor and Probe share:
// limits, body size, native histograms, scrape protocols, and how a
// selector reaches kubernetes_sd. The Grafana Agent's Prometheus is v2.48
// (grafana/agent v0.39.2 pins a fork of it): it has body_size_limit,
// keep_dropped_targets, scrape_classic_histograms and
// native_histogram_bucket_limit, but no scrape_protocols,
// fallback_scrape_protocol, native_histogram_min_bucket_factor,
// convert_classic_histograms_to_nhcb or scrape_native_histograms, and it
// never asks for the protobuf format. prometheus-operator's rendering (the
// target allocator's collectors) uses Prometheus 3's names.
#include "model/scrape/common.hpp"

namespace model::scrape {
namespace {

void set_native_histograms_agent(Value& job, const JobContext& ctx, const NativeHistogramSettings& n,
                                 AssetRefs& assets) {
  if (n.scrape_classic_histograms && !ignored_in_compat(ctx, assets, "spec.scrapeClassicHistograms"))
    job.set("scrape_classic_histograms", *n.scrape_classic_histograms);
  if (n.bucket_limit && !ignored_in_compat(ctx, assets, "spec.nativeHistogramBucketLimit"))
    job.set("native_histogram_bucket_limit", *n.bucket_limit);
  // false is what the agent does anyway.
  if (n.scrape_native_histograms == true)
    unsupported_by_agent(assets, "spec.scrapeNativeHistograms",
                         "it never negotiates the protobuf format, so it scrapes no native histograms");
  if (n.min_bucket_factor)
    unsupported_by_agent(assets, "spec.nativeHistogramMinBucketFactor",
                         "its Prometheus, v2.48, has no native_histogram_min_bucket_factor");
  if (n.convert_classic_histograms_to_nhcb == true)
    unsupported_by_agent(assets, "spec.convertClassicHistogramsToNHCB",
                         "its Prometheus, v2.48, has no convert_classic_histograms_to_nhcb");
}

void set_protocols(Value& job, const JobContext& ctx, const ScrapeProtocolSettings& p, const ScrapeClass* c,
                   AssetRefs& assets) {
  if (ctx.prom_operator) {
    job.set_nonempty("scrape_protocols", Value::strings(p.scrape_protocols));
    set_fallback_protocol(job, ctx, p.fallback_scrape_protocol, c);
    return;
  }
  if (!p.scrape_protocols.empty())
    unsupported_by_agent(assets, "spec.scrapeProtocols",
                         "its Prometheus, v2.48, has no scrape_protocols: it always asks for OpenMetrics 1.0.0, "
                         "then 0.0.1, then the Prometheus text format 0.0.4");
  // Prometheus 2.48 parses a response whose Content-Type it cannot use as
  // the Prometheus text format 0.0.4: that fallback is honoured as is.
  if (!p.fallback_scrape_protocol.empty() && p.fallback_scrape_protocol != "PrometheusText0.0.4")
    unsupported_by_agent(assets, "spec.fallbackScrapeProtocol",
                         "its Prometheus, v2.48, always falls back to PrometheusText0.0.4");
}

}  // namespace

void set_native_histograms_v3(Value& job, const NativeHistogramSettings& n) {
  if (n.scrape_native_histograms) job.set("scrape_native_histograms", *n.scrape_native_histograms);
  if (n.bucket_limit) job.set("native_histogram_bucket_limit", *n.bucket_limit);
  if (n.min_bucket_factor) job.set("native_histogram_min_bucket_factor", *n.min_bucket_factor);
  if (n.scrape_classic_histograms) job.set("always_scrape_classic_histograms", *n.scrape_classic_histograms);
  if (n.convert_classic_histograms_to_nhcb)
    job.set("convert_classic_histograms_to_nhcb", *n.convert_classic_histograms_to_nhcb);
}

void set_spec_settings(Value& job, const JobContext& ctx, const SpecSettings& s, const ScrapeClass* c,
                       AssetRefs& assets) {
  set_limits(job, ctx, s.limits, assets);
  if (!s.body_size_limit.empty() && !ignored_in_compat(ctx, assets, "spec.bodySizeLimit"))
    job.set("body_size_limit", s.body_size_limit);
  if (ctx.prom_operator)
    set_native_histograms_v3(job, s.native_histograms);
  else
    set_native_histograms_agent(job, ctx, s.native_histograms, assets);
  set_protocols(job, ctx, s.protocols, c, assets);
}

Value role_selectors(const JobContext& ctx, SelectorMechanism mechanism, const std::optional<LabelSelector>& selector,
                     std::initializer_list<const char*> roles, AssetRefs& assets) {
  if (mechanism != SelectorMechanism::role_selector || ignored_in_compat(ctx, assets, "spec.selectorMechanism"))
    return Value();
  const std::string text = selector ? selector_string(*selector) : "";
  Value out = Value::array();
  for (const char* role : roles) out.push(Value::obj({{"role", role}, {"label", text}}));
  return out;
}

}  // namespace model::scrape
