#include "k8s/sim/api_error.hpp"

namespace k8s::sim {

using model::Value;

ApiError::ApiError(int code, std::string reason, std::string message, Value details)
    : std::runtime_error(std::move(message)), code_(code), reason_(std::move(reason)), details_(std::move(details)) {}

Value ApiError::status() const {
  Value s = Value::obj({{"kind", "Status"},
                        {"apiVersion", "v1"},
                        {"metadata", Value::object()},
                        {"status", "Failure"},
                        {"message", what()},
                        {"reason", reason_},
                        {"code", code_}});
  if (!details_.is_null()) s.set("details", details_);
  return s;
}

std::string qualified_resource(const std::string& group, const std::string& resource) {
  return group.empty() ? resource : resource + "." + group;
}

namespace {

Value resource_details(const std::string& group, const std::string& kind, const std::string& name) {
  Value d = Value::object();
  d.set_nonempty("name", name);
  d.set_nonempty("group", group);
  d.set("kind", kind);
  return d;
}

}  // namespace

ApiError ApiError::not_found(const std::string& group, const std::string& resource, const std::string& name) {
  return ApiError(404, "NotFound", qualified_resource(group, resource) + " \"" + name + "\" not found",
                  resource_details(group, resource, name));
}

ApiError ApiError::already_exists(const std::string& group, const std::string& resource, const std::string& name) {
  return ApiError(409, "AlreadyExists", qualified_resource(group, resource) + " \"" + name + "\" already exists",
                  resource_details(group, resource, name));
}

ApiError ApiError::conflict(const std::string& group, const std::string& resource, const std::string& name,
                            const std::string& why) {
  return ApiError(
      409, "Conflict",
      "Operation cannot be fulfilled on " + qualified_resource(group, resource) + " \"" + name + "\": " + why,
      resource_details(group, resource, name));
}

ApiError ApiError::invalid(const std::string& group, const std::string& kind, const std::string& name,
                           const std::vector<Cause>& causes) {
  std::string message = qualified_resource(group, kind) + " \"" + name + "\" is invalid: ";
  Value details = resource_details(group, kind, name);
  Value list = Value::array();
  for (std::size_t i = 0; i < causes.size(); ++i) {
    const Cause& c = causes[i];
    std::string text = c.field.empty() ? c.message : c.field + ": " + c.message;
    if (causes.size() > 1) message += (i == 0 ? "[" : ", ");
    message += text;
    list.push(Value::obj({{"reason", c.reason}, {"message", c.message}, {"field", c.field}}));
  }
  if (causes.size() > 1) message += "]";
  details.set("causes", std::move(list));
  return ApiError(422, "Invalid", message, std::move(details));
}

ApiError ApiError::expired(const std::string& message) {
  return ApiError(410, "Expired", message);
}

ApiError ApiError::bad_request(const std::string& message) {
  return ApiError(400, "BadRequest", message);
}

ApiError ApiError::method_not_allowed(const std::string& message) {
  return ApiError(405, "MethodNotAllowed", message);
}

ApiError ApiError::unsupported_media_type(const std::string& accepted) {
  return ApiError(415, "UnsupportedMediaType",
                  "the body of the request was in an unknown format - accepted media types include: " + accepted);
}

ApiError ApiError::request_entity_too_large(std::size_t limit) {
  return ApiError(413, "RequestEntityTooLarge", "Request entity too large: limit is " + std::to_string(limit));
}

ApiError ApiError::internal(const std::string& message) {
  return ApiError(500, "InternalError", message);
}

}  // namespace k8s::sim
