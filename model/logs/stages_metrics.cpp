// The metrics stage: a map of metric name -> definition. The CRD's flat
// fields split into the metric header (type, description, prefix, source,
// max_idle_duration) and a nested `config` (match_all, count_entry_bytes,
// value, action, buckets) as Promtail expects.
#include <algorithm>
#include <cctype>

#include "model/logs/stage_decoders.hpp"
#include "model/parse.hpp"
#include "model/text.hpp"

namespace model::stage_decoders {
namespace {

bool valid_metric_name(const std::string& s) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool head = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!head && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

// "counter" -> "Counter"; empty when the type is unknown (error recorded).
std::string metric_type(const Reader& m) {
  std::string type = required_string(m, "type");
  if (type.empty() || !check_enum(m, "type", type, {"Counter", "Gauge", "Histogram"}, true)) return {};
  std::string t = model::ascii_lower(type);
  t[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(t[0])));
  return t;
}

// Bucket bounds are strings in the CRD and JSON numbers in the config.
Value buckets(const Reader& m) {
  Value out = Value::array();
  std::vector<std::string> raw = m.strings("buckets");
  for (std::size_t i = 0; i < raw.size(); ++i) {
    std::string path = m.path_of("buckets") + "[" + std::to_string(i) + "]";
    try {
      Value v = parse_json(raw[i], path);
      if (v.is_number()) {
        out.push(std::move(v));
        continue;
      }
    } catch (const ParseError&) {
    }
    m.error_at(path, "\"" + raw[i] + "\" is not a number");
  }
  return out;
}

void check_action(const Reader& m, const std::string& type, const std::string& action) {
  if (type == "Counter") check_enum(m, "action", action, {"inc", "add"}, true);
  if (type == "Gauge") check_enum(m, "action", action, {"set", "inc", "dec", "add", "sub"}, true);
}

void check_counter_options(const Reader& m, const Value& cfg) {
  bool match_all = cfg.find("match_all") != nullptr;
  if (match_all && cfg.find("value")) m.error("matchAll", "cannot be combined with value");
  if (cfg.find("count_entry_bytes")) {
    if (!match_all) m.error("countEntryBytes", "requires matchAll: true");
    const Value* action = cfg.find("action");
    if (action && model::ascii_lower(action->as_string()) != "add") m.error("countEntryBytes", "requires action add");
  }
}

Value decode_metric(const Reader& m) {
  Value out = Value::object();
  std::string type = metric_type(m);
  if (!type.empty()) out.set("type", type);
  copy_string(m, "description", out, "description");
  copy_string(m, "prefix", out, "prefix");
  copy_string(m, "source", out, "source");
  copy_string(m, "maxIdleDuration", out, "max_idle_duration");
  Value cfg = Value::object();
  if (m.flag("matchAll")) cfg.set("match_all", true);
  if (m.flag("countEntryBytes")) cfg.set("count_entry_bytes", true);
  copy_string(m, "value", cfg, "value");
  std::string action = required_string(m, "action");
  if (!action.empty()) {
    check_action(m, type, action);
    cfg.set("action", action);
  }
  cfg.set_nonempty("buckets", buckets(m));
  if (type == "Counter") check_counter_options(m, cfg);
  out.set("config", std::move(cfg));
  return out;
}

}  // namespace

Value decode_metrics(const Reader& elem, std::string_view key, int) {
  Reader b = elem.object(key);
  Value out = Value::object();
  if (!b.present()) return out;
  for (const auto& [name, spec] : b.node()->as_object()) {
    std::string path = b.path_of(name);
    if (!valid_metric_name(name)) b.error_at(path, "invalid metric name \"" + name + "\"");
    if (!spec.is_object()) {
      b.error_at(path, std::string("expected object, got ") + spec.type_name());
      continue;
    }
    out.set(name, decode_metric(Reader(&spec, path, b.errors())));
  }
  return out;
}

}  // namespace model::stage_decoders
