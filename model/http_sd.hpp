// Prometheus HTTP service discovery bodies: what an http_sd endpoint
// answers (a JSON array of {"targets": [strings], "labels": {name: string}})
// and the response checks Prometheus applies (status 200, Content-Type
// application/json, optionally with charset utf-8). The target allocator's
// http_sd_configs and the integrations SD aggregator both read them, and the
// aggregator writes them.
// Contract: pure. parse/check throw HttpSdError naming the offending field
// relative to the body ("[1].labels.foo: must be a string"); unknown keys in
// a group are ignored, as Go's JSON decoder does. encode is deterministic:
// groups as given, keys and labels sorted, exactly as model::to_json would
// write them.
#pragma once

#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/object_fields.hpp"

namespace model {

class HttpSdError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct HttpSdGroup {
  std::vector<std::string> targets;
  Labels labels;
  friend bool operator==(const HttpSdGroup&, const HttpSdGroup&) = default;
};

// An HTTP header value (or one element of a list-valued header) without
// its surrounding whitespace.
std::string_view trim_header_space(std::string_view s);
// Whether an If-None-Match header value names `etag` (quoted): "*", a
// comma-separated list, weak W/ tags compared weakly (RFC 9110).
bool etag_matches(std::string_view if_none_match, std::string_view etag);
// The tag of a body's gzip form: `etag` (quoted) with "-gzip" inside the
// quotes, as another representation needs its own tag; `etag` itself
// when it is not a quoted tag.
std::string gzip_etag(std::string_view etag);
// Whether an Accept-Encoding header value accepts gzip (a "gzip" or "*"
// coding without q=0), per RFC 9110 12.5.3.
bool accepts_gzip(std::string_view accept_encoding);
// Writes `length` bytes of the pieces, joined, from `offset` on through
// `sink` (in blocks of up to 64 KiB), as an HTTP content provider is
// asked to; false as soon as the sink fails.
bool write_pieces(std::span<const std::string_view> pieces, std::size_t offset, std::size_t length,
                  const std::function<bool(const char*, std::size_t)>& sink);

// Throws unless `status` is 200 and `content_type` is application/json.
void check_http_sd_response(int status, std::string_view content_type);
// `source` names the body in JSON syntax errors (a URL, a pod).
std::vector<HttpSdGroup> parse_http_sd(std::string_view body, std::string_view source);
std::string encode_http_sd(const std::vector<HttpSdGroup>& groups);
// One group's JSON object, appended to `out` (for bodies built in pieces).
void encode_http_sd_group(const HttpSdGroup& group, std::string& out);

}  // namespace model
