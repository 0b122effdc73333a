// API errors as the Kubernetes API server reports them: an HTTP code, a
// machine-readable reason and a message, serialised as a meta/v1 Status.
// Contract: every failing store or server operation throws ApiError; the
// factories reproduce the real server's reasons, codes and message texts.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "model/value.hpp"

namespace k8s::sim {

// One entry of details.causes, e.g. {FieldValueInvalid, "spec.x", "..."}.
struct Cause {
  std::string reason;
  std::string field;
  std::string message;
};

class ApiError : public std::runtime_error {
 public:
  ApiError(int code, std::string reason, std::string message, model::Value details = {});

  int code() const { return code_; }
  const std::string& reason() const { return reason_; }
  const model::Value& details() const { return details_; }
  // The meta/v1 Status object sent to clients.
  model::Value status() const;

  // `resource` is the plural ("configmaps"), `group` may be empty.
  static ApiError not_found(const std::string& group, const std::string& resource, const std::string& name);
  static ApiError already_exists(const std::string& group, const std::string& resource, const std::string& name);
  static ApiError conflict(const std::string& group, const std::string& resource, const std::string& name,
                           const std::string& why);
  // `kind` is the Kind ("ConfigMap"); causes list every invalid field.
  static ApiError invalid(const std::string& group, const std::string& kind, const std::string& name,
                          const std::vector<Cause>& causes);
  static ApiError expired(const std::string& message);
  static ApiError bad_request(const std::string& message);
  static ApiError method_not_allowed(const std::string& message);
  // `accepted` lists the media types the endpoint takes, comma separated.
  static ApiError unsupported_media_type(const std::string& accepted);
  static ApiError internal(const std::string& message);
  // 413: a request body over the server's limit of `limit` bytes.
  static ApiError request_entity_too_large(std::size_t limit);

 private:
  int code_;
  std::string reason_;
  model::Value details_;
};

// "configmaps" or "deployments.apps": how the server names a resource in messages.
std::string qualified_resource(const std::string& group, const std::string& resource);

}  // namespace k8s::sim
