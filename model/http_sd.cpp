#include "model/http_sd.hpp"

#include <algorithm>
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

bool same_lowercase(std::string_view a, std::string_view lower) {
  if (a.size() != lower.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != lower[i]) return false;
  return true;
}

// A weight of zero ("q=0", "q=0.0", "q=0.000") refuses the coding.
bool refused(std::string_view params) {
  while (!params.empty()) {
    std::size_t semi = params.find(';');
    std::string_view p = trim_header_space(params.substr(0, semi));
    params = semi == std::string_view::npos ? std::string_view{} : params.substr(semi + 1);
    if (p.size() < 2 || (p[0] != 'q' && p[0] != 'Q') || p[1] != '=') continue;
    std::string_view q = p.substr(2);
    return !q.empty() && q.find_first_not_of("0.") == std::string_view::npos;
  }
  return false;
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

std::string gzip_etag(std::string_view etag) {
  if (etag.size() < 2) return std::string(etag);
  std::string out(etag.substr(0, etag.size() - 1));
  return out + "-gzip\"";
}

bool accepts_gzip(std::string_view accept_encoding) {
  bool gzip = false, star = false, gzip_named = false;
  while (!accept_encoding.empty()) {
    std::size_t comma = accept_encoding.find(',');
    std::string_view item = accept_encoding.substr(0, comma);
    accept_encoding = comma == std::string_view::npos ? std::string_view{} : accept_encoding.substr(comma + 1);
    std::size_t semi = item.find(';');
    std::string_view coding = trim_header_space(item.substr(0, semi));
    bool ok = semi == std::string_view::npos || !refused(item.substr(semi + 1));
    if (same_lowercase(coding, "gzip") || same_lowercase(coding, "x-gzip")) {
      gzip_named = true;
      gzip = gzip || ok;
    } else if (coding == "*") {
      star = ok;
    }
  }
  // An explicit gzip entry overrides "*" (RFC 9110 12.5.3).
  return gzip_named ? gzip : star;
}

bool write_pieces(std::span<const std::string_view> pieces, std::size_t offset, std::size_t length,
                  const std::function<bool(const char*, std::size_t)>& sink) {
  // Each sink call is a send() on a TCP_NODELAY socket: small pieces are
  // gathered into blocks, or a body of a few hundred chunks costs as many
  // packets.
  constexpr std::size_t kBlock = 64 * 1024;
  std::string block;
  block.reserve(std::min(length, kBlock));
  for (std::string_view p : pieces) {
    if (length == 0) break;
    if (offset >= p.size()) {
      offset -= p.size();
      continue;
    }
    const std::string_view part = p.substr(offset, std::min(length, p.size() - offset));
    offset = 0;
    length -= part.size();
    if (block.size() + part.size() > kBlock && !block.empty()) {
      if (!sink(block.data(), block.size())) return false;
      block.clear();
    }
    if (part.size() >= kBlock) {
      if (!sink(part.data(), part.size())) return false;
    } else {
      block += part;
    }
  }
  return block.empty() || sink(block.data(), block.size());
}

}  // namespace model
