// Prometheus CR discovery: selectors, the monitor index and rendering.
#include "allocation/discovery/prometheus_cr.hpp"

#include <set>

#include "allocation/discovery/collectors.hpp"
#include "allocation/discovery/meta.hpp"
#include "model/assets.hpp"
#include "model/inventory.hpp"
#include "model/scrape/jobs.hpp"

namespace allocation::discovery {

namespace {

using model::Value;

// Absent selectors select everything (upstream's allocator defaults them to
// empty selectors, unlike prometheus-operator's nil = nothing).
bool matches(const std::optional<model::LabelSelector>& s, const model::Labels& labels) {
  return !s || s->matches(labels);
}

// Renders the members of one table, each into its own AssetRefs; members
// with errors are left out and reported.
template <class T, class Render>
void render_table(const model::Inventory& inv, const model::Table<T>& table, const char* kind, Render render,
                  Value& jobs, std::vector<std::string>& problems) {
  for (const auto& [key, entry] : table) {
    if (!entry.valid) continue;  // decode problems were reported by the inventory
    model::AssetRefs scratch(inv);
    Value out = render(entry.obj, scratch);
    if (!scratch.errors.empty()) {
      for (const auto& e : scratch.errors)
        problems.push_back(std::string(kind) + " " + key.first + "/" + key.second + ": " + e.path + ": " + e.message);
      continue;
    }
    if (!out.is_array())
      jobs.push(std::move(out));
    else
      for (auto& job : out.as_array()) jobs.push(std::move(job));
  }
}

// Whether a Secret or ConfigMap event changes nothing a monitor can read
// (e.g. a relist or a metadata-only update).
bool same_asset_data(const Value& a, const Value& b) {
  for (const char* field : {"data", "stringData", "binaryData"}) {
    const Value *x = a.find(field), *y = b.find(field);
    if ((x == nullptr) != (y == nullptr) || (x && !(*x == *y))) return false;
  }
  return true;
}

}  // namespace

bool PrometheusCrConfig::needs_namespaces() const {
  return service_monitor_namespace_selector || pod_monitor_namespace_selector || probe_namespace_selector;
}

PrometheusCrConfig parse_prometheus_cr(const model::Value* block, const std::string& field) {
  PrometheusCrConfig out;
  if (!block || block->is_null()) return out;
  if (!block->is_object()) throw DiscoveryError(field + ": must be an object");
  const Value* enabled = block->find("enabled");
  if (enabled && !enabled->is_null() && !enabled->is_bool())
    throw DiscoveryError(field + ".enabled: must be a boolean");
  out.enabled = enabled && enabled->is_bool() && enabled->as_bool();
  auto selector = [&](const char* key) { return parse_label_selector(block->find(key), field + "." + key); };
  out.service_monitor_selector = selector("service_monitor_selector");
  out.pod_monitor_selector = selector("pod_monitor_selector");
  out.probe_selector = selector("probe_selector");
  out.service_monitor_namespace_selector = selector("service_monitor_namespace_selector");
  out.pod_monitor_namespace_selector = selector("pod_monitor_namespace_selector");
  out.probe_namespace_selector = selector("probe_namespace_selector");
  if (const Value* interval = block->find("scrape_interval"); interval && !interval->is_null()) {
    if (!interval->is_string() || !model::scrape::parse_duration(interval->as_string()))
      throw DiscoveryError(field + ".scrape_interval: must be a duration such as 30s");
    out.scrape_interval = interval->as_string();
  }
  return out;
}

bool PrometheusCrIndex::apply(const std::string& kind, Change change, const ObjectPtr& object) {
  if (kind == "Namespace") {
    const std::string name = model::string_at(*object, {"metadata", "name"});
    if (change == Change::deleted)
      namespace_labels_.erase(name);
    else
      namespace_labels_[name] = model::object_labels(*object);
    return config_.needs_namespaces();
  }
  const bool asset = kind == "Secret" || kind == "ConfigMap";
  if (!asset && kind != "ServiceMonitor" && kind != "PodMonitor" && kind != "Probe") return false;
  auto& table = objects_[kind];
  const std::string key = model::namespaced_name(*object);
  auto it = table.find(key);
  if (change == Change::deleted) {
    if (it == table.end()) return false;
    table.erase(it);
    return !asset || has_monitors(model::string_at(*object, {"metadata", "namespace"}));
  }
  const bool same_data = asset && it != table.end() && same_asset_data(*it->second, *object);
  table[key] = object;
  return !asset || (!same_data && has_monitors(model::string_at(*object, {"metadata", "namespace"})));
}

// Monitors only reference Secrets and ConfigMaps of their own namespace.
bool PrometheusCrIndex::has_monitors(const std::string& ns) const {
  const std::string prefix = ns + "/";
  for (const char* kind : {"ServiceMonitor", "PodMonitor", "Probe"}) {
    auto table = objects_.find(kind);
    if (table == objects_.end()) continue;
    auto it = table->second.lower_bound(prefix);
    if (it != table->second.end() && it->first.starts_with(prefix)) return true;
  }
  return false;
}

bool PrometheusCrIndex::selected(const std::string& kind, const model::Value& object) const {
  const auto& c = config_;
  const bool sm = kind == "ServiceMonitor", pm = kind == "PodMonitor";
  const auto& selector = sm ? c.service_monitor_selector : pm ? c.pod_monitor_selector : c.probe_selector;
  const auto& ns_selector = sm   ? c.service_monitor_namespace_selector
                            : pm ? c.pod_monitor_namespace_selector
                                 : c.probe_namespace_selector;
  if (!matches(selector, model::object_labels(object))) return false;
  if (!ns_selector) return true;
  auto ns = namespace_labels_.find(model::string_at(object, {"metadata", "namespace"}));
  return ns != namespace_labels_.end() && ns_selector->matches(ns->second);
}

model::Value PrometheusCrIndex::jobs(std::vector<std::string>& problems) const {
  model::Inventory inv;
  std::set<std::string> namespaces;  // of the selected monitors
  for (const char* kind : {"ServiceMonitor", "PodMonitor", "Probe"}) {
    auto table = objects_.find(kind);
    if (table == objects_.end()) continue;
    for (const auto& [key, object] : table->second)
      if (selected(kind, *object)) {
        inv.add(*object, std::string(kind) + " " + key);
        namespaces.insert(model::string_at(*object, {"metadata", "namespace"}));
      }
  }
  // Only the Secrets and ConfigMaps a selected monitor could reference are
  // decoded; their problems name the object and field, never a value.
  for (const char* kind : {"Secret", "ConfigMap"}) {
    auto table = objects_.find(kind);
    if (table == objects_.end()) continue;
    for (const auto& [key, object] : table->second)
      if (namespaces.count(model::string_at(*object, {"metadata", "namespace"})))
        inv.add(*object, std::string(kind) + " " + key);
  }
  for (const auto& p : inv.problems()) problems.push_back(p.str());
  model::GrafanaAgent agent;  // no apiServer, no enforced limits or labels
  agent.metrics.scrape_interval = config_.scrape_interval;
  model::RenderOptions options;
  options.inline_tls = true;  // collectors have no operator secrets volume
  const Value sd_fields = Value::object();
  const model::scrape::JobContext ctx{agent, options, 1, sd_fields};
  Value jobs = Value::array();
  render_table(
      inv, inv.service_monitors, "ServiceMonitor",
      [&](const auto& sm, model::AssetRefs& a) { return model::scrape::service_monitor_jobs(ctx, sm, a); }, jobs,
      problems);
  render_table(
      inv, inv.pod_monitors, "PodMonitor",
      [&](const auto& pm, model::AssetRefs& a) { return model::scrape::pod_monitor_jobs(ctx, pm, a); }, jobs, problems);
  render_table(
      inv, inv.probes, "Probe", [&](const auto& p, model::AssetRefs& a) { return model::scrape::probe_job(ctx, p, a); },
      jobs, problems);
  // Upstream's scrape_interval is the default for monitors that set none;
  // collectors get no global block from the allocator, so it goes per job.
  if (!config_.scrape_interval.empty())
    for (auto& job : jobs.as_array())
      if (!job.find("scrape_interval")) job.set("scrape_interval", config_.scrape_interval);
  return jobs;
}

}  // namespace allocation::discovery
