// http_sd_configs: the config entry, and one HTTP SD response turned into
// target groups (the body grammar and the response checks are
// model/http_sd.hpp's, shared with the integrations SD aggregator). Each
// group gets `__meta_url` = the URL and the source "<url>:<index>".
// Contract: pure. The response checks and parse throw DiscoveryError naming the offending field relative
// to the body ("[1].labels.foo: must be a string"); unknown keys in a group
// are ignored, as Go's JSON decoder does.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "allocation/discovery/kubernetes_config.hpp"
#include "allocation/discovery/kubernetes_roles.hpp"
#include "model/http_sd.hpp"

namespace allocation::discovery {

struct HttpSdConfig {
  std::string url;
  std::chrono::milliseconds refresh_interval{60'000};
};

// One http_sd_configs entry: `url` (http or https, with a host) and
// `refresh_interval` (a Prometheus duration, default 60s). HTTP client
// settings (auth, TLS, proxy) are errors ("not supported yet").
HttpSdConfig parse_http_sd_config(const model::Value& config, const std::string& field);

// A `refresh_interval` (http_sd, file_sd): a positive Prometheus duration;
// the error at `field` suggests `example`.
std::chrono::milliseconds parse_refresh_interval(const model::Value& value, const std::string& field,
                                                 const char* example);

// Throws unless `status` is 200 and `content_type` is application/json
// (optionally with charset utf-8).
void check_http_sd_response(int status, std::string_view content_type);
std::vector<SourcedGroup> parse_http_sd(std::string_view body, const std::string& url);
// Groups of the http_sd grammar as target groups: each gets `meta` =
// `origin` (__meta_url, __meta_filepath) and the source "<origin>:<index>".
std::vector<SourcedGroup> sourced_groups(std::vector<model::HttpSdGroup> groups, const char* meta,
                                         const std::string& origin);

}  // namespace allocation::discovery
