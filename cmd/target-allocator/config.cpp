// load_config: reads the config file and the static_configs targets.
#include "config.hpp"

#include "model/parse.hpp"

namespace target_allocator {

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

allocation::TargetGroup static_group(const Value& sc, const std::string& field) {
  if (!sc.is_object()) fail(field, "must be an object");
  allocation::TargetGroup group;
  std::vector<allocation::Label> labels;
  if (const Value* l = sc.find("labels"); l && !l->is_null()) {
    if (!l->is_object()) fail(field + ".labels", "must be a map of strings");
    for (const auto& [k, v] : l->as_object()) {
      if (!allocation::valid_label_name(k)) fail(field + ".labels." + k, "invalid label name");
      if (!v.is_string()) fail(field + ".labels." + k, "must be a string");
      labels.push_back({allocation::Name::intern(k), v.as_string()});
    }
  }
  group.labels = std::make_shared<const allocation::LabelSet>(std::move(labels));
  for (const auto& address : string_list(sc.find("targets"), field + ".targets"))
    group.targets.push_back(std::make_shared<const allocation::LabelSet>(
        std::vector<allocation::Label>{{allocation::Names::get().address, address}}));
  return group;
}

void read_job(const Value& job, const std::string& field, Config& out) {
  if (!job.is_object()) fail(field, "must be an object");
  const std::string name = string_field(job, "job_name");
  if (name.empty()) fail(field + ".job_name", "is required");
  std::vector<allocation::TargetGroup> groups;
  for (const auto& [key, value] : job.as_object()) {
    if (key == "static_configs") {
      if (!value.is_array()) fail(field + ".static_configs", "must be a list");
      for (std::size_t i = 0; i < value.as_array().size(); ++i)
        groups.push_back(static_group(value.as_array()[i], field + ".static_configs[" + std::to_string(i) + "]"));
    } else if (key.ends_with("_sd_configs")) {
      fail(field + "." + key, "not supported yet (only static_configs)");
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
  for (std::size_t i = 0; i < jobs->as_array().size(); ++i)
    read_job(jobs->as_array()[i], "config.scrape_configs[" + std::to_string(i) + "]", out);
}

}  // namespace

Config load_config(std::string_view text, std::string_view source) {
  auto docs = model::parse_documents(text, source);
  if (docs.size() != 1 || !docs[0].value.is_object()) fail(std::string(source), "must hold one YAML object");
  const Value& doc = docs[0].value;
  Config out;
  if (auto s = string_field(doc, "allocation_strategy"); !s.empty()) out.strategy.name = s;
  out.filter_strategy = string_field(doc, "filter_strategy");
  if (!out.filter_strategy.empty() && out.filter_strategy != "relabel-config")
    fail("filter_strategy", "unknown strategy \"" + out.filter_strategy + "\" (want relabel-config or empty)");
  out.collectors = string_list(doc.find("collectors"), "collectors");
  read_prometheus(doc.find("config"), out);
  return out;
}

}  // namespace target_allocator
