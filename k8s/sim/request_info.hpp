// Authorization attributes of an HTTP request, derived as k8s.io/apiserver's
// RequestInfoFactory does, and the 403 Forbidden the real server answers
// when they are denied.
// Contract: pure. /api/v1/... and /apis/GROUP/VERSION/... with a resource
// are resource requests (verb from the method: GET on a collection is list,
// or watch with ?watch or the /watch/ prefix; DELETE on a collection is
// deletecollection; a list or watch with fieldSelector metadata.name=X
// names X); every other path is a non-resource request whose verb is the
// lower-case method.
#pragma once

#include "k8s/sim/api.hpp"
#include "k8s/sim/api_error.hpp"
#include "k8s/sim/rbac.hpp"

namespace k8s::sim {

// Every field but `user`.
RequestAttributes request_attributes(const HttpRequest& request);

// The message of a denial, e.g. `pods "p" is forbidden: User "u" cannot get
// resource "pods" in API group "" in the namespace "ns"` (": <reason>"
// appended when the authorizer gave one).
std::string forbidden_message(const RequestAttributes& a, const std::string& reason);
ApiError forbidden(const RequestAttributes& a, const std::string& reason);

}  // namespace k8s::sim
