// Request decoding shared by the REST handlers (internal to k8s/sim):
// bodies, write options (dryRun, fieldValidation) and patch types, plus
// the /scale subresource, and URL path splitting.
// Contract: every function throws ApiError with the real server's code on
// malformed input (400, 415).
#pragma once

#include <string>
#include <vector>

#include "k8s/sim/api.hpp"
#include "k8s/sim/cluster.hpp"

namespace k8s::sim {

// JSON or YAML; protobuf and CBOR bodies are a 415.
model::Value parse_body(const HttpRequest& r);
WriteOptions write_options(const HttpRequest& r);
PatchType patch_type(const std::string& content_type);
// The non-empty segments of a URL path ("/api/v1/pods" -> api, v1, pods).
std::vector<std::string> split_path(const std::string& path);

// GET, PUT or PATCH on <workload>/scale (autoscaling/v1 Scale).
HttpResponse scale_request(Cluster& cluster, const HttpRequest& req, const ResourceType& t, const std::string& ns,
                           const std::string& name);

}  // namespace k8s::sim
