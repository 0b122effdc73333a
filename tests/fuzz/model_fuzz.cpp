// Fuzzes the path of every manifest the operator reads: YAML (or JSON)
// text -> model::parse_documents / parse_json -> model::Inventory::add
// (decoding into the typed CRDs) -> render_agent for each GrafanaAgent.
// Contract checked: parsing throws only ParseError, within small limits;
// the fast YAML reader answers only with exactly yaml-cpp's documents;
// add() and render_agent() never throw; what parses re-emits as YAML and
// JSON that read back as an equal Value (yaml_emit.hpp's contract).
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "model/inventory.hpp"
#include "model/parse.hpp"
#include "model/render.hpp"
#include "model/yaml_emit.hpp"
#include "model/yaml_fast.hpp"
#include "tests/fuzz/fuzz_util.hpp"

namespace {

// Small limits: the fuzzer should explore structure, not spend its time
// on 20M-node documents (the defaults are tested by model_tests).
model::ParseLimits limits() {
  model::ParseLimits l;
  l.max_depth = 64;
  l.max_nodes = 100'000;
  l.max_alias_nodes = 10'000;
  l.max_bytes = 1 << 20;
  return l;
}

void check_round_trip(const model::Value& v) {
  if (fuzz::has_nan(v)) return;
  std::string yaml = model::to_yaml(v);
  std::vector<model::Document> back;
  try {
    back = model::parse_documents(yaml, "emitted");
  } catch (const model::ParseError& e) {
    fuzz::fuzz_fail("emitted YAML does not parse: " + std::string(e.what()) + "\n" + yaml);
  }
  model::Value again = back.empty() ? model::Value() : back.front().value;
  if (back.size() > 1 || again != v) fuzz::fuzz_fail("emitted YAML reads back differently:\n" + yaml);
  if (fuzz::has_non_finite(v)) return;  // JSON writes null for them
  std::string json = model::to_json(v);
  try {
    if (model::parse_json(json, "emitted") != v) fuzz::fuzz_fail("emitted JSON reads back differently: " + json);
  } catch (const model::ParseError& e) {
    fuzz::fuzz_fail("emitted JSON does not parse: " + std::string(e.what()) + " " + json);
  }
}

// The fast YAML reader may answer only where it reads exactly as yaml-cpp.
void check_fast_reader(std::string_view text) {
  if (model::non_utf8_yaml_at(text) != std::string_view::npos) return;  // parse_documents refuses it first
  auto fast = model::read_yaml_fast(text, limits());
  if (!fast) return;
  std::vector<model::Document> slow;
  try {
    slow = model::read_yaml_cpp(text, "fuzz", limits());
  } catch (const model::ParseError& e) {
    fuzz::fuzz_fail("the fast YAML reader accepts what yaml-cpp refuses: " + std::string(e.what()));
  }
  if (std::string d = fuzz::documents_difference(*fast, slow); !d.empty())
    fuzz::fuzz_fail("the fast YAML reader reads otherwise than yaml-cpp: " + d);
}

std::vector<model::Document> parse(std::string_view text) {
  check_fast_reader(text);
  std::vector<model::Document> docs;
  try {
    docs = model::parse_documents(text, "fuzz", limits());
  } catch (const model::ParseError&) {
  }
  // The JSON reader alone too (the reflector's path for watch events).
  try {
    model::Value v = model::parse_json(text, "fuzz", limits());
    check_round_trip(v);
  } catch (const model::ParseError&) {
  }
  return docs;
}

void render_agents(const model::Inventory& inv) {
  model::RenderOptions opts;
  opts.gzip_threshold = 4096;  // reach the gzip path with small inputs
  for (const auto& [key, entry] : inv.agents) {
    if (!entry.valid) continue;
    model::AgentRender r = model::render_agent(inv, entry.obj, opts);
    (void)model::to_yaml_stream(r.objects);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<model::Document> docs = parse(fuzz::as_text(data, size));
  model::Inventory inv;
  for (const model::Document& d : docs) {
    check_round_trip(d.value);
    inv.add(d.value, "fuzz:" + std::to_string(d.line));
  }
  for (const model::Problem& p : inv.problems()) (void)p.str();
  render_agents(inv);
  return 0;
}
