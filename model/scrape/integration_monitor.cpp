// IntegrationMonitor -> one scrape job over the operator's aggregated
// integrations SD endpoint (http_sd), which returns every integration
// target of every GrafanaAgent the operator manages (the `agent` query
// parameter is a hint; the rules below do not rely on it). Relabel order:
// this GrafanaAgent's targets, the monitor's selector, its namespace
// selector, the fixed labels (cluster, job, instance, monitor,
// metrics_instance), then the common tail (user relabelings, enforced
// namespace label, sharding pair).
//
// Selection is by label, as prometheus-operator selects Services: the
// selector becomes keep/drop rules on the __meta_agentoperator_integration_
// cr_label_*/cr_labelpresent_* labels every integration target carries,
// the namespace selector a keep on cr_namespace. The job then depends on the
// monitor and the agent only, not on which integrations exist: it is
// cacheable like the other monitors' jobs, and an integration created later
// is picked up by the next SD poll without re-rendering agent.yml. Targets
// come only from this agent's integrations pods (the first rule), which
// run exactly the integrations of its hierarchy, so the rules select
// exactly the hierarchy's integrations that the monitor selects.
#include "model/integrations.hpp"
#include "model/labels.hpp"
#include "model/scrape/jobs.hpp"

namespace model::scrape {
namespace {

const std::string kPrefix = kIntegrationMetaPrefix;
constexpr const char* kAgentNamespaceLabel = kSdAgentNamespaceLabel;
constexpr const char* kAgentNameLabel = kSdAgentNameLabel;

Value pair_keep_rule(const std::string& a, const std::string& b, const std::string& va, const std::string& vb) {
  return Value::obj({{"source_labels", Value::arr({a, b})},
                     {"separator", ";"},
                     {"regex", quote_regexp(va) + ";" + quote_regexp(vb)},
                     {"action", "keep"}});
}

// Like sd_namespaces for kubernetes_sd: any -> no rule; matchNames -> those;
// neither (or ignoreNamespaceSelectors) -> the monitor's own namespace.
void append_namespace_rule(Value& rules, const JobContext& ctx, const IntegrationMonitor& im) {
  std::vector<std::string> names =
      sd_namespaces(im.namespace_selector, im.meta.ns, ctx.metrics().ignore_namespace_selectors);
  if (names.empty()) return;
  std::string alternatives;
  for (const auto& n : names) alternatives += (alternatives.empty() ? "" : "|") + quote_regexp(n);
  rules.push(match_rule(kPrefix + "cr_namespace", "(" + alternatives + ")", "keep"));
}

Value relabel_configs(const JobContext& ctx, const MetricsInstance& mi, const IntegrationMonitor& im) {
  const ObjectMeta& ga = ctx.agent.meta;
  Value rules = Value::array();
  rules.push(pair_keep_rule(kAgentNamespaceLabel, kAgentNameLabel, ga.ns, ga.name));
  if (im.selector) append_selector_rules(rules, *im.selector, kPrefix + "cr_", ctx.compat());
  append_namespace_rule(rules, ctx, im);
  rules.push(set_rule("cluster", ga.ns + "/" + ga.name));
  Value job = nonempty_copy_rule("__meta_agent_integration_name", "job");
  job.set("replacement", "integrations/$1");
  rules.push(std::move(job));
  // Only when both are present, so a target without them keeps the
  // agent's own instance label rather than getting "/".
  rules.push(Value::obj({{"source_labels", Value::arr({kPrefix + "cr_namespace", kPrefix + "cr_name"})},
                         {"separator", "/"},
                         {"regex", "(.+)/(.+)"},
                         {"replacement", "$1/$2"},
                         {"target_label", "instance"}}));
  rules.push(set_rule("monitor", im.meta.ns + "/" + im.meta.name));
  rules.push(set_rule("metrics_instance", mi.meta.ns + "/" + mi.meta.name));
  append_relabel_tail(rules, ctx, im.meta.ns, im.endpoint.relabelings);
  return rules;
}

}  // namespace

Value integration_monitor_job(const JobContext& ctx, const MetricsInstance& mi, const IntegrationMonitor& im,
                              AssetRefs& assets) {
  const ObjectMeta& ga = ctx.agent.meta;
  Value job = Value::obj({{"job_name", "integrationMonitor/" + im.meta.ns + "/" + im.meta.name}});
  set_honor_fields(job, ctx, im.endpoint.honor_labels, im.endpoint.honor_timestamps);
  const std::string& base = ctx.opts.integrations_sd_url;
  std::string url = base + (base.find('?') == std::string::npos ? "?" : "&") + "agent=" + ga.ns + "/" + ga.name;
  job.set("http_sd_configs", Value::arr({Value::obj({{"url", url}})}));
  set_endpoint_http_fields(job, ctx, im.meta.ns, im.endpoint, "spec", assets);
  check_scrape_timing(ctx, im.endpoint.interval, im.endpoint.scrape_timeout, "spec", assets);
  job.set("relabel_configs", relabel_configs(ctx, mi, im));
  set_metric_relabels(job, ctx, im.endpoint.metric_relabelings);
  set_limits(job, ctx, im.limits, assets);
  return job;
}

}  // namespace model::scrape
