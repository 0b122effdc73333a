#include "model/labels.hpp"

namespace model {

Labels pod_selector_labels(const GrafanaAgent& agent, const Labels& extras) {
  const std::string& ga = agent.meta.name;
  Labels out{{"app.kubernetes.io/name", "grafana-agent"},
             {"app.kubernetes.io/instance", ga},
             {"grafana-agent", ga},
             {kManagedByLabel, kManagedByValue},
             {kAgentNameLabel, ga}};
  for (const auto& [k, v] : extras) out[k] = v;
  return out;
}

Labels pod_labels(const GrafanaAgent& agent, const Labels& selector, const RenderOptions& opts) {
  Labels out{{kVersionLabel, sanitize_volume_name(opts.operator_version)}};
  if (agent.pod_metadata)
    for (const auto& [k, v] : string_map(agent.pod_metadata->find("labels"))) out[k] = v;
  for (const auto& [k, v] : selector) out[k] = v;
  return out;
}

Labels pod_annotations(const GrafanaAgent& agent) {
  Labels out;
  if (agent.pod_metadata) out = string_map(agent.pod_metadata->find("annotations"));
  out[kDefaultContainerAnnotation] = "grafana-agent";
  return out;
}

Labels with_operator_labels(const Labels& labels, const RenderOptions& opts) {
  Labels out = labels;
  for (const auto& [k, v] : opts.operator_labels) out[k] = v;
  return out;
}

Labels workload_labels(const Labels& final_pod_labels) {
  Labels out = final_pod_labels;
  out.erase(kVersionLabel);
  return out;
}

Labels workload_annotations(const GrafanaAgent& agent) {
  Labels out;
  for (const auto& [k, v] : agent.meta.annotations)
    if (k.rfind("kubectl.kubernetes.io/", 0) != 0) out[k] = v;
  return out;
}

Value labels_value(const Labels& labels) {
  // A map's keys are unique already: no set() scan per key.
  Value::Object out;
  out.reserve(labels.size());
  for (const auto& [k, v] : labels) out.emplace_back(k, Value(v));
  return Value(std::move(out));
}

Labels string_map(const Value* object) {
  Labels out;
  if (!object || !object->is_object()) return out;
  for (const auto& [k, v] : object->as_object())
    if (v.is_string()) out[k] = v.as_string();
  return out;
}

std::string sanitize_volume_name(const std::string& name) {
  std::string out;
  bool in_run = false;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    if (ok) {
      out += c;
    } else if (!in_run) {
      out += '-';
    }
    in_run = !ok;
  }
  constexpr std::size_t kMaxLength = 63;
  if (out.size() > kMaxLength) out.resize(kMaxLength);
  std::size_t first = out.find_first_not_of('-');
  if (first == std::string::npos) return "";
  std::size_t last = out.find_last_not_of('-');
  return out.substr(first, last - first + 1);
}

}  // namespace model
