// file_sd_configs entries and file contents.
#include "allocation/discovery/file_sd.hpp"

#include "allocation/discovery/http_sd.hpp"
#include "model/http_sd.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace allocation::discovery {

namespace {

using model::Value;

void check_pattern(const std::string& pattern, const std::string& field) {
  if (pattern.empty()) fail_field(field, "must be a non-empty path");
  if (!pattern.ends_with(".json") && !pattern.ends_with(".yml") && !pattern.ends_with(".yaml"))
    fail_field(field, "\"" + pattern + "\" must end in .json, .yml or .yaml");
  const auto last_slash = pattern.rfind('/');
  const auto wildcard = pattern.find_first_of("*?[");
  if (wildcard != std::string::npos && last_slash != std::string::npos && wildcard < last_slash)
    fail_field(field, "\"" + pattern + "\": only the last path element may hold a wildcard");
}

}  // namespace

FileSdConfig parse_file_sd_config(const Value& config, const std::string& field) {
  if (!config.is_object()) fail_field(field, "must be an object");
  FileSdConfig out;
  for (const auto& [key, value] : config.as_object()) {
    if (key == "files") {
      if (!value.is_array()) fail_field(field + ".files", "must be a list of paths");
      for (std::size_t i = 0; i < value.as_array().size(); ++i) {
        const std::string item = field + ".files[" + std::to_string(i) + "]";
        const Value& v = value.as_array()[i];
        if (!v.is_string()) fail_field(item, "must be a string");
        check_pattern(v.as_string(), item);
        out.files.push_back(v.as_string());
      }
    } else if (key == "refresh_interval") {
      out.refresh_interval = parse_refresh_interval(value, field + ".refresh_interval", "5m");
    } else {
      fail_field(field + "." + key, "unknown field (file_sd_configs take files and refresh_interval)");
    }
  }
  if (out.files.empty()) fail_field(field + ".files", "must list at least one file");
  return out;
}

std::vector<SourcedGroup> parse_file_sd(std::string_view text, const std::string& path) {
  std::vector<model::HttpSdGroup> groups;
  try {
    if (path.ends_with(".json")) {
      groups = model::parse_http_sd(text, path);
    } else {
      auto docs = model::parse_documents(text, path);
      if (docs.size() > 1) fail_field(path, "must hold one YAML document");
      // An empty YAML file is an empty list, as Prometheus reads it.
      const std::string json = docs.empty() || docs[0].value.is_null() ? "[]" : model::to_json(docs[0].value);
      groups = model::parse_http_sd(json, path);
    }
  } catch (const model::HttpSdError& e) {
    // The http_sd grammar names the body and the source; a file is its path.
    std::string what = e.what();
    if (const std::string body = "body: invalid JSON: " + path + ": "; what.starts_with(body))
      what = "invalid JSON: " + what.substr(body.size());
    throw DiscoveryError(path + ": " + what);
  } catch (const model::ParseError& e) {
    throw DiscoveryError(e.what());
  }
  return sourced_groups(std::move(groups), "__meta_filepath", path);
}

}  // namespace allocation::discovery
