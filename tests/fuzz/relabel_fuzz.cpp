// Fuzzes Prometheus relabeling (allocation/relabel.hpp): a relabel_configs
// list read from YAML, compiled into a Relabeler and applied to a label set.
// Input: a YAML stream; document 1 is the relabel_configs list, document 2
// a map of label name -> value (the target's labels).
// Contract checked: parsing and compiling throw only RelabelError (the
// regex included: RE2 with Go's syntax); applying never throws; applying
// twice with the same Relabeler gives the same result (its per-name caches
// must not change an answer).
#include <cstdint>
#include <string>
#include <vector>

#include "allocation/labels.hpp"
#include "allocation/relabel.hpp"
#include "model/parse.hpp"
#include "tests/fuzz/fuzz_util.hpp"

namespace {

allocation::LabelSet labels_from(const model::Value& map) {
  std::vector<allocation::Label> labels;
  if (map.is_object())
    for (const auto& [name, value] : map.as_object())
      // Names are interned for the process's life: cap their length so a
      // long fuzz run cannot grow the table without bound.
      if (value.is_string() && name.size() <= 64) labels.push_back({allocation::Name::intern(name), value.as_string()});
  return allocation::LabelSet(std::move(labels));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<model::Document> docs;
  try {
    docs = model::parse_documents(fuzz::as_text(data, size), "fuzz", fuzz::small_limits());
  } catch (const model::ParseError&) {
    return 0;
  }
  if (docs.empty()) return 0;
  allocation::Relabeler relabeler;
  try {
    auto configs = allocation::parse_relabel_configs(docs[0].value, "relabel_configs");
    relabeler = allocation::Relabeler(configs);
  } catch (const allocation::RelabelError&) {
    return 0;
  }
  allocation::LabelSet labels = labels_from(docs.size() > 1 ? docs[1].value : model::Value());
  auto first = relabeler.apply(labels);
  auto second = relabeler.apply(labels);
  if (first != second) fuzz::fuzz_fail("the same Relabeler relabeled the same labels differently");
  return 0;
}
