// Test helpers: golden files under tests/golden/<suite>/<case> (regenerate
// with UPDATE_GOLDEN=1 and review the diff), loaders for the upstream
// reference cases in ../shared/reference/golden, and Value helpers for
// assertions (one YAML document, comparisons, path lookup).
#pragma once

#include <random>
#include <span>
#include <string>
#include <vector>

#include "model/inventory.hpp"
#include "model/value.hpp"

namespace testutil {

std::string read_text(const std::string& path);
std::string reference_path(const std::string& relative);  // under AO_REFERENCE_DIR
std::string source_path(const std::string& relative);     // under AO_SOURCE_DIR
// Fuzzing: 1 to 8 random edits of `s` (a byte replaced, one of `tokens`
// inserted, up to 16 bytes erased, or the rest cut off), drawn from `rng`.
std::string mutate(std::string s, std::mt19937& rng, std::span<const std::string> tokens);
// Tokens that break YAML and JSON in interesting ways (indicators, anchors,
// tags, document markers, tabs, a NUL and an invalid UTF-8 byte, huge
// numbers), plus `extra`, for mutate().
std::vector<std::string> yaml_fuzz_tokens(std::vector<std::string> extra = {});
// Fuzzing: `v` with random subtrees (each with chance 1/one_in, and every
// one below depth 12) replaced by values of other types: a string, a
// negative or positive integer, a boolean, a mixed array, an object, null.
struct Confusion {
  unsigned one_in = 6;
  bool keep_root = true;               // never replace `v` itself
  std::vector<std::string> keep_keys;  // members never replaced (e.g. kind)
};
model::Value confuse(const model::Value& v, std::mt19937& rng, const Confusion& how, int depth = 0);
// The .yaml files directly in `dir`, sorted by path.
std::vector<std::string> yaml_files(const std::string& dir);

// Compares `actual` with tests/golden/<suite>/<name> byte for byte. With
// UPDATE_GOLDEN=1 in the environment it rewrites the file instead.
void check_golden(const std::string& suite, const std::string& name, const std::string& actual);

// Loads every document of a YAML/JSON text into an inventory.
model::Inventory inventory_from_yaml(const std::string& text);
// The problems of inventory_from_yaml(text), as Problem::str(), sorted.
std::vector<std::string> inventory_problems(const std::string& text);

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

// CHECKs expected == actual, with describe_difference as the message.
void check_same(const model::Value& expected, const model::Value& actual);

// "" when `expected` is a subset of `actual` with upstream's
// subset.YAMLAssert semantics (maps: expected keys present with matching
// values; arrays: equal length, compared item by item), else where not.
std::string subset_mismatch(const model::Value& expected, const model::Value& actual, const std::string& path = "");

// The only document of a YAML/JSON text (REQUIREs exactly one).
model::Value yaml(const std::string& text);

// Walks "a.b[1].c" (or "[5]" from an array); throws when a step is missing.
const model::Value& at(const model::Value& v, const std::string& path);

// The "name" of every item of a list (volumes, containers, env, ...).
std::vector<std::string> names(const model::Value& list);

}  // namespace testutil
