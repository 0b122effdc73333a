// Internal: reads what the client needs from a List response without
// building a tree (simdjson on-demand): metadata.resourceVersion,
// metadata.continue, and the items array as raw JSON text.
// Contract: scan_list() may grow `body`'s capacity (simdjson wants padding)
// but never changes its contents; `items` points into `body`, without the
// brackets. Returns false when the body is not a JSON object.
#pragma once

#include <string>
#include <string_view>

namespace k8s {

struct ListPage {
  std::string resource_version;
  std::string continue_token;
  std::string kind;  // "SecretList"
  std::string api_version;
  std::string_view items;  // "{...},{...}" (may be empty)
};

bool scan_list(std::string& body, ListPage& page);

// Percent-encodes a query parameter value (RFC 3986 unreserved kept).
std::string query_escape(std::string_view value);

}  // namespace k8s
