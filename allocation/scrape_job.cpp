// Reading a scrape job's seeded labels and name scheme with Prometheus's
// defaults.
#include "allocation/scrape_job.hpp"

#include <algorithm>

#include "model/scrape/common.hpp"

namespace allocation {
namespace {

[[noreturn]] void fail_relabel(const std::string& field, const std::string& problem) {
  throw RelabelError(field + ": " + problem);
}

std::string text_field(const model::Value& obj, std::string_view key, const std::string& path, std::string fallback) {
  const model::Value* v = obj.is_object() ? obj.find(key) : nullptr;
  if (!v || v->is_null()) return fallback;
  if (!v->is_string())
    fail_relabel(path + "." + std::string(key), std::string("expected string, got ") + v->type_name());
  return v->as_string();
}

// A duration field in milliseconds; nullopt when absent.
std::optional<std::int64_t> duration_field(const model::Value* obj, std::string_view key, const std::string& path) {
  if (!obj || !obj->is_object()) return std::nullopt;
  const std::string text = text_field(*obj, key, path, "");
  if (text.empty()) return std::nullopt;
  auto ms = model::scrape::parse_duration(text);
  if (!ms) fail_relabel(path + "." + std::string(key), "invalid duration \"" + text + "\"");
  return ms;
}

// Prometheus's interval and timeout rules: the job's own, else the
// global's; an unset job timeout is capped at the job's interval.
void read_timing(const model::Value& job, const model::Value* global, const std::string& path, ScrapeJob& out) {
  const std::int64_t global_interval = duration_field(global, "scrape_interval", "config.global").value_or(60000);
  const std::int64_t global_timeout = duration_field(global, "scrape_timeout", "config.global").value_or(10000);
  if (global_timeout > global_interval)
    fail_relabel("config.global.scrape_timeout", "global scrape timeout greater than scrape interval");
  const std::int64_t interval = duration_field(&job, "scrape_interval", path).value_or(global_interval);
  const auto own_timeout = duration_field(&job, "scrape_timeout", path);
  if (interval == 0) fail_relabel(path + ".scrape_interval", "scrape interval cannot be 0");
  if (own_timeout && *own_timeout > interval)
    fail_relabel(path + ".scrape_timeout", "scrape timeout greater than scrape interval");
  const std::int64_t timeout = own_timeout ? *own_timeout : std::min(global_timeout, interval);
  if (timeout == 0) fail_relabel(path + ".scrape_timeout", "scrape timeout cannot be 0");
  out.interval = model::scrape::format_duration(interval);
  out.timeout = model::scrape::format_duration(timeout);
}

// params: {name: [values]}; the first value of each is seeded.
void read_params(const model::Value& job, const std::string& path, std::vector<Label>& seeds) {
  const model::Value* params = job.find("params");
  if (!params || params->is_null()) return;
  if (!params->is_object()) fail_relabel(path + ".params", "expected a map of string lists");
  for (const auto& [name, values] : params->as_object()) {
    const std::string field = path + ".params." + name;
    if (!values.is_array()) fail_relabel(field, "expected a list of strings");
    for (const auto& v : values.as_array()) {
      if (!v.is_string()) fail_relabel(field, std::string("expected string, got ") + v.type_name());
    }
    if (!values.as_array().empty())
      seeds.push_back({Name::intern("__param_" + name), values.as_array()[0].as_string()});
  }
}

void set_seeds(ScrapeJob& out, std::vector<Label> seeds) {
  std::erase_if(seeds, [](const Label& l) { return l.value.empty(); });
  std::stable_sort(seeds.begin(), seeds.end(), [](const Label& a, const Label& b) { return a.name < b.name; });
  auto storage = std::make_shared<const std::vector<Label>>(std::move(seeds));
  out.seeds.clear();
  out.seed_fingerprint = 0;
  for (const auto& l : *storage) {
    out.seeds.push_back({l.name, l.value});
    out.seed_fingerprint += label_hash(l.name, l.value);
  }
  out.storage = std::move(storage);
}

std::vector<Label> base_seeds(const ScrapeJob& job, const std::string& scheme, const std::string& metrics_path) {
  return {{Name::intern("job"), std::string(job.job.text())},
          {Name::intern("__scheme__"), scheme},
          {Name::intern("__metrics_path__"), metrics_path},
          {Name::intern("__scrape_interval__"), job.interval},
          {Name::intern("__scrape_timeout__"), job.timeout}};
}

}  // namespace

NameValidation read_name_validation(const model::Value* v, const std::string& field, NameValidation fallback) {
  if (!v || v->is_null()) return fallback;
  if (!v->is_string()) fail_relabel(field, std::string("expected string, got ") + v->type_name());
  const std::string& s = v->as_string();
  if (s.empty()) return fallback;
  if (s == "utf8") return NameValidation::utf8;
  if (s == "legacy") return NameValidation::legacy;
  fail_relabel(field, "unknown name validation scheme \"" + s + "\" (want utf8 or legacy)");
}

ScrapeJob read_scrape_job(const model::Value& job, const model::Value* global, const std::string& path) {
  if (!job.is_object()) fail_relabel(path, "expected object");
  ScrapeJob out;
  const std::string name = text_field(job, "job_name", path, "");
  if (name.empty()) fail_relabel(path + ".job_name", "is required");
  out.job = Name::intern(name);
  const NameValidation global_scheme =
      read_name_validation(global && global->is_object() ? global->find("metric_name_validation_scheme") : nullptr,
                           "config.global.metric_name_validation_scheme", NameValidation::utf8);
  out.validation = read_name_validation(job.find("metric_name_validation_scheme"),
                                        path + ".metric_name_validation_scheme", global_scheme);
  read_timing(job, global, path, out);
  const std::string scheme = text_field(job, "scheme", path, "http");
  if (scheme != "http" && scheme != "https")
    fail_relabel(path + ".scheme", "must be http or https, not \"" + scheme + "\"");
  auto seeds = base_seeds(out, scheme, text_field(job, "metrics_path", path, "/metrics"));
  read_params(job, path, seeds);
  set_seeds(out, std::move(seeds));
  if (const model::Value* rules = job.find("relabel_configs"))
    out.relabel_configs = parse_relabel_configs(*rules, path + ".relabel_configs", out.validation);
  return out;
}

ScrapeJob default_scrape_job(Name job, std::vector<RelabelConfig> rules) {
  ScrapeJob out;
  out.job = job;
  out.relabel_configs = std::move(rules);
  set_seeds(out, base_seeds(out, "http", "/metrics"));
  return out;
}

}  // namespace allocation
