// The writer's record of its last write (writer_plan.hpp: WrittenObject):
// what the server added to the object we sent, kept instead of a whole
// copy of the answer.
#include <optional>

#include "actors/core/writer_plan.hpp"
#include "model/object_fields.hpp"

namespace actors::core {

using model::Value;

namespace {

// Where a member sits, for skipping what the server maintains (status and
// the server-set metadata: without_server_fields' fields) in place.
enum class Level { top, metadata, inner };

bool server_field(Level level, std::string_view key) {
  if (level == Level::top) return key == "status";
  return level == Level::metadata && model::is_server_set_metadata(key);
}

Level below(Level level, std::string_view key) {
  return level == Level::top && key == "metadata" ? Level::metadata : Level::inner;
}

Value without_server_metadata(Value meta) {
  model::strip_server_metadata(meta);
  return meta;
}

std::optional<Value> additions(const Value& answer, const Value& sent, Level level);

std::optional<Value> object_additions(const Value& answer, const Value& sent, Level level) {
  Value::Object out;
  std::size_t matched = 0, compared = 0;
  for (const auto& [k, v] : answer.as_object()) {
    if (server_field(level, k)) continue;
    const Value* s = sent.find(k);
    if (!s) {
      out.emplace_back(k, below(level, k) == Level::metadata ? without_server_metadata(v) : v);
      continue;
    }
    ++matched;
    std::optional<Value> sub = additions(v, *s, below(level, k));
    if (!sub) return std::nullopt;
    if (!sub->is_null()) out.emplace_back(k, std::move(*sub));
  }
  for (const auto& [k, v] : sent.as_object()) compared += server_field(level, k) ? 0 : 1;
  if (matched != compared) return std::nullopt;
  return out.empty() ? Value() : Value(std::move(out));
}

// What `answer` holds beyond `sent`, server-maintained fields aside: the
// members `sent` lacks, recursively, arrays element by element (null where
// an element gained nothing). Null when nothing was added; nullopt when the
// answer changed or dropped something sent, which additions cannot express.
std::optional<Value> additions(const Value& answer, const Value& sent, Level level) {
  if (answer.is_object() && sent.is_object()) return object_additions(answer, sent, level);
  if (answer.is_array() && sent.is_array()) {
    if (answer.size() != sent.size()) return std::nullopt;
    Value::Array out;
    out.reserve(answer.size());
    bool any = false;
    for (std::size_t i = 0; i < answer.size(); ++i) {
      std::optional<Value> sub = additions(answer.as_array()[i], sent.as_array()[i], Level::inner);
      if (!sub) return std::nullopt;
      any = any || !sub->is_null();
      out.push_back(std::move(*sub));
    }
    return any ? Value(std::move(out)) : Value();
  }
  if (answer == sent) return Value();
  return std::nullopt;
}

// Drops the additions at `path` and any object left empty above them.
void drop_path(Value& v, FieldPath path) {
  if (path.empty() || !v.is_object()) return;
  if (path.size() == 1) {
    v.erase(path.front());
    return;
  }
  Value* next = v.find(path.front());
  if (!next) return;
  drop_path(*next, path.subspan(1));
  if (next->is_object() && next->size() == 0) v.erase(path.front());
}

}  // namespace

WrittenObject written_record(const Value& answer, const Value& sent) {
  WrittenObject w;
  w.hash = model::string_at(answer, {"metadata", "annotations", kConfigHashAnnotation});
  std::optional<Value> added = additions(answer, sent, Level::top);
  if (!added) {
    w.answer = without_server_fields(answer);
    return w;
  }
  for (FieldPath path : kForeignKeyPaths) drop_path(*added, path);
  if (added->is_object() && added->size() == 0) *added = Value();
  w.extras = std::move(*added);
  return w;
}

void observe_answer(ObservedObjects& observed, const Identity& id, SharedObject answer) {
  auto [it, fresh] = observed.try_emplace(id, answer);
  if (fresh) return;
  std::uint64_t got = numeric_resource_version(*answer);
  if (got == 0 || numeric_resource_version(*it->second) < got) it->second = std::move(answer);
}

void apply_extras(Value& base, const Value& extras) {
  if (extras.is_object() && base.is_object()) {
    for (const auto& [k, v] : extras.as_object()) {
      if (Value* b = base.find(k))
        apply_extras(*b, v);
      else
        base.set(k, v);
    }
  } else if (extras.is_array() && base.is_array() && extras.size() == base.size()) {
    for (std::size_t i = 0; i < extras.size(); ++i)
      if (!extras.as_array()[i].is_null()) apply_extras(base.as_array()[i], extras.as_array()[i]);
  }
}

}  // namespace actors::core
