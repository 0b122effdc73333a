// file_sd_configs: the config entry, and one file's content turned into
// target groups, as Prometheus's file discovery reads them. Each group gets
// `__meta_filepath` = the file's path and the source "<path>:<index>".
// Contract: pure (the caller reads the files). parse_file_sd_config throws
// DiscoveryError naming the field; `files` must be non-empty and each
// pattern must end in .json, .yml or .yaml, with wildcards (* ? [) only in
// its last path element, as Prometheus requires. parse_file_sd takes JSON
// for .json files and YAML otherwise, with the http_sd grammar (a list of
// {targets, labels}); errors name the file and the field.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "allocation/discovery/kubernetes_roles.hpp"

namespace allocation::discovery {

struct FileSdConfig {
  std::vector<std::string> files;  // paths or glob patterns
  std::chrono::milliseconds refresh_interval{300'000};
};

FileSdConfig parse_file_sd_config(const model::Value& config, const std::string& field);

std::vector<SourcedGroup> parse_file_sd(std::string_view text, const std::string& path);

}  // namespace allocation::discovery
