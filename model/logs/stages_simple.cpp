// Decoders of the flat PodLogs stages (everything except match and
// metrics): CRD camelCase in, Promtail snake_case out.
#include "model/logs/stage_decoders.hpp"

namespace model::stage_decoders {
namespace {

bool valid_label_name(const std::string& s) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

// A map of label name -> string where null stands for "" (Promtail reads
// both as "take the value from the extracted field of the same name").
Value nullable_string_map(const Reader& body, bool label_names) {
  Value out = Value::object();
  for (const auto& [k, v] : body.node()->as_object()) {
    std::string p = body.path_of(k);
    if (label_names && !valid_label_name(k)) body.error_at(p, "invalid label name \"" + k + "\"");
    if (v.is_null()) {
      out.set(k, "");
    } else if (v.is_string()) {
      out.set(k, v);
    } else {
      body.error_at(p, std::string("expected string, got ") + v.type_name());
    }
  }
  return out;
}

// The regular-expression field `key` of `body`: required when `required`,
// validated when set.
void copy_regexp(const Reader& body, std::string_view key, Value& out, std::string_view agent_key, bool required) {
  std::string expr = required ? required_string(body, key) : body.str_or(key);
  if (expr.empty()) return;
  check_regexp(body, key, expr);
  out.set(agent_key, expr);
}

}  // namespace

Value decode_empty_object(const Reader& elem, std::string_view key, int) {
  elem.object(key);  // records a type error when not an object
  return Value::object();
}

Value decode_drop(const Reader& elem, std::string_view key, int) {
  Reader b = elem.object(key);
  Value out = Value::object();
  if (!b.present()) return out;
  copy_string(b, "source", out, "source");
  copy_regexp(b, "expression", out, "expression", false);
  copy_string(b, "value", out, "value");
  copy_string(b, "olderThan", out, "older_than");
  copy_string(b, "longerThan", out, "longer_than");
  copy_string(b, "dropCounterReason", out, "drop_counter_reason");
  if (!out.find("source") && !out.find("expression") && !out.find("older_than") && !out.find("longer_than"))
    b.error_at(b.path(), "needs at least one of source, expression, olderThan or longerThan");
  if (out.find("value") && out.find("expression")) b.error("value", "expression and value are mutually exclusive");
  if (out.find("value") && !out.find("source")) b.error("value", "requires source");
  return out;
}

Value decode_json(const Reader& elem, std::string_view key, int) {
  Reader b = elem.object(key);
  Value out = Value::object();
  if (!b.present()) return out;
  const Value* raw = b.node()->find("expressions");
  Reader exprs = b.object("expressions");  // records a type error when not an object
  if (!raw || raw->is_null() || (raw->is_object() && raw->size() == 0))
    b.error("expressions", "must define at least one expression");
  out.set("expressions", exprs.present() ? nullable_string_map(exprs, false) : Value::object());
  copy_string(b, "source", out, "source");
  return out;
}

Value decode_string_list(const Reader& elem, std::string_view key, int) {
  std::vector<std::string> items = elem.strings(key);
  const Value* v = elem.node()->find(key);
  if (v && v->is_array() && v->size() == 0) elem.error(key, "must list at least one label");
  return Value::strings(items);
}

Value decode_labels(const Reader& elem, std::string_view key, int) {
  Reader b = elem.object(key);
  if (!b.present()) return Value::object();
  Value out = nullable_string_map(b, true);
  if (b.node()->size() == 0) b.error_at(b.path(), "must define at least one label");
  return out;
}

Value decode_limit(const Reader& elem, std::string_view key, int) {
  Reader b = elem.object(key);
  Value out = Value::object();
  if (!b.present()) return out;
  if (auto rate = b.integer("rate"); rate && *rate != 0) out.set("rate", *rate);
  if (auto burst = b.integer("burst"); burst && *burst != 0) out.set("burst", *burst);
  out.set("drop", b.boolean("drop").value_or(false));
  return out;
}

Value decode_multiline(const Reader& elem, std::string_view key, int) {
  Reader b = elem.object(key);
  Value out = Value::object();
  if (!b.present()) return out;
  copy_regexp(b, "firstLine", out, "firstline", true);
  copy_string(b, "maxWaitTime", out, "max_wait_time");
  if (auto n = b.integer("maxLines"); n && *n != 0) out.set("max_lines", *n);
  return out;
}

Value decode_output(const Reader& elem, std::string_view key, int) {
  Reader b = elem.object(key);
  Value out = Value::object();
  if (!b.present()) return out;
  out.set("source", required_string(b, "source"));
  return out;
}

Value decode_pack(const Reader& elem, std::string_view key, int) {
  Reader b = elem.object(key);
  Value out = Value::object();
  if (!b.present()) return out;
  const Value* labels = b.node()->find("labels");
  if (!labels || labels->is_null()) b.error("labels", "is required");
  out.set_nonempty("labels", Value::strings(b.strings("labels")));
  // Promtail defaults ingest_timestamp to true, so an explicit false must
  // be kept (upstream drops it).
  if (auto ts = b.boolean("ingestTimestamp")) out.set("ingest_timestamp", *ts);
  return out;
}

Value decode_regex(const Reader& elem, std::string_view key, int) {
  Reader b = elem.object(key);
  Value out = Value::object();
  if (!b.present()) return out;
  copy_regexp(b, "expression", out, "expression", true);
  copy_string(b, "source", out, "source");
  return out;
}

Value decode_replace(const Reader& elem, std::string_view key, int) {
  Reader b = elem.object(key);
  Value out = Value::object();
  if (!b.present()) return out;
  copy_regexp(b, "expression", out, "expression", true);
  copy_string(b, "source", out, "source");
  copy_string(b, "replace", out, "replace");
  return out;
}

Value decode_template(const Reader& elem, std::string_view key, int) {
  Reader b = elem.object(key);
  Value out = Value::object();
  if (!b.present()) return out;
  out.set("source", required_string(b, "source"));
  out.set("template", required_string(b, "template"));
  return out;
}

Value decode_tenant(const Reader& elem, std::string_view key, int) {
  Reader b = elem.object(key);
  Value out = Value::object();
  if (!b.present()) return out;
  copy_string(b, "label", out, "label");
  copy_string(b, "source", out, "source");
  copy_string(b, "value", out, "value");
  if (out.size() == 0) b.error_at(b.path(), "needs one of label, source or value");
  return out;
}

Value decode_timestamp(const Reader& elem, std::string_view key, int) {
  Reader b = elem.object(key);
  Value out = Value::object();
  if (!b.present()) return out;
  out.set("source", required_string(b, "source"));
  out.set("format", required_string(b, "format"));
  out.set_nonempty("fallback_formats", Value::strings(b.strings("fallbackFormats")));
  copy_string(b, "location", out, "location");
  std::string on_failure = b.str_or("actionOnFailure");
  if (!on_failure.empty() && check_enum(b, "actionOnFailure", on_failure, {"fudge", "skip"}, false))
    out.set("action_on_failure", on_failure);
  return out;
}

}  // namespace model::stage_decoders
