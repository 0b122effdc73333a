// Prometheus CR discovery: the monitor index, selection and rendering
// (prometheus_cr_config.cpp reads the config block).
#include "allocation/discovery/prometheus_cr.hpp"

#include <algorithm>
#include <array>
#include <set>

#include "allocation/discovery/meta.hpp"
#include "model/assets.hpp"
#include "model/inventory.hpp"
#include "model/scrape/jobs.hpp"
#include "model/scrape_config.hpp"

namespace allocation::discovery {

namespace {

using model::Value;

constexpr std::array<const char*, 4> kMonitorKinds = {"ServiceMonitor", "PodMonitor", "Probe", "ScrapeConfig"};

bool is_monitor_kind(const std::string& kind) {
  return std::find(kMonitorKinds.begin(), kMonitorKinds.end(), kind) != kMonitorKinds.end();
}

// Absent selectors select everything (upstream's allocator defaults them to
// empty selectors, unlike prometheus-operator's nil = nothing).
bool matches(const std::optional<model::LabelSelector>& s, const model::Labels& labels) {
  return !s || s->matches(labels);
}

template <class T>
const T& stored_object(const model::Entry<T>& e) {
  return e.obj;
}

// The collector's inventory is eager: every member is decoded.
template <class T>
const T& stored_object(const model::Member<T>& m) {
  return *m.decoded;
}

// Renders the members of one table, each into its own AssetRefs; members
// with errors are left out and reported.
template <class Table, class Render>
void render_table(const model::Inventory& inv, const Table& table, const char* kind, Render render, Value& jobs,
                  std::vector<std::string>& problems) {
  for (const auto& [key, entry] : table) {
    if (!entry.valid) continue;  // decode problems were reported by the inventory
    model::AssetRefs scratch(inv);
    Value out = render(stored_object(entry), scratch);
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

// Only the Secrets and ConfigMaps a selected monitor could reference are
// decoded; their problems name the object and field, never a value.
void add_assets(const std::map<std::string, std::map<std::string, ObjectPtr>>& objects,
                const std::set<std::string>& namespaces, model::Inventory& inv) {
  for (const char* kind : {"Secret", "ConfigMap"}) {
    auto table = objects.find(kind);
    if (table == objects.end()) continue;
    for (const auto& [key, object] : table->second)
      if (namespaces.count(model::string_at(*object, {"metadata", "namespace"})))
        inv.add(*object, std::string(kind) + " " + key);
  }
}

// ScrapeConfigs are decoded here, not by model::Inventory: the operator's
// inventory (and `agent-operator render`) does not read the kind, and an
// invalid one must not become an operator problem.
model::Table<model::ScrapeConfig> decode_scrape_configs(const std::vector<ObjectPtr>& objects,
                                                        std::vector<std::string>& problems) {
  model::Table<model::ScrapeConfig> out;
  for (const auto& object : objects) {
    model::FieldErrors errors;
    model::ScrapeConfig sc = model::decode_scrape_config(*object, errors);
    for (const auto& e : errors)
      problems.push_back(model::Problem{"ScrapeConfig", sc.meta.ns, sc.meta.name, e.path, e.message}.str());
    model::Key key{sc.meta.ns, sc.meta.name};
    out[key] = model::Entry<model::ScrapeConfig>{std::move(sc), errors.empty()};
  }
  return out;
}

// Every kind in turn, as prometheus-operator's Prometheus renders them
// (JobContext::prom_operator), for collectors that have no operator files.
Value render_jobs(const PrometheusCrConfig& config, const model::Inventory& inv,
                  const model::Table<model::ScrapeConfig>& scs, std::vector<std::string>& problems) {
  namespace scrape = model::scrape;
  model::GrafanaAgent agent;  // no apiServer, no enforced limits or labels
  agent.metrics.scrape_interval = config.scrape_interval;
  agent.metrics.deny_fs_access_through_sms = config.deny_fs_access_through_sms;
  model::RenderOptions options;
  options.inline_tls = true;  // collectors have no operator secrets volume
  const Value sd_fields = Value::object();
  const scrape::PromOperatorSettings settings{config.scrape_classes, "prometheus_cr.deny_fs_access_through_sms"};
  const scrape::JobContext ctx{agent, options, 1, sd_fields, &settings};
  Value jobs = Value::array();
  render_table(
      inv, inv.service_monitors, "ServiceMonitor",
      [&](const auto& sm, model::AssetRefs& a) { return scrape::service_monitor_jobs(ctx, sm, a); }, jobs, problems);
  render_table(
      inv, inv.pod_monitors, "PodMonitor",
      [&](const auto& pm, model::AssetRefs& a) { return scrape::pod_monitor_jobs(ctx, pm, a); }, jobs, problems);
  render_table(
      inv, inv.probes, "Probe", [&](const auto& p, model::AssetRefs& a) { return scrape::probe_job(ctx, p, a); }, jobs,
      problems);
  render_table(
      inv, scs, "ScrapeConfig",
      [&](const auto& sc, model::AssetRefs& a) { return scrape::scrape_config_job(ctx, sc, a); }, jobs, problems);
  return jobs;
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
  if (!asset && !is_monitor_kind(kind)) return false;
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
  for (const char* kind : kMonitorKinds) {
    auto table = objects_.find(kind);
    if (table == objects_.end()) continue;
    auto it = table->second.lower_bound(prefix);
    if (it != table->second.end() && it->first.starts_with(prefix)) return true;
  }
  return false;
}

bool PrometheusCrIndex::selected(const std::string& kind, const model::Value& object) const {
  const auto& c = config_;
  const std::string ns = model::string_at(object, {"metadata", "namespace"});
  if (!c.namespace_allowed(ns)) return false;
  const bool sm = kind == "ServiceMonitor", pm = kind == "PodMonitor", probe = kind == "Probe";
  const auto& selector = sm      ? c.service_monitor_selector
                         : pm    ? c.pod_monitor_selector
                         : probe ? c.probe_selector
                                 : c.scrape_config_selector;
  const auto& ns_selector = sm      ? c.service_monitor_namespace_selector
                            : pm    ? c.pod_monitor_namespace_selector
                            : probe ? c.probe_namespace_selector
                                    : c.scrape_config_namespace_selector;
  if (!matches(selector, model::object_labels(object))) return false;
  if (!ns_selector) return true;
  auto labels = namespace_labels_.find(ns);
  return labels != namespace_labels_.end() && ns_selector->matches(labels->second);
}

model::Value PrometheusCrIndex::jobs(std::vector<std::string>& problems) const {
  model::Inventory inv;
  std::vector<ObjectPtr> scrape_configs;
  std::set<std::string> namespaces;  // of the selected monitors
  for (const char* kind : kMonitorKinds) {
    auto table = objects_.find(kind);
    if (table == objects_.end()) continue;
    for (const auto& [key, object] : table->second) {
      if (!selected(kind, *object)) continue;
      if (std::string_view(kind) == "ScrapeConfig")
        scrape_configs.push_back(object);
      else
        inv.add(*object, std::string(kind) + " " + key);
      namespaces.insert(model::string_at(*object, {"metadata", "namespace"}));
    }
  }
  add_assets(objects_, namespaces, inv);
  for (const auto& p : inv.problems()) problems.push_back(p.str());
  const auto scs = decode_scrape_configs(scrape_configs, problems);
  Value jobs = render_jobs(config_, inv, scs, problems);
  // Upstream's scrape_interval is the default for monitors that set none;
  // collectors get no global block from the allocator, so it goes per job.
  if (!config_.scrape_interval.empty())
    for (auto& job : jobs.as_array())
      if (!job.find("scrape_interval")) job.set("scrape_interval", config_.scrape_interval);
  return jobs;
}

}  // namespace allocation::discovery
