// PodLogs pipeline stages. Each stage is validated against the CRD schema at
// decode time and converted into the Promtail/agent form (snake_case keys,
// match.stages parsed from its YAML string), so rendering just emits it.
// Contract: a stage with errors reports them via the Reader and is dropped.
#pragma once

#include <optional>
#include <string>

#include "model/decode.hpp"
#include "model/value.hpp"

namespace model {

struct PipelineStage {
  std::string type;  // the agent's stage key: "cri", "labelallow", "match", ...
  Value config;      // the stage body in agent form
  Value to_value() const { return Value::obj({{type, config}}); }
};

// Decodes one element of spec.pipelineStages. Exactly one stage key must be
// set. Returns std::nullopt (with errors recorded) when invalid.
std::optional<PipelineStage> decode_pipeline_stage(const Reader& stage);

}  // namespace model
