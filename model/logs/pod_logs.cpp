// The scrape_config of one PodLogs: pod discovery in the selected
// namespaces, its pipeline stages, and relabel rules in upstream's order
// (job name, selector, Kubernetes metadata, podTargetLabels, job, jobLabel,
// log file path, user relabelings, enforced namespace label).
#include "model/logs/render.hpp"
#include "model/scrape/common.hpp"

namespace model::logs {
namespace {

constexpr const char* kPodMetaPrefix = "__meta_kubernetes_pod_";

std::string pod_label(const std::string& label) {
  return std::string(kPodMetaPrefix) + "label_" + sanitize_label_name(label);
}

bool starts_like_label(const std::string& s) {
  return !s.empty() && !(s[0] >= '0' && s[0] <= '9');  // already sanitised to [a-zA-Z0-9_]
}

Value kubernetes_sd(const GrafanaAgent& agent, const PodLogs& pl, const Value& sd_fields) {
  Value sd = sd_fields;
  sd.set("role", "pod");
  auto names = scrape::sd_namespaces(pl.namespace_selector, pl.meta.ns, agent.logs.ignore_namespace_selectors);
  if (!names.empty()) sd.set("namespaces", Value::obj({{"names", Value::strings(names)}}));
  return sd;
}

void append_target_labels(Value& rules, const PodLogs& pl, FieldErrors& errors) {
  for (std::size_t i = 0; i < pl.pod_target_labels.size(); ++i) {
    const std::string& label = pl.pod_target_labels[i];
    std::string target = sanitize_label_name(label);
    if (!starts_like_label(target)) {
      errors.push_back(
          {"spec.podTargetLabels[" + std::to_string(i) + "]", "\"" + label + "\" cannot be used as a label name"});
      continue;
    }
    rules.push(scrape::nonempty_copy_rule(pod_label(label), target));
  }
}

Value relabel_configs(const GrafanaAgent& agent, const PodLogs& pl, const RenderOptions& opts, FieldErrors& errors) {
  Value rules = Value::array();
  rules.push(scrape::copy_rule("job", "__tmp_prometheus_job_name"));
  if (pl.selector) scrape::append_selector_rules(rules, *pl.selector, kPodMetaPrefix, opts.upstream_compat);
  rules.push(scrape::copy_rule("__meta_kubernetes_namespace", "namespace"));
  rules.push(scrape::copy_rule("__meta_kubernetes_service_name", "service"));
  rules.push(scrape::copy_rule("__meta_kubernetes_pod_name", "pod"));
  rules.push(scrape::copy_rule("__meta_kubernetes_pod_container_name", "container"));
  append_target_labels(rules, pl, errors);
  rules.push(scrape::set_rule("job", pl.meta.ns + "/" + pl.meta.name));
  if (!pl.job_label.empty()) rules.push(scrape::nonempty_copy_rule(pod_label(pl.job_label), "job"));
  rules.push(
      Value::obj({{"source_labels", Value::arr({"__meta_kubernetes_pod_uid", "__meta_kubernetes_pod_container_name"})},
                  {"target_label", "__path__"},
                  {"separator", "/"},
                  {"replacement", "/var/log/pods/*$1/*.log"}}));
  for (const auto& r : pl.relabelings) rules.push(scrape::relabel_rule(r, opts.upstream_compat));
  const std::string& enforced = agent.logs.enforced_namespace_label;
  if (!enforced.empty()) rules.push(scrape::set_rule(enforced, pl.meta.ns));
  return rules;
}

}  // namespace

Value pod_logs_scrape_config(const GrafanaAgent& agent, const PodLogs& pl, const Value& sd_fields,
                             const RenderOptions& opts, FieldErrors& errors) {
  Value out = Value::obj({{"job_name", "podLogs/" + pl.meta.ns + "/" + pl.meta.name}});
  out.set("kubernetes_sd_configs", Value::arr({kubernetes_sd(agent, pl, sd_fields)}));
  Value stages = Value::array();
  for (const auto& st : pl.pipeline_stages) stages.push(st.to_value());
  out.set_nonempty("pipeline_stages", std::move(stages));
  out.set("relabel_configs", relabel_configs(agent, pl, opts, errors));
  return out;
}

}  // namespace model::logs
