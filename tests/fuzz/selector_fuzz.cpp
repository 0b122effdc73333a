// Fuzzes the selector parsers: metav1.LabelSelector objects
// (model/meta.hpp decode_selector, and the target allocator's collector
// selector in allocation/discovery/collectors.hpp with its text form), and
// the label/field selector text grammar (model/selector_text.hpp) through
// its two users, simcluster (k8s/sim/selector.hpp) and kubernetes_sd
// (allocation/discovery/selector.hpp).
// Input: line 1 a label selector text, line 2 a field selector text, then a
// YAML stream: a LabelSelector object, then an object to match.
// Contract checked: parsers throw only their documented error types;
// matching never throws; when both users accept a selector they select the
// same objects.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "allocation/discovery/collectors.hpp"
#include "allocation/discovery/kubernetes_config.hpp"
#include "allocation/discovery/selector.hpp"
#include "k8s/sim/api_error.hpp"
#include "k8s/sim/selector.hpp"
#include "model/meta.hpp"
#include "model/parse.hpp"
#include "tests/fuzz/fuzz_util.hpp"

namespace {

namespace disc = allocation::discovery;

const std::vector<std::string> kFields = {"metadata.name", "metadata.namespace", "spec.nodeName", "status.phase"};

template <class F>
auto parse_or_null(F&& parse) -> std::optional<decltype(parse())> {
  try {
    return parse();
  } catch (const k8s::sim::ApiError&) {
  } catch (const disc::SelectorError&) {
  }
  return std::nullopt;
}

// The object as the API server would hold it: string labels and string
// fields only (the two grammars may read a number differently, and no real
// object has one there).
model::Value canonical(const model::Value& in) {
  model::Value out = model::Value::object();
  auto copy = [&](const char* parent, const char* key) {
    const model::Value* p = in.find(parent);
    const model::Value* v = p ? p->find(key) : nullptr;
    if (!v || !v->is_string()) return;
    if (!out.find(parent)) out.set(parent, model::Value::object());
    out.find(parent)->set(key, *v);
  };
  copy("metadata", "name");
  copy("metadata", "namespace");
  copy("spec", "nodeName");
  copy("status", "phase");
  const model::Value* meta = in.find("metadata");
  const model::Value* labels = meta ? meta->find("labels") : nullptr;
  if (!labels || !labels->is_object()) return out;
  model::Value strings = model::Value::object();
  for (const auto& [k, v] : labels->as_object())
    if (v.is_string()) strings.set(k, v);
  if (!out.find("metadata")) out.set("metadata", model::Value::object());
  out.find("metadata")->set("labels", std::move(strings));
  return out;
}

// Both users parse with the one grammar: they accept the same label
// selectors, and where both accept a selector they agree on every object
// (simcluster also rejects fields a resource does not support).
void check_text(std::string_view labels, std::string_view fields, const model::Value& raw) {
  model::Value object = canonical(raw);
  const model::Value* meta = object.find("metadata");
  const model::Value* object_labels = meta ? meta->find("labels") : nullptr;
  auto sim_l = parse_or_null([&] { return k8s::sim::parse_label_selector(labels); });
  auto disc_l = parse_or_null([&] { return disc::Selector::parse_labels(labels); });
  if (sim_l.has_value() != disc_l.has_value()) fuzz::fuzz_fail("one user rejects: " + std::string(labels));
  if (sim_l && disc_l)
    if (sim_l->matches(object_labels) != disc_l->matches(object))
      fuzz::fuzz_fail("label selectors disagree: " + std::string(labels));
  auto sim_f = parse_or_null([&] { return k8s::sim::parse_field_selector(fields, kFields); });
  auto disc_f = parse_or_null([&] { return disc::Selector::parse_fields(fields); });
  if (sim_f && disc_f && sim_f->matches(object) != disc_f->matches(object))
    fuzz::fuzz_fail("field selectors disagree: " + std::string(fields));
}

model::Labels labels_of(const model::Value& object) {
  model::FieldErrors errors;
  return model::decode_meta(model::Reader(&object, "", &errors)).labels;
}

void check_object_selector(const model::Value& selector, const model::Value& object) {
  model::Labels labels = labels_of(object);
  model::Value holder = model::Value::object();
  holder.set("selector", selector);
  model::FieldErrors errors;
  auto sel = model::decode_selector(model::Reader(&holder, "", &errors), "selector");
  (void)model::selector_matches(sel, labels);
  try {
    auto collector = disc::parse_label_selector(&selector, "collector_selector");
    if (!collector) return;
    (void)collector->matches(labels);
    std::string text = disc::selector_text(*collector);
    if (auto reparsed = parse_or_null([&] { return k8s::sim::parse_label_selector(text); }))
      (void)reparsed->matches(object.find("metadata") ? object.find("metadata")->find("labels") : nullptr);
  } catch (const disc::DiscoveryError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rest = fuzz::as_text(data, size);
  std::string_view labels = fuzz::take_line(rest);
  std::string_view fields = fuzz::take_line(rest);
  std::vector<model::Document> docs;
  try {
    docs = model::parse_documents(rest, "fuzz", fuzz::small_limits());
  } catch (const model::ParseError&) {
  }
  model::Value selector = docs.size() > 0 ? docs[0].value : model::Value();
  model::Value object = docs.size() > 1 ? docs[1].value : model::Value::object();
  check_text(labels, fields, object);
  check_object_selector(selector, object);
  return 0;
}
