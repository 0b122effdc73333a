// What an informer's failed list or watch most likely means, in words a
// user can act on: a 404 from a custom resource's list is a CRD that is not
// installed (not an unreachable API server), a 403 is missing RBAC, a 401
// rejected credentials, no HTTP answer an unreachable API server.
// Contract: pure; the entry carries the kind, the HTTP status and the
// client's error text, never a credential (the client's errors hold none).
#pragma once

#include <string>
#include <string_view>

#include "model/log.hpp"

namespace actors::core {

// The API resource an informer lists: its group ("" for core) and plural.
struct ListedResource {
  std::string_view group, plural;
};

// The likely cause of a failed list or watch with HTTP `status` (0: no
// answer); "" when there is nothing more to say than the error itself.
std::string list_failure_cause(const ListedResource& r, int status);

// The informer's warning for one failed list or watch, retried: msg "CRD
// not installed; retrying" (with the CRD's name and where to find it) for a
// 404 of a custom resource, else "list or watch failed; retrying" with the
// cause when one is known.
model::LogEntry list_failure_entry(const std::string& kind, const ListedResource& r, int status,
                                   const std::string& error);

}  // namespace actors::core
