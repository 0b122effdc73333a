#include "k8s/sim/size_limits.hpp"

#include "k8s/sim/store_meta.hpp"

namespace k8s::sim {

using model::Value;

namespace {

// Bytes a base64 text decodes to, without decoding it (the schema check
// has already refused malformed base64).
std::size_t decoded_size(const std::string& text) {
  std::size_t n = text.size(), pad = 0;
  while (pad < 2 && pad < n && text[n - 1 - pad] == '=') ++pad;
  return n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0) - (n % 4 ? 0 : pad);
}

std::size_t map_size(const Value* m, bool base64) {
  std::size_t total = 0;
  if (!m || !m->is_object()) return 0;
  for (const auto& [k, v] : m->as_object())
    if (v.is_string()) total += base64 ? decoded_size(v.as_string()) : v.as_string().size();
  return total;
}

std::string too_long(std::size_t limit) {
  return "Too long: must have at most " + std::to_string(limit) + " bytes";
}

}  // namespace

void check_annotation_size(const Value& metadata, std::vector<Cause>& out) {
  const Value* annotations = metadata.find("annotations");
  if (!annotations || !annotations->is_object()) return;
  std::size_t total = 0;
  for (const auto& [k, v] : annotations->as_object()) total += k.size() + (v.is_string() ? v.as_string().size() : 0);
  if (total > kMaxAnnotationBytes)
    out.push_back({"FieldValueTooLong", "metadata.annotations", too_long(kMaxAnnotationBytes)});
}

void check_template_annotation_size(const ResourceType& t, const Value& object, std::vector<Cause>& out) {
  if (t.group != "apps") return;
  const Value* spec = object.find("spec");
  const Value* tmpl = spec ? spec->find("template") : nullptr;
  const Value* meta = tmpl ? tmpl->find("metadata") : nullptr;
  if (!meta) return;
  std::vector<Cause> causes;
  check_annotation_size(*meta, causes);
  for (Cause& c : causes) out.push_back({c.reason, "spec.template." + c.field, c.message});
}

void check_data_size(const ResourceType& t, const Value& object) {
  if (!t.group.empty() || (t.kind != "Secret" && t.kind != "ConfigMap")) return;
  bool secret = t.kind == "Secret";
  std::size_t total = map_size(object.find("data"), secret) + (secret ? 0 : map_size(object.find("binaryData"), true));
  if (total <= kMaxDataBytes) return;
  throw ApiError::invalid(t.group, t.kind, meta_string(object, "name"),
                          {{"FieldValueTooLong", secret ? "data" : "[]", too_long(kMaxDataBytes)}});
}

}  // namespace k8s::sim
