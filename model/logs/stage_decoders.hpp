// Internal to the PodLogs pipeline-stage decoder (model/stages*.cpp): one
// function per CRD stage type. Each reads the body under `key` of a
// pipelineStages element, validates it against the CRD schema plus the
// load-time checks Promtail applies (required fields, enumerations, regular
// expressions), and returns the body in agent form (snake_case keys, empty
// optional fields left out).
// Contract: problems are recorded through the element's Reader with full
// paths; the caller drops the stage when any were recorded. `depth` counts
// match.stages nesting and only the match decoder uses it.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "model/decode.hpp"
#include "model/logs/stages.hpp"
#include "model/value.hpp"

namespace model::stage_decoders {

using Decoder = Value (*)(const Reader& elem, std::string_view key, int depth);

// How deep match.stages may nest before the element is rejected.
inline constexpr int kMaxMatchDepth = 16;

Value decode_empty_object(const Reader& elem, std::string_view key, int depth);  // cri, docker
Value decode_drop(const Reader& elem, std::string_view key, int depth);
Value decode_json(const Reader& elem, std::string_view key, int depth);
Value decode_string_list(const Reader& elem, std::string_view key, int depth);  // labelAllow, labelDrop
Value decode_labels(const Reader& elem, std::string_view key, int depth);
Value decode_limit(const Reader& elem, std::string_view key, int depth);
Value decode_match(const Reader& elem, std::string_view key, int depth);
Value decode_metrics(const Reader& elem, std::string_view key, int depth);
Value decode_multiline(const Reader& elem, std::string_view key, int depth);
Value decode_output(const Reader& elem, std::string_view key, int depth);
Value decode_pack(const Reader& elem, std::string_view key, int depth);
Value decode_regex(const Reader& elem, std::string_view key, int depth);
Value decode_replace(const Reader& elem, std::string_view key, int depth);
Value decode_template(const Reader& elem, std::string_view key, int depth);
Value decode_tenant(const Reader& elem, std::string_view key, int depth);
Value decode_timestamp(const Reader& elem, std::string_view key, int depth);

// Decodes one pipelineStages element at the given match nesting depth
// (decode_pipeline_stage starts at 0). Errors go to elem's error list.
std::optional<PipelineStage> decode_stage(const Reader& elem, int depth);

// Shared field helpers.
// A required, non-empty string; records "is required" when missing.
std::string required_string(const Reader& body, std::string_view key);
// Sets out[agent_key] to body[key] when it is a non-empty string.
void copy_string(const Reader& body, std::string_view key, Value& out, std::string_view agent_key);
// Records an error when `expr` does not compile as a (Go/RE2) regular expression.
void check_regexp(const Reader& body, std::string_view key, const std::string& expr);
// Records an error unless `value` is one of `allowed` (compared case-insensitively
// when `ignore_case`).
bool check_enum(const Reader& body, std::string_view key, const std::string& value,
                std::initializer_list<const char*> allowed, bool ignore_case);

}  // namespace model::stage_decoders
