// HTTP SD response checks and parsing.
#include "allocation/discovery/http_sd.hpp"

#include <algorithm>

#include "allocation/discovery/meta.hpp"
#include "model/parse.hpp"
#include "model/scrape/common.hpp"

namespace allocation::discovery {

namespace {

using model::Value;

[[noreturn]] void fail(const std::string& field, const std::string& problem) {
  throw DiscoveryError(field + ": " + problem);
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

TargetGroup parse_group(const Value& item, const std::string& field, const std::string& url) {
  if (!item.is_object()) fail(field, item.is_null() ? "nil target group item found" : "must be an object");
  LabelMap labels;
  if (const Value* l = item.find("labels"); l && !l->is_null()) {
    if (!l->is_object()) fail(field + ".labels", "must be a map of strings");
    for (const auto& [k, v] : l->as_object()) {
      if (!valid_label_name(k)) fail(field + ".labels", "\"" + k + "\" is not a valid label name");
      if (!v.is_string()) fail(field + ".labels." + k, "must be a string");
      labels[k] = v.as_string();
    }
  }
  labels["__meta_url"] = url;
  std::vector<LabelMap> targets;
  if (const Value* t = item.find("targets"); t && !t->is_null()) {
    if (!t->is_array()) fail(field + ".targets", "must be a list of strings");
    for (std::size_t i = 0; i < t->as_array().size(); ++i) {
      const Value& address = t->as_array()[i];
      if (!address.is_string()) fail(field + ".targets[" + std::to_string(i) + "]", "must be a string");
      targets.push_back({{"__address__", address.as_string()}});
    }
  }
  TargetGroup group;
  group.labels = to_label_set(labels);
  for (const auto& target : targets) group.targets.push_back(to_label_set(target));
  return group;
}

void check_url(const std::string& url, const std::string& field) {
  if (url.empty()) fail(field, "URL is missing");
  const auto colon = url.find("://");
  const std::string scheme = colon == std::string::npos ? "" : lower(url.substr(0, colon));
  if (scheme != "http" && scheme != "https") fail(field, "URL scheme must be 'http' or 'https'");
  const std::string rest = url.substr(colon + 3);
  const auto end = rest.find_first_of("/?#");
  std::string host = rest.substr(0, end);
  if (auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
  if (host.empty() || host.front() == ':') fail(field, "host is missing in URL");
}

}  // namespace

HttpSdConfig parse_http_sd_config(const Value& config, const std::string& field) {
  if (!config.is_object()) fail(field, "must be an object");
  HttpSdConfig out;
  for (const auto& [key, value] : config.as_object()) {
    if (key == "url") {
      if (!value.is_string()) fail(field + ".url", "must be a string");
      out.url = value.as_string();
    } else if (key == "refresh_interval") {
      auto ms = value.is_string() ? model::scrape::parse_duration(value.as_string()) : std::nullopt;
      if (!ms || *ms <= 0) fail(field + ".refresh_interval", "must be a positive duration such as 30s");
      out.refresh_interval = std::chrono::milliseconds(*ms);
    } else {
      fail(field + "." + key, "not supported yet (http_sd_configs take url and refresh_interval)");
    }
  }
  check_url(out.url, field + ".url");
  return out;
}

void check_http_sd_response(int status, std::string_view content_type) {
  if (status != 200) fail("status", "server returned HTTP status " + std::to_string(status));
  // Prometheus's pattern: application/json(;\s*charset=("utf-8"|utf-8))?, case-insensitive.
  std::string_view rest = trim(content_type);
  const std::string type = lower(rest);
  rest = type;
  if (rest.starts_with("application/json")) {
    rest.remove_prefix(16);
    if (rest.empty()) return;
    if (rest.front() == ';') {
      rest.remove_prefix(1);
      while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) rest.remove_prefix(1);
      if (rest == "charset=utf-8" || rest == "charset=\"utf-8\"") return;
    }
  }
  fail("Content-Type", "unsupported content type \"" + std::string(content_type) + "\"");
}

std::vector<SourcedGroup> parse_http_sd(std::string_view body, const std::string& url) {
  Value doc;
  try {
    doc = model::parse_json(body, url);
  } catch (const model::ParseError& e) {
    fail("body", std::string("invalid JSON: ") + e.what());
  }
  if (!doc.is_array()) fail("body", "must be a JSON array of target groups");
  std::vector<SourcedGroup> out;
  for (std::size_t i = 0; i < doc.as_array().size(); ++i) {
    const std::string field = "[" + std::to_string(i) + "]";
    out.push_back({url + ":" + std::to_string(i), parse_group(doc.as_array()[i], field, url)});
  }
  return out;
}

}  // namespace allocation::discovery
