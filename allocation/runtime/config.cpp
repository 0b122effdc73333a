// load_config: reads the config file and the static_configs targets.
#include "allocation/runtime/config.hpp"

#include <map>

#include "allocation/relabel.hpp"
#include "allocation/scrape_job.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace allocation::runtime {

namespace {

using model::Value;

[[noreturn]] void fail(const std::string& field, const std::string& problem) {
  throw ConfigError(field + ": " + problem);
}

std::string string_field(const Value& doc, std::string_view key) {
  const Value* v = doc.find(key);
  if (!v || v->is_null()) return "";
  if (!v->is_string()) fail(std::string(key), "must be a string");
  return v->as_string();
}

bool bool_field(const Value& doc, std::string_view key) {
  const Value* v = doc.find(key);
  if (!v || v->is_null()) return false;
  if (!v->is_bool()) fail(std::string(key), "must be true or false");
  return v->as_bool();
}

std::vector<std::string> string_list(const Value* v, const std::string& field) {
  std::vector<std::string> out;
  if (!v || v->is_null()) return out;
  if (!v->is_array()) fail(field, "must be a list of strings");
  for (std::size_t i = 0; i < v->as_array().size(); ++i) {
    const Value& item = v->as_array()[i];
    if (!item.is_string() || item.as_string().empty())
      fail(field + "[" + std::to_string(i) + "]", "must be a non-empty string");
    out.push_back(item.as_string());
  }
  return out;
}

// `relabeled`: the job has relabel_configs, which may move a static target
// elsewhere (a Probe's URLs become __param_target), so Prometheus checks
// the address only after relabeling, as allocation/scrape_target.cpp does.
allocation::TargetGroup static_group(const Value& sc, const std::string& field, allocation::NameValidation scheme,
                                     bool relabeled) {
  if (!sc.is_object()) fail(field, "must be an object");
  allocation::TargetGroup group;
  std::vector<allocation::Label> labels;
  if (const Value* l = sc.find("labels"); l && !l->is_null()) {
    if (!l->is_object()) fail(field + ".labels", "must be a map of strings");
    for (const auto& [k, v] : l->as_object()) {
      if (!allocation::valid_label_name(k, scheme)) fail(field + ".labels." + k, "invalid label name");
      if (!v.is_string()) fail(field + ".labels." + k, "must be a string");
      labels.push_back({allocation::Name::intern(k), v.as_string()});
    }
  }
  group.labels = allocation::share_label_set(allocation::LabelSet(std::move(labels)));
  for (const auto& address : string_list(sc.find("targets"), field + ".targets")) {
    // Prometheus refuses a config whose static target holds a path unless
    // the job relabels (ScrapeConfig.Validate's checkStaticTargets).
    if (!relabeled && address.find('/') != std::string::npos)
      fail(field + ".targets", "\"" + address + "\" is not a valid hostname");
    group.targets.push_back(allocation::share_label_set(
        allocation::LabelSet(std::vector<allocation::Label>{{allocation::Names::get().address, address}})));
  }
  return group;
}

// Parses each entry of an *_sd_configs list; discovery errors already name
// the field.
template <class Jobs, class Parse>
void read_sd_list(const Value& list, const std::string& field, const std::string& job, Jobs& out, Parse parse) {
  if (list.is_null()) return;
  for (std::size_t i = 0; i < list.as_array().size(); ++i) {
    const std::string item = field + "[" + std::to_string(i) + "]";
    try {
      out.push_back({job, item, parse(list.as_array()[i], item), model::to_json(list.as_array()[i])});
    } catch (const allocation::discovery::DiscoveryError& e) {
      throw ConfigError(e.what());
    }
  }
}

// The job's seeded labels, name scheme and relabel_configs, as the
// allocator's filter reads them, so a bad job fails here naming its field.
allocation::ScrapeJob check_scrape_job(const Value& job, const Value* global, const std::string& field) {
  try {
    auto scrape = allocation::read_scrape_job(job, global, field);
    allocation::Relabeler compiled(scrape.relabel_configs, field + ".relabel_configs");
    if (const Value* metric = job.find("metric_relabel_configs"); metric && !metric->is_null()) {
      const std::string path = field + ".metric_relabel_configs";
      allocation::Relabeler check(allocation::parse_relabel_configs(*metric, path, scrape.validation), path);
    }
    return scrape;
  } catch (const allocation::RelabelError& e) {
    throw ConfigError(e.what());
  }
}

void read_job(const Value& job, const Value* global, const std::string& field, Config& out) {
  if (!job.is_object()) fail(field, "must be an object");
  const std::string name = string_field(job, "job_name");
  if (name.empty()) fail(field + ".job_name", "is required");
  // Validated whatever the filter strategy: collectors would reject the
  // config we pass them, and lose every job with it.
  const allocation::ScrapeJob scrape = check_scrape_job(job, global, field);
  std::vector<allocation::TargetGroup> groups;
  for (const auto& [key, value] : job.as_object()) {
    if (key == "static_configs") {
      if (!value.is_array()) fail(field + ".static_configs", "must be a list");
      for (std::size_t i = 0; i < value.as_array().size(); ++i)
        groups.push_back(static_group(value.as_array()[i], field + ".static_configs[" + std::to_string(i) + "]",
                                      scrape.validation, !scrape.relabel_configs.empty()));
    } else if (key == "kubernetes_sd_configs") {
      if (!value.is_null() && !value.is_array()) fail(field + "." + key, "must be a list");
      out.kubernetes_fields.push_back(field + "." + key);
      read_sd_list(value, field + "." + key, name, out.kubernetes_sd, [](const Value& v, const std::string& f) {
        return allocation::discovery::parse_kubernetes_sd_config(v, f);
      });
    } else if (key == "http_sd_configs") {
      if (!value.is_null() && !value.is_array()) fail(field + "." + key, "must be a list");
      read_sd_list(value, field + "." + key, name, out.http_sd, allocation::discovery::parse_http_sd_config);
    } else if (key == "file_sd_configs") {
      if (!value.is_null() && !value.is_array()) fail(field + "." + key, "must be a list");
      read_sd_list(value, field + "." + key, name, out.file_sd, allocation::discovery::parse_file_sd_config);
    } else if (key.view().ends_with("_sd_configs")) {
      fail(field + "." + key,
           "not supported yet (only static_configs, file_sd_configs, http_sd_configs and kubernetes_sd_configs)");
    }
  }
  allocation::append_targets(allocation::Name::intern(name), groups, out.targets);
}

void read_prometheus(const Value* config, Config& out) {
  if (!config || config->is_null()) return;
  if (!config->is_object()) fail("config", "must be a Prometheus config (an object)");
  const Value* jobs = config->find("scrape_configs");
  if (!jobs || jobs->is_null()) return;
  if (!jobs->is_array()) fail("config.scrape_configs", "must be a list");
  out.scrape_configs = *jobs;
  if (const Value* global = config->find("global"); global && !global->is_null()) {
    if (!global->is_object()) fail("config.global", "must be an object");
    out.global = *global;
  }
  std::map<std::string, std::size_t> seen;  // job name -> first index
  for (std::size_t i = 0; i < jobs->as_array().size(); ++i) {
    const std::string field = "config.scrape_configs[" + std::to_string(i) + "]";
    read_job(jobs->as_array()[i], &out.global, field, out);
    auto [it, fresh] = seen.emplace(string_field(jobs->as_array()[i], "job_name"), i);
    if (!fresh)
      fail(field + ".job_name", "duplicate job name \"" + it->first + "\" (also config.scrape_configs[" +
                                    std::to_string(it->second) + "]); Prometheus refuses such a config");
  }
}

}  // namespace

