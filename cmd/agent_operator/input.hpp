// Loading manifests from files, directories and stdin into an Inventory.
// Contract: throws model::ParseError (naming file and line) for unparsable
// input and std::runtime_error for unreadable paths; nothing else.
#pragma once

#include <string>
#include <vector>

#include "model/inventory.hpp"

namespace cli {

// Expands directories (recursively, *.yaml, *.yml, *.json, sorted) and
// keeps "-" for stdin.
std::vector<std::string> expand_paths(const std::vector<std::string>& paths);
void load_paths(const std::vector<std::string>& paths, model::Inventory& inv);
std::string read_file(const std::string& path);

}  // namespace cli
