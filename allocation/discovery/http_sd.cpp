// HTTP SD response checks and parsing.
#include "allocation/discovery/http_sd.hpp"

#include <algorithm>

#include "allocation/discovery/meta.hpp"
#include "model/http_sd.hpp"
#include "model/scrape/common.hpp"
#include "model/text.hpp"

namespace allocation::discovery {

namespace {

using model::Value;

void check_url(const std::string& url, const std::string& field) {
  if (url.empty()) fail_field(field, "URL is missing");
  const auto colon = url.find("://");
  const std::string scheme = colon == std::string::npos ? "" : model::ascii_lower(url.substr(0, colon));
  if (scheme != "http" && scheme != "https") fail_field(field, "URL scheme must be 'http' or 'https'");
  const std::string rest = url.substr(colon + 3);
  const auto end = rest.find_first_of("/?#");
  std::string host = rest.substr(0, end);
  if (auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
  if (host.empty() || host.front() == ':') fail_field(field, "host is missing in URL");
}

}  // namespace

std::chrono::milliseconds parse_refresh_interval(const Value& value, const std::string& field, const char* example) {
  auto ms = value.is_string() ? model::scrape::parse_duration(value.as_string()) : std::nullopt;
  if (!ms || *ms <= 0) fail_field(field, std::string("must be a positive duration such as ") + example);
  return std::chrono::milliseconds(*ms);
}

HttpSdConfig parse_http_sd_config(const Value& config, const std::string& field) {
  if (!config.is_object()) fail_field(field, "must be an object");
  HttpSdConfig out;
  for (const auto& [key, value] : config.as_object()) {
    if (key == "url") {
      if (!value.is_string()) fail_field(field + ".url", "must be a string");
      out.url = value.as_string();
    } else if (key == "refresh_interval") {
      out.refresh_interval = parse_refresh_interval(value, field + ".refresh_interval", "30s");
    } else {
      fail_field(field + "." + key, "not supported yet (http_sd_configs take url and refresh_interval)");
    }
  }
  check_url(out.url, field + ".url");
  return out;
}

void check_http_sd_response(int status, std::string_view content_type) {
  try {
    model::check_http_sd_response(status, content_type);
  } catch (const model::HttpSdError& e) {
    throw DiscoveryError(e.what());
  }
}

std::vector<SourcedGroup> parse_http_sd(std::string_view body, const std::string& url) {
  try {
    return sourced_groups(model::parse_http_sd(body, url), "__meta_url", url);
  } catch (const model::HttpSdError& e) {
    throw DiscoveryError(e.what());
  }
}

std::vector<SourcedGroup> sourced_groups(std::vector<model::HttpSdGroup> groups, const char* meta,
                                         const std::string& origin) {
  std::vector<SourcedGroup> out;
  out.reserve(groups.size());
  for (std::size_t i = 0; i < groups.size(); ++i) {
    LabelMap labels = std::move(groups[i].labels);
    labels[meta] = origin;
    TargetGroup group;
    group.labels = to_label_set(labels);
    for (const std::string& address : groups[i].targets)
      group.targets.push_back(to_label_set({{"__address__", address}}));
    out.push_back({origin + ":" + std::to_string(i), std::move(group)});
  }
  return out;
}

}  // namespace allocation::discovery
