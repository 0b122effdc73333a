// Randomized robustness tests of the parse -> decode -> render path: byte
// mutations of real manifests and type-confused trees must give a
// ParseError or path-qualified Problems, never a crash or another exception.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>
#include <regex>
#include <utility>

#include "golden_util.hpp"
#include "model/parse.hpp"
#include "model/render.hpp"
#include "model/yaml_emit.hpp"

namespace {

std::vector<std::string> corpus() {
  std::vector<std::string> out;
  for (const char* dir : {"deploy/examples", "tests/golden"}) {
    std::filesystem::path root = testutil::source_path(dir);
    if (!std::filesystem::exists(root)) continue;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root))
      if (e.is_regular_file() && e.path().extension() == ".yaml") out.push_back(testutil::read_text(e.path().string()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string mutate(std::string s, std::mt19937& rng) {
  static const std::vector<std::string> tokens = testutil::yaml_fuzz_tokens({});
  return testutil::mutate(std::move(s), rng, tokens);
}

// Whole documents may be replaced too; otherwise kind and apiVersion stay,
// so the decoders (not just the kind dispatch) see the confused trees.
const testutil::Confusion kConfusion{7, false, {"kind", "apiVersion"}};

const std::regex kProblemShape(R"(^[A-Za-z]+ [^ ]+: ([^ ]+: )?.+$)");

void render_checked(const std::string& text) {
  model::Inventory inv;
  try {
    for (auto& doc : model::parse_documents(text, "fuzz")) inv.add(doc.value);
  } catch (const model::ParseError& e) {
    REQUIRE(!e.problem().empty());
    return;
  }
  auto all = model::render_all(inv, model::RenderOptions{});
  for (const auto& p : all.problems) {
    INFO(p.str() << " [kind=" << p.kind << " ns=" << p.ns << " name=" << p.name << " path=" << p.path << "]");
    REQUIRE(std::regex_match(p.str(), kProblemShape));
  }
  // Whatever rendered must serialise and read back.
  std::string out = model::to_yaml_stream(all.objects);
  // And render the same on several threads.
  model::RenderOptions threaded;
  threaded.render_threads = 3;
  auto again = model::render_all(inv, threaded);
  REQUIRE(model::to_yaml_stream(again.objects) == out);
  REQUIRE(again.problems == all.problems);
  REQUIRE_NOTHROW(model::parse_documents(out, "rendered"));
}

}  // namespace

TEST_CASE("byte-mutated manifests never crash the parse/decode/render path", "[fuzz]") {
  auto inputs = corpus();
  REQUIRE(!inputs.empty());
  std::mt19937 rng(20261122);
  for (int i = 0; i < 1500; ++i) render_checked(mutate(inputs[static_cast<std::size_t>(i) % inputs.size()], rng));
}

TEST_CASE("type-confused objects give path-qualified problems", "[fuzz]") {
  auto inputs = corpus();
  std::mt19937 rng(7);
  for (int round = 0; round < 40; ++round) {
    for (const auto& text : inputs) {
      std::string confused;
      for (auto& doc : model::parse_documents(text, "corpus")) {
        confused += "---\n";
        model::emit_yaml(testutil::confuse(doc.value, rng, kConfusion), confused);
      }
      render_checked(confused);
    }
  }
}

TEST_CASE("hostile inputs: binary deep huge", "[fuzz]") {
  std::mt19937 rng(1);
  std::string binary(4096, '\0');
  for (auto& c : binary) c = static_cast<char>(rng() % 256);
  render_checked(binary);
  render_checked(std::string(50000, '[') + std::string(50000, ']'));
  render_checked(std::string(50000, '{'));
  std::string nested = "kind: GrafanaAgent\napiVersion: monitoring.grafana.com/v1alpha1\nmetadata: {name: x}\nspec:";
  for (int i = 0; i < 3000; ++i) nested += " {a:";
  render_checked(nested);
  std::string huge = "apiVersion: v1\nkind: Secret\nmetadata: {name: big, namespace: a}\nstringData: {k: '" +
                     std::string(8 << 20, 'x') + "'}\n";
  render_checked(huge);
  std::string many = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n";
  for (int i = 0; i < 20000; ++i) many += "  k" + std::to_string(i) + ": v\n";
  render_checked(many);
}
