// Request bodies in the Kubernetes protobuf encoding
// (application/vnd.kubernetes.protobuf), which kubectl's typed clients
// send for built-in kinds: `kubectl create namespace|secret|configmap|
// serviceaccount|token`. Decodes the "k8s\0" envelope (runtime.Unknown) and the
// object inside it to the JSON form the rest of the server handles.
// Contract: supports Namespace, Secret, ConfigMap, ServiceAccount and
// TokenRequest (the spec; every
// field of their generated.proto except managedFields and status, which
// a create ignores anyway); Go's omitempty is reproduced (empty strings,
// zero numbers and empty messages are left out, present optional booleans
// kept). Other kinds or malformed bodies throw ApiError 415 / 400 with a
// message saying what is supported.
#pragma once

#include <string_view>

#include "model/value.hpp"

namespace k8s::sim {

model::Value decode_protobuf_object(std::string_view body);

}  // namespace k8s::sim
