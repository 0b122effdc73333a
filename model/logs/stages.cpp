// Dispatch of PodLogs pipeline stages: which CRD key maps to which agent key
// and decoder, the "exactly one stage per element" rule, and the field
// helpers shared by the per-stage decoders.
#include <re2/re2.h>

#include <algorithm>
#include <cctype>

#include "model/logs/stage_decoders.hpp"
#include "model/logs/stages.hpp"
#include "model/text.hpp"

namespace model {
namespace stage_decoders {
namespace {

struct StageKind {
  const char* crd_key;
  const char* agent_key;
  Decoder decode;
};

constexpr StageKind kStageKinds[] = {
    {"cri", "cri", decode_empty_object},
    {"docker", "docker", decode_empty_object},
    {"drop", "drop", decode_drop},
    {"json", "json", decode_json},
    {"labelAllow", "labelallow", decode_string_list},
    {"labelDrop", "labeldrop", decode_string_list},
    {"labels", "labels", decode_labels},
    {"limit", "limit", decode_limit},
    {"match", "match", decode_match},
    {"metrics", "metrics", decode_metrics},
    {"multiline", "multiline", decode_multiline},
    {"output", "output", decode_output},
    {"pack", "pack", decode_pack},
    {"regex", "regex", decode_regex},
    {"replace", "replace", decode_replace},
    {"template", "template", decode_template},
    {"tenant", "tenant", decode_tenant},
    {"timestamp", "timestamp", decode_timestamp},
};

const StageKind* find_kind(const std::string& key) {
  for (const auto& k : kStageKinds)
    if (key == k.crd_key) return &k;
  return nullptr;
}

std::string known_stage_list() {
  std::string out;
  for (const auto& k : kStageKinds) out += (out.empty() ? "" : ", ") + std::string(k.crd_key);
  return out;
}

// The stage keys of one element (null members count as unset), recording
// unknown keys as errors.
std::vector<const StageKind*> stage_keys(const Reader& r) {
  std::vector<const StageKind*> found;
  for (const auto& [key, value] : r.node()->as_object()) {
    if (value.is_null()) continue;
    const StageKind* kind = find_kind(key);
    if (!kind) {
      r.error(key, "unknown pipeline stage \"" + key + "\" (want one of " + known_stage_list() + ")");
      continue;
    }
    found.push_back(kind);
  }
  return found;
}

}  // namespace

std::optional<PipelineStage> decode_stage(const Reader& elem, int depth) {
  if (!elem.node()) {
    elem.error_at(elem.path(), "expected a pipeline stage object");
    return std::nullopt;
  }
  FieldErrors local;
  Reader r(elem.node(), elem.path(), &local);
  std::vector<const StageKind*> found = stage_keys(r);
  if (found.empty() && local.empty())
    r.error_at(r.path(), "no pipeline stage set (want exactly one of " + known_stage_list() + ")");
  if (found.size() > 1) {
    std::string keys;
    for (const StageKind* k : found) keys += (keys.empty() ? "" : ", ") + std::string(k->crd_key);
    r.error_at(r.path(), "exactly one pipeline stage may be set per element, got " + keys);
  }
  Value body;
  if (local.empty()) body = found[0]->decode(r, found[0]->crd_key, depth);
  for (auto& e : local) elem.error_at(std::move(e.path), std::move(e.message));
  if (!local.empty()) return std::nullopt;
  return PipelineStage{found[0]->agent_key, std::move(body)};
}

std::string required_string(const Reader& body, std::string_view key) {
  const Value* v = body.node() ? body.node()->find(key) : nullptr;
  if (!v || v->is_null()) {
    body.error(key, "is required");
    return {};
  }
  auto s = body.str(key);
  if (s && s->empty()) body.error(key, "must not be empty");
  return s.value_or(std::string());
}

void copy_string(const Reader& body, std::string_view key, Value& out, std::string_view agent_key) {
  out.set_nonempty(agent_key, body.str_or(key));
}

void check_regexp(const Reader& body, std::string_view key, const std::string& expr) {
  RE2::Options opts;
  opts.set_log_errors(false);
  RE2 re(expr, opts);
  if (!re.ok()) body.error(key, "invalid regular expression \"" + expr + "\": " + re.error());
}

bool check_enum(const Reader& body, std::string_view key, const std::string& value,
                std::initializer_list<const char*> allowed, bool ignore_case) {
  std::string want;
  for (const char* a : allowed) {
    if (ignore_case ? model::ascii_lower(value) == model::ascii_lower(a) : value == a) return true;
    want += (want.empty() ? "" : ", ") + std::string(a);
  }
  body.error(key, "unsupported value \"" + value + "\" (want one of " + want + ")");
  return false;
}

}  // namespace stage_decoders

std::optional<PipelineStage> decode_pipeline_stage(const Reader& stage) {
  return stage_decoders::decode_stage(stage, 0);
}

}  // namespace model
