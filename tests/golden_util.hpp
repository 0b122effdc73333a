// Test helpers: golden files under tests/golden/<suite>/<case> (regenerate
// with UPDATE_GOLDEN=1 and review the diff), and loaders for the upstream
// reference cases in ../shared/reference/golden.
#pragma once

#include <string>

#include "model/inventory.hpp"
#include "model/value.hpp"

namespace testutil {

std::string read_text(const std::string& path);
std::string reference_path(const std::string& relative);  // under AO_REFERENCE_DIR
std::string source_path(const std::string& relative);     // under AO_SOURCE_DIR

// Compares `actual` with tests/golden/<suite>/<name> byte for byte. With
// UPDATE_GOLDEN=1 in the environment it rewrites the file instead.
void check_golden(const std::string& suite, const std::string& name, const std::string& actual);

// Loads every document of a YAML/JSON text into an inventory.
model::Inventory inventory_from_yaml(const std::string& text);

// An upstream "*.case" file: the input manifests (plus Secrets built from
// its "# secret store:" header) and the expected agent.yml.
struct ReferenceCase {
  std::string entry;  // agent-metrics.libsonnet, agent-logs.libsonnet, ...
  model::Inventory inventory;
  model::Value expected;
};
ReferenceCase load_reference_case(const std::string& name);  // e.g. "D1_servicemonitor_tls_bearer_ns"

// A readable diff-like description of where two Values differ ("" if equal).
std::string describe_difference(const model::Value& expected, const model::Value& actual, const std::string& path = "");

}  // namespace testutil
