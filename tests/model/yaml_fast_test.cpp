// Differential test of the fast YAML reader (model/yaml_fast.hpp) against
// yaml-cpp: on real manifests, a generated cluster like render_bench's,
// random streams and mutations, whenever the fast reader answers, its
// documents must equal yaml-cpp's exactly (lines, types, member order,
// bytes of every string), and it must not answer where yaml-cpp throws.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "golden_util.hpp"
#include "model/parse.hpp"
#include "model/yaml_fast.hpp"
#include "tests/fuzz/fuzz_util.hpp"
#include "yaml_snippets.hpp"

namespace {

using model::Document;
using model::Value;

struct ReaderTally {
  std::size_t inputs = 0;
  std::size_t handled = 0;  // the fast reader answered
  std::size_t refused = 0;  // yaml-cpp threw
};

// Runs both readers on `text`; returns whether the fast one answered.
bool compare_readers(const std::string& text, ReaderTally& tally, const model::ParseLimits& limits = {}) {
  ++tally.inputs;
  auto fast = model::read_yaml_fast(text, limits);
  if (model::non_utf8_yaml_at(text) != std::string_view::npos)
    return fast.has_value();  // parse_documents refuses it before either reader
  std::vector<Document> slow;
  std::string error;
  try {
    slow = model::read_yaml_cpp(text, "input", limits);
  } catch (const model::ParseError& e) {
    error = e.what();
    ++tally.refused;
  }
  if (!fast) return false;
  ++tally.handled;
  INFO("input:\n" << text << "\n(end of input)");
  REQUIRE(error.empty());
  REQUIRE(fuzz::documents_difference(*fast, slow) == "");
  return true;
}

std::vector<std::string> yaml_corpus_files() {
  std::vector<std::string> out;
  std::vector<std::filesystem::path> roots = {testutil::source_path("deploy"), testutil::source_path("tests/golden"),
                                              testutil::reference_path("examples"), testutil::reference_path("crds"),
                                              testutil::reference_path("golden")};
  for (const auto& root : roots) {
    if (!std::filesystem::exists(root)) continue;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
      const auto ext = e.path().extension();
      if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".case" || ext == ".golden"))
        out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> yaml_corpus() {
  std::vector<std::string> out;
  for (const auto& path : yaml_corpus_files()) out.push_back(testutil::read_text(path));
  return out;
}

// The shapes of render_bench's cluster (benchmarks/render_bench.cpp):
// block mappings with one-line flow collections, at scale 1.
std::string bench_like_cluster() {
  std::string y =
      "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: agent, namespace: "
      "monitoring}\nspec:\n  metrics:\n    shards: 2\n    instanceSelector: {matchLabels: {agent: agent}}\n";
  for (int i = 0; i < 1000; ++i)
    y += "---\napiVersion: v1\nkind: Secret\nmetadata: {name: token-" + std::to_string(i) + ", namespace: team-" +
         std::to_string(i % 50) + "}\nstringData: {token: secret-value-" + std::to_string(i) + "}\n";
  for (int i = 0; i < 2000; ++i) {
    const std::string n = std::to_string(i);
    y += "---\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: sm-" + n +
         "\n  labels: {instance: mi-" + std::to_string(i % 10) + "}\nspec:\n  selector:\n    matchLabels: {app: svc-" +
         n + "}\n    matchExpressions: [{key: tier, operator: In, values: [web, api]}]\n" +
         "  endpoints:\n  - port: http-metrics\n    interval: 30s\n    metricRelabelings:\n" +
         "    - {sourceLabels: [__name__], regex: 'go_gc_.*', action: drop}\n  - port: admin\n    path: /admin\n";
  }
  return y;
}

void random_yaml_rounds(std::uint32_t seed, int rounds, ReaderTally& tally) {
  std::mt19937 rng(seed);
  for (int i = 0; i < rounds; ++i) {
    const std::string text = testutil::random_yaml(rng);
    compare_readers(text, tally);
    compare_readers(testutil::mutate_lines(text, rng), tally);
  }
}

}  // namespace

TEST_CASE("fast YAML reader: manifests, goldens and reference files read as yaml-cpp reads them", "[yaml][parse]") {
  ReaderTally tally;
  std::size_t handled_files = 0;
  const auto files = yaml_corpus_files();
  REQUIRE(files.size() > 50);
  for (const auto& path : files) {
    INFO(path);
    if (compare_readers(testutil::read_text(path), tally)) ++handled_files;
  }
  // Most of them are within the subset: a fallback for them all would make
  // this test (and the speed-up) vacuous.
  CHECK(handled_files * 4 > files.size() * 3);
  CHECK(compare_readers(bench_like_cluster(), tally));
}

