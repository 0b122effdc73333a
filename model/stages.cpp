// TEMP(helper-logs): replaced by the full stage decoder.
#include "model/stages.hpp"
namespace model {
std::optional<PipelineStage> decode_pipeline_stage(const Reader& stage) {
  const auto& o = stage.node()->as_object();
  if (o.size() != 1) { stage.error_at(stage.path(), "exactly one stage must be set"); return std::nullopt; }
  return PipelineStage{o[0].first, o[0].second};
}
}
