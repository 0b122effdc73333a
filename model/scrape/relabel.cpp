// Relabel rules of the metrics scrape jobs: fixed rules, label selectors
// as keep/drop rules, CRD relabelings in Prometheus form and the sharding
// pair.
#include <algorithm>
#include <cctype>
#include <cstring>

#include "model/scrape/common.hpp"

namespace model::scrape {
namespace {

std::string join_values(const std::vector<std::string>& values, bool quote) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += '|';
    out += quote ? quote_regexp(values[i]) : values[i];
  }
  return out;
}

Value rule(std::vector<std::string> sources, std::string regex, const char* action) {
  return Value::obj({{"source_labels", Value::strings(sources)}, {"regex", std::move(regex)}, {"action", action}});
}

// "<value>;<present>" must match "(<alternatives>);true": values match
// literally and an absent label never matches.
Value value_rule(const std::string& prefix, const std::string& key, const std::string& alternatives,
                 const char* action) {
  std::string k = sanitize_label_name(key);
  return rule({prefix + "label_" + k, prefix + "labelpresent_" + k}, "(" + alternatives + ");true", action);
}

Value presence_rule(const std::string& prefix, const std::string& key, const char* action) {
  return match_rule(prefix + "labelpresent_" + sanitize_label_name(key), "true", action);
}

Value requirement_rule(const Requirement& r, const std::string& prefix, bool compat) {
  if (r.op == "Exists") return presence_rule(prefix, r.key, "keep");
  if (r.op == "DoesNotExist") return presence_rule(prefix, r.key, "drop");
  const char* action = r.op == "In" ? "keep" : "drop";
  if (compat) return match_rule(prefix + "label_" + sanitize_label_name(r.key), join_values(r.values, false), action);
  return value_rule(prefix, r.key, join_values(r.values, true), action);
}

// After sanitising, a label name must not be empty or start with a digit.
bool valid_label_name(const std::string& sanitized) {
  return !sanitized.empty() && !(sanitized[0] >= '0' && sanitized[0] <= '9');
}

}  // namespace

std::string quote_regexp(std::string_view s) {
  static const char* const kSpecial = "\\.+*?()|[]{}^$";
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c != '\0' && std::strchr(kSpecial, c)) out += '\\';
    out += c;
  }
  return out;
}

Value copy_rule(const std::string& source, const std::string& target) {
  return Value::obj({{"source_labels", Value::arr({source})}, {"target_label", target}});
}

Value nonempty_copy_rule(const std::string& source, const std::string& target) {
  return Value::obj(
      {{"source_labels", Value::arr({source})}, {"target_label", target}, {"regex", "(.+)"}, {"replacement", "$1"}});
}

Value set_rule(const std::string& target, const std::string& value) {
  return Value::obj({{"target_label", target}, {"replacement", value}});
}

Value match_rule(const std::string& source, const std::string& regex, const char* action) {
  return rule({source}, regex, action);
}

void append_selector_rules(Value& rules, const LabelSelector& selector, const std::string& meta_prefix, bool compat) {
  for (const auto& [key, value] : selector.match_labels) {  // std::map: sorted by key, as upstream sorts
    if (compat)
      rules.push(match_rule(meta_prefix + "label_" + sanitize_label_name(key), value, "keep"));
    else
      rules.push(value_rule(meta_prefix, key, quote_regexp(value), "keep"));
  }
  for (const auto& r : selector.match_expressions) rules.push(requirement_rule(r, meta_prefix, compat));
}

Value relabel_rule(const RelabelConfig& c, bool compat) {
  Value out = Value::object();
  out.set_nonempty("source_labels", Value::strings(c.source_labels));
  // An explicit "" is kept (outside compat mode) only where it means
  // something different from the default: separator and replacement. An
  // empty regex, target_label or action is dropped, as upstream and
  // prometheus-operator do, so Prometheus applies its defaults.
  auto put = [&](const char* key, const std::optional<std::string>& v, bool keep_empty) {
    if (!v) return;
    if (compat || !keep_empty)
      out.set_nonempty(key, *v);
    else
      out.set(key, *v);
  };
  put("separator", c.separator, true);
  put("regex", c.regex, false);
  if (c.modulus && *c.modulus != 0) out.set("modulus", *c.modulus);
  put("target_label", c.target_label, false);
  put("replacement", c.replacement, true);
  put("action", c.action, false);
  return out;
}

Value relabel_rules(const std::vector<RelabelConfig>& rules, bool compat) {
  Value out = Value::array();
  for (const auto& r : rules) out.push(relabel_rule(r, compat));
  return out;
}

Value metric_relabel_rules(const std::vector<RelabelConfig>& rules, const std::string& enforced_label, bool compat) {
  Value out = Value::array();
  for (const auto& r : rules) {
    bool targets_enforced = !enforced_label.empty() && r.target_label && *r.target_label == enforced_label;
    if (!targets_enforced) out.push(relabel_rule(r, compat));
  }
  return out;
}

void append_sharding(Value& rules, const std::string& source, std::int64_t shards) {
  if (shards == kNoSharding) return;
  rules.push(Value::obj({{"source_labels", Value::arr({source})},
                         {"target_label", "__tmp_hash"},
                         {"modulus", shards},
                         {"action", "hashmod"}}));
  rules.push(match_rule("__tmp_hash", "$(SHARD)", "keep"));
}

void append_label_copies(Value& rules, const std::vector<std::string>& labels, const std::string& meta_prefix) {
  for (const auto& label : labels) {
    std::string target = sanitize_label_name(label);
    if (valid_label_name(target)) rules.push(nonempty_copy_rule(meta_prefix + "label_" + target, target));
  }
}

void check_label_names(const std::vector<std::string>& labels, const std::string& field, AssetRefs& assets) {
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (!valid_label_name(sanitize_label_name(labels[i])))
      assets.error(field + "[" + std::to_string(i) + "]", "\"" + labels[i] + "\" cannot be used as a label name");
}

bool has_hashmod(const Value& rules) {
  if (!rules.is_array()) return false;
  for (const auto& r : rules.as_array()) {
    const Value* action = r.find("action");
    if (!action || !action->is_string()) continue;
    std::string a = action->as_string();
    std::transform(a.begin(), a.end(), a.begin(), [](unsigned char c) { return std::tolower(c); });
    if (a == "hashmod") return true;
  }
  return false;
}

}  // namespace model::scrape
