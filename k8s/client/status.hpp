// Internal: reads a Kubernetes Status object out of an error response.
// Contract: fill_status() sets Result::error from the Status message (or
// "HTTP <status>" when the body is not a Status) and Result::reason from
// its reason; it never throws.
#pragma once

#include "k8s/client/transport.hpp"

namespace k8s {

void fill_status(Result& r);

}  // namespace k8s
