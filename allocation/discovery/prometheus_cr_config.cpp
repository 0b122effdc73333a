// The `prometheus_cr` block of the allocator's config: selectors, the
// namespace allow/deny lists, file access, scrape classes.
#include <algorithm>

#include "allocation/discovery/collectors.hpp"
#include "allocation/discovery/prometheus_cr.hpp"
#include "model/scrape/jobs.hpp"

namespace allocation::discovery {

namespace {

using model::Value;

std::vector<std::string> namespace_list(const Value* v, const std::string& field) {
  std::vector<std::string> out;
  if (!v || v->is_null()) return out;
  if (!v->is_array()) throw DiscoveryError(field + ": must be a list of namespace names");
  for (std::size_t i = 0; i < v->as_array().size(); ++i) {
    const Value& item = v->as_array()[i];
    if (!item.is_string() || item.as_string().empty())
      throw DiscoveryError(field + "[" + std::to_string(i) + "]: must be a non-empty string");
    out.push_back(item.as_string());
  }
  return out;
}

bool bool_field(const Value& block, const char* key, const std::string& field, bool fallback) {
  const Value* v = block.find(key);
  if (!v || v->is_null()) return fallback;
  if (!v->is_bool()) throw DiscoveryError(field + "." + key + ": must be a boolean");
  return v->as_bool();
}

void read_selectors(const Value& block, const std::string& field, PrometheusCrConfig& out) {
  auto selector = [&](const char* key) { return parse_label_selector(block.find(key), field + "." + key); };
  out.service_monitor_selector = selector("service_monitor_selector");
  out.pod_monitor_selector = selector("pod_monitor_selector");
  out.probe_selector = selector("probe_selector");
  out.scrape_config_selector = selector("scrape_config_selector");
  out.service_monitor_namespace_selector = selector("service_monitor_namespace_selector");
  out.pod_monitor_namespace_selector = selector("pod_monitor_namespace_selector");
  out.probe_namespace_selector = selector("probe_namespace_selector");
  out.scrape_config_namespace_selector = selector("scrape_config_namespace_selector");
}

void read_namespaces(const Value& block, const std::string& field, PrometheusCrConfig& out) {
  out.allow_namespaces = namespace_list(block.find("allow_namespaces"), field + ".allow_namespaces");
  out.deny_namespaces = namespace_list(block.find("deny_namespaces"), field + ".deny_namespaces");
  // Upstream's allocator refuses both too: a deny list inside an allow list
  // says nothing the allow list alone could not.
  if (!out.allow_namespaces.empty() && !out.deny_namespaces.empty())
    throw DiscoveryError(field + ".deny_namespaces: cannot be set together with " + field + ".allow_namespaces");
}

model::ScrapeClasses read_scrape_classes(const Value& block, const std::string& field) {
  model::FieldErrors errors;
  auto classes = model::decode_scrape_classes(block.find("scrape_classes"), field + ".scrape_classes", errors);
  if (!errors.empty()) throw DiscoveryError(errors.front().path + ": " + errors.front().message);
  return classes;
}

}  // namespace

bool PrometheusCrConfig::needs_namespaces() const {
  return service_monitor_namespace_selector || pod_monitor_namespace_selector || probe_namespace_selector ||
         scrape_config_namespace_selector;
}

bool PrometheusCrConfig::namespace_allowed(const std::string& ns) const {
  auto in = [&](const std::vector<std::string>& list) { return std::find(list.begin(), list.end(), ns) != list.end(); };
  if (!allow_namespaces.empty() && !in(allow_namespaces)) return false;
  return !in(deny_namespaces);
}

PrometheusCrConfig parse_prometheus_cr(const model::Value* block, const std::string& field) {
  PrometheusCrConfig out;
  if (!block || block->is_null()) return out;
  if (!block->is_object()) throw DiscoveryError(field + ": must be an object");
  out.enabled = bool_field(*block, "enabled", field, false);
  read_selectors(*block, field, out);
  if (const Value* interval = block->find("scrape_interval"); interval && !interval->is_null()) {
    if (!interval->is_string() || !model::scrape::parse_duration(interval->as_string()))
      throw DiscoveryError(field + ".scrape_interval: must be a duration such as 30s");
    out.scrape_interval = interval->as_string();
  }
  read_namespaces(*block, field, out);
  out.deny_fs_access_through_sms = bool_field(*block, "deny_fs_access_through_sms", field, true);
  out.scrape_classes = read_scrape_classes(*block, field);
  return out;
}

}  // namespace allocation::discovery