void read_scrape_job(const Value& job, const std::string& field, Config& out) {
  read_job(job, &out.global, field, out);
}

Config load_config(std::string_view text, std::string_view source) {
  std::vector<model::Document> docs;
  try {
    docs = model::parse_documents(text, source);
  } catch (const model::ParseError& e) {
    throw ConfigError(e.what());  // "<source>:<line>: <what yaml-cpp saw>"
  }
  if (docs.size() != 1 || !docs[0].value.is_object()) fail(std::string(source), "must hold one YAML object");
  const Value& doc = docs[0].value;
  Config out;
  if (auto s = string_field(doc, "allocation_strategy"); !s.empty()) out.strategy.name = s;
  // Upstream's key (v0.113 on) for the targets per-node cannot place.
  out.strategy.fallback = string_field(doc, "allocation_fallback_strategy");
  out.strategy.fallback_for_nodes_without_collector =
      bool_field(doc, "allocation_fallback_for_nodes_without_collector");
  out.filter_strategy = string_field(doc, "filter_strategy");
  if (!out.filter_strategy.empty() && out.filter_strategy != "relabel-config")
    fail("filter_strategy", "unknown strategy \"" + out.filter_strategy + "\" (want relabel-config or empty)");
  out.collectors = string_list(doc.find("collectors"), "collectors");
  try {
    out.collector_selector =
        allocation::discovery::parse_label_selector(doc.find("collector_selector"), "collector_selector");
    out.prometheus_cr = allocation::discovery::parse_prometheus_cr(doc.find("prometheus_cr"), "prometheus_cr");
  } catch (const allocation::discovery::DiscoveryError& e) {
    throw ConfigError(e.what());
  }
  out.collector_namespace = string_field(doc, "collector_namespace");
  if (out.collector_selector) out.kubernetes_fields.push_back("collector_selector");
  if (out.prometheus_cr.enabled) out.kubernetes_fields.push_back("prometheus_cr.enabled");
  read_prometheus(doc.find("config"), out);
  return out;
}

}  // namespace allocation::runtime
