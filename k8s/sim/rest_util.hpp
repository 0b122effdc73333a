// Request decoding shared by the REST handlers (internal to k8s/sim):
// bodies, write options (dryRun, fieldValidation) and patch types, plus
// the /scale subresource.
// Contract: every function throws ApiError with the real server's code on
// malformed input (400, 415).
#pragma once

#include <string>

#include "k8s/sim/api.hpp"
#include "k8s/sim/cluster.hpp"

namespace k8s::sim {

// JSON or YAML; protobuf and CBOR bodies are a 415.
model::Value parse_body(const HttpRequest& r);
WriteOptions write_options(const HttpRequest& r);
PatchType patch_type(const std::string& content_type);

// GET, PUT or PATCH on <workload>/scale (autoscaling/v1 Scale).
HttpResponse scale_request(Cluster& cluster, const HttpRequest& req, const ResourceType& t, const std::string& ns,
                           const std::string& name);

}  // namespace k8s::sim
