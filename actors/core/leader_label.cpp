#include "actors/core/leader_label.hpp"

#include "model/object_fields.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace actors::core {

void label_on_leader(LeaderLabelState& s, bool leading) {
  if (leading == s.leading) return;
  s.leading = leading;
  s.stopped = false;
  if (leading) s.sweep = true;
}

LabelCall label_next(LeaderLabelState& s) {
  if (s.busy || s.retry_scheduled || s.stopped) return LabelCall::none;
  LabelCall call = LabelCall::none;
  if (s.labelled != s.leading)
    call = s.leading ? LabelCall::label_own : LabelCall::unlabel_own;
  else if (s.leading && s.sweep)
    call = LabelCall::list_labelled;
  s.busy = call != LabelCall::none;
  return call;
}

void label_on_answer(LeaderLabelState& s, LabelCall call, LabelAnswer a) {
  s.busy = false;
  if (a == LabelAnswer::retry) {
    s.retry_scheduled = true;
    return;
  }
  if (a == LabelAnswer::terminal) {
    s.stopped = true;
    return;
  }
  if (call == LabelCall::label_own) s.labelled = true;
  if (call == LabelCall::unlabel_own) s.labelled = false;
  if (call == LabelCall::list_labelled) s.sweep = false;
}

void label_on_retry(LeaderLabelState& s) {
  s.retry_scheduled = false;
}

std::string label_patch(const std::string& key, bool set) {
  model::Value labels = model::Value::object();
  labels.set(key, set ? model::Value("true") : model::Value());
  return model::to_json(model::Value::obj({{"metadata", model::Value::obj({{"labels", std::move(labels)}})}}));
}

std::vector<std::string> labelled_others(const std::string& list_json, const std::string& key, const std::string& own) {
  std::vector<std::string> out;
  model::Value list = model::parse_json(list_json, "PodList");
  const model::Value* items = list.find("items");
  if (!items || !items->is_array()) return out;
  for (const model::Value& pod : items->as_array()) {
    const model::Value* labels = model::find_path(pod, {"metadata", "labels"});
    const model::Value* v = labels ? labels->find(key) : nullptr;
    std::string name = model::string_at(pod, {"metadata", "name"});
    if (v && name != own) out.push_back(name);
  }
  return out;
}

}  // namespace actors::core