TEST_CASE("fast YAML reader: random streams agree with yaml-cpp", "[yaml][parse][fuzz]") {
  ReaderTally tally;
  random_yaml_rounds(18, 20000, tally);
  CHECK(tally.handled > tally.inputs / 4);
  CHECK(tally.refused > tally.inputs / 20);
}

TEST_CASE("fast YAML reader: mutated manifests agree with yaml-cpp", "[yaml][parse][fuzz]") {
  ReaderTally tally;
  const auto inputs = yaml_corpus();
  const auto tokens = testutil::yaml_fuzz_tokens({": ", "- ", " #", "\r", "|-", "> ", "<<: "});
  std::mt19937 rng(1811);
  for (int i = 0; i < 6000; ++i) {
    const std::string window = testutil::line_window(inputs[rng() % inputs.size()], rng);
    compare_readers(window, tally);
    compare_readers(testutil::mutate_lines(window, rng), tally);
    compare_readers(testutil::mutate(window, rng, tokens), tally);
  }
  CHECK(tally.handled > tally.inputs / 4);
}

// A longer run for work on the reader: AO_YAML_SOAK_SEED and
// AO_YAML_SOAK_ROUNDS (default 1,000,000) in the environment.
TEST_CASE("fast YAML reader: long random run", "[.][yaml-soak]") {
  ReaderTally tally;
  const char* seed = std::getenv("AO_YAML_SOAK_SEED");
  const char* rounds = std::getenv("AO_YAML_SOAK_ROUNDS");
  random_yaml_rounds(seed ? static_cast<std::uint32_t>(std::stoul(seed)) : 1, rounds ? std::stoi(rounds) : 1'000'000,
                     tally);
  WARN(tally.inputs << " inputs, " << tally.handled << " read by the fast reader, " << tally.refused
                    << " refused by yaml-cpp");
}

TEST_CASE("fast YAML reader: limits make it fall back", "[yaml][parse]") {
  ReaderTally tally;
  model::ParseLimits tight;
  tight.max_depth = 3;
  tight.max_nodes = 10;
  CHECK_FALSE(compare_readers("a:\n  b:\n    c: 1\n", tally, tight));
  CHECK_FALSE(compare_readers("a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n", tally, tight));
  CHECK(compare_readers("a: 1\nb: [2]\n", tally, tight));
  std::string deep;
  for (int i = 0; i < 300; ++i) deep += std::string(static_cast<std::size_t>(i) * 2, ' ') + "k:\n";
  CHECK_FALSE(compare_readers(deep, tally));
  // yaml-cpp takes a simple key up to 1024 bytes before its ':'.
  CHECK(compare_readers(std::string(990, 'k') + ": v\n", tally));
  CHECK_FALSE(compare_readers(std::string(1030, 'k') + ": v\n", tally));
  CHECK_FALSE(compare_readers("\"" + std::string(1030, 'k') + "\": v\n", tally));
}

TEST_CASE("fast YAML reader: what it leaves to yaml-cpp", "[yaml][parse]") {
  ReaderTally tally;
  for (const char* text : {"a: &x 1\nb: *x\n",
                           "a: !!str 1\n",
                           "a: 'b\n---\n  c'\n",
                           "? a\n: b\n",
                           "a:\tb\n",
                           "a: b\r\n",
                           "%YAML 1.2\n---\na: 1\n",
                           "a: 1\n...\n",
                           "\xEF\xBB\xBF"
                           "a: 1\n",
                           "<<: {a: 1}\n",
                           "a: 1\na: 2\n",
                           "a: {b: [1,\n  2]}\n",
                           "a: |2\n   x\n",
                           "a: \"\\N\"\n",
                           "- a\nb: 1\n",
                           "a: b: c\n",
                           "just a scalar\n",
                           "--- text\n",
                           "a:\n  value on its own line\n",
                           "a: 1 # c\n  # more indented comment\n"}) {
    CHECK_FALSE(compare_readers(text, tally));
  }
}

TEST_CASE("fast YAML reader: document lines, empty documents and keys as Builder stores them", "[yaml][parse]") {
  ReaderTally tally;
  for (const char* text :
       {"# lead\n\na: 1\n---\n---\n# only a comment\n---\nb: [x, 'y', \"z\"]\n", "---\n  a: 1\n  b:\n  - x\n  -\n",
        "~: 1\nb: 2\n", "\"null\": 1\n'~': 2\n", "a: |\n  x\n\n  y\n\nb: >-\n  folded\n  text\n\n   more\n",
        "a: |+\n  kept\n\n", "a: |\n  no final break", "- - a\n  - b\n- c: 1\n  d: 2\n", "a: 'it''s' # c\n",
        "a: b\n  c\n\n\n   d\ne: f\n", "a: 'b\n c ''d''\n\n  e'\nf: \"g\\\n  h\\ni \\\"j\\\"\n\n\"\n"}) {
    INFO(text);
    CHECK(compare_readers(text, tally));
  }
}
