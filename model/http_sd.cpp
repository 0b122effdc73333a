#include "model/http_sd.hpp"

#include <cctype>

#include "model/meta.hpp"
#include "model/parse.hpp"
#include "model/text.hpp"
#include "model/yaml_emit.hpp"

namespace model {

namespace {

[[noreturn]] void fail(const std::string& field, const std::string& problem) {
  throw HttpSdError(field + ": " + problem);
}

HttpSdGroup parse_group(const Value& item, const std::string& field) {
  if (!item.is_object()) fail(field, item.is_null() ? "nil target group item found" : "must be an object");
  HttpSdGroup group;
  if (const Value* l = item.find("labels"); l && !l->is_null()) {
    if (!l->is_object()) fail(field + ".labels", "must be a map of strings");
    for (const auto& [k, v] : l->as_object()) {
      if (!is_label_name(k)) fail(field + ".labels", "\"" + k + "\" is not a valid label name");
      if (!v.is_string()) fail(field + ".labels." + k, "must be a string");
      group.labels[k] = v.as_string();
    }
  }
  if (const Value* t = item.find("targets"); t && !t->is_null()) {
    if (!t->is_array()) fail(field + ".targets", "must be a list of strings");
    for (std::size_t i = 0; i < t->as_array().size(); ++i) {
      const Value& address = t->as_array()[i];
      if (!address.is_string()) fail(field + ".targets[" + std::to_string(i) + "]", "must be a string");
      group.targets.push_back(address.as_string());
    }
  }
  return group;
}

}  // namespace

bool etag_matches(std::string_view if_none_match, std::string_view etag) {
  std::size_t start = 0;
  while (start <= if_none_match.size()) {
    const std::size_t comma = if_none_match.find(',', start);
    std::string_view tag =
        trim_header_space(if_none_match.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (tag.starts_with("W/")) tag.remove_prefix(2);
    if (tag == "*" || (!tag.empty() && tag == etag)) return true;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return false;
}

std::string_view trim_header_space(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

void check_http_sd_response(int status, std::string_view content_type) {
  if (status != 200) fail("status", "server returned HTTP status " + std::to_string(status));
  // Prometheus's pattern: application/json(;\s*charset=("utf-8"|utf-8))?, case-insensitive.
  const std::string type = model::ascii_lower(trim_header_space(content_type));
  std::string_view rest = type;
  if (rest.starts_with("application/json")) {
    rest.remove_prefix(16);
    if (rest.empty()) return;
    if (rest.front() == ';') {
      rest.remove_prefix(1);
      while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) rest.remove_prefix(1);
      if (rest == "charset=utf-8" || rest == "charset=\"utf-8\"") return;
    }
  }
  fail("Content-Type", "unsupported content type \"" + std::string(content_type) + "\"");
}

std::vector<HttpSdGroup> parse_http_sd(std::string_view body, std::string_view source) {
  Value doc;
  try {
    doc = parse_json(body, std::string(source));
  } catch (const ParseError& e) {
    fail("body", std::string("invalid JSON: ") + e.what());
  }
  if (!doc.is_array()) fail("body", "must be a JSON array of target groups");
  std::vector<HttpSdGroup> out;
  out.reserve(doc.as_array().size());
  for (std::size_t i = 0; i < doc.as_array().size(); ++i)
    out.push_back(parse_group(doc.as_array()[i], "[" + std::to_string(i) + "]"));
  return out;
}

// Written as text, keys in to_json's order ("labels" before "targets"):
// the SD aggregator encodes every pod's groups on every answer.
void encode_http_sd_group(const HttpSdGroup& g, std::string& out) {
  out += "{\"labels\":{";
  bool first = true;
  for (const auto& [k, v] : g.labels) {
    if (!first) out += ',';
    first = false;
    emit_json_string(k, out);
    out += ':';
    emit_json_string(v, out);
  }
  out += "},\"targets\":[";
  for (std::size_t i = 0; i < g.targets.size(); ++i) {
    if (i) out += ',';
    emit_json_string(g.targets[i], out);
  }
  out += "]}";
}

std::string encode_http_sd(const std::vector<HttpSdGroup>& groups) {
  std::string out = "[";
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (i) out += ',';
    encode_http_sd_group(groups[i], out);
  }
  out += ']';
  return out;
}

}  // namespace model
