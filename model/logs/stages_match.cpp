// The match stage: its selector/action fields and match.stages, a YAML
// string (CRDs cannot be recursive) that is parsed here and decoded element
// by element as nested pipeline stages.
#include "model/logs/stage_decoders.hpp"
#include "model/parse.hpp"

namespace model::stage_decoders {
namespace {

// Parses the YAML text of match.stages into `list`. Returns false (with
// errors recorded) when the text is not a single YAML list.
bool parse_stage_list(const Reader& b, const std::string& text, Value& list) {
  std::vector<Document> docs;
  try {
    docs = parse_documents(text, b.path_of("stages"));
  } catch (const ParseError& e) {
    std::string where = e.line() > 0 ? " (line " + std::to_string(e.line()) + " of the stages text)" : "";
    b.error("stages", "invalid YAML" + where + ": " + e.problem());
    return false;
  }
  if (docs.size() > 1) {
    b.error("stages", "must be a single YAML document, got " + std::to_string(docs.size()));
    return false;
  }
  if (docs.empty()) return true;
  if (!docs[0].value.is_array()) {
    b.error("stages", std::string("must be a YAML list of pipeline stages, got ") + docs[0].value.type_name());
    return false;
  }
  list = std::move(docs[0].value);
  return true;
}

// Decodes match.stages into agent-form stages appended to `out`. Returns
// false when any element was invalid.
bool decode_nested_stages(const Reader& b, int depth, Value& out) {
  std::string text = b.str_or("stages");
  if (text.empty()) return true;
  if (depth + 1 > kMaxMatchDepth) {
    b.error("stages", "match stages nest deeper than " + std::to_string(kMaxMatchDepth) + " levels");
    return false;
  }
  Value list = Value::array();
  if (!parse_stage_list(b, text, list)) return false;
  bool ok = true;
  std::size_t i = 0;
  for (const Value& item : list.as_array()) {
    std::string path = b.path_of("stages") + "[" + std::to_string(i++) + "]";
    if (!item.is_object()) {
      b.error_at(path, std::string("expected a pipeline stage object, got ") + item.type_name());
      ok = false;
      continue;
    }
    auto stage = decode_stage(Reader(&item, path, b.errors()), depth + 1);
    if (stage)
      out.push(stage->to_value());
    else
      ok = false;
  }
  return ok;
}

}  // namespace

Value decode_match(const Reader& elem, std::string_view key, int depth) {
  Reader b = elem.object(key);
  Value out = Value::object();
  if (!b.present()) return out;
  out.set("selector", required_string(b, "selector"));
  copy_string(b, "pipelineName", out, "pipeline_name");
  std::string action = b.str_or("action");
  bool action_ok = action.empty() || check_enum(b, "action", action, {"keep", "drop"}, false);
  out.set_nonempty("action", action);
  copy_string(b, "dropCounterReason", out, "drop_counter_reason");
  Value stages = Value::array();
  if (!decode_nested_stages(b, depth, stages) || !action_ok) return out;
  // Promtail refuses a keep-match without stages and a drop-match with them.
  if (action == "drop" && stages.size() > 0)
    b.error("stages", "must be empty when action is drop");
  else if (action != "drop" && stages.size() == 0)
    b.error("stages", "must define at least one stage unless action is drop");
  out.set_nonempty("stages", std::move(stages));
  return out;
}

}  // namespace model::stage_decoders
