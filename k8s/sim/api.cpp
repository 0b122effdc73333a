#include "k8s/sim/api.hpp"

#include <strings.h>

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/discovery.hpp"
#include "k8s/sim/rest_util.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace k8s::sim {

using model::Value;

HttpResponse json_response(const Value& body, int status) {
  HttpResponse r;
  r.status = status;
  r.body = model::to_json(body);
  return r;
}

HttpResponse error_response(const ApiError& e) {
  return json_response(e.status(), e.code());
}

namespace {

const char* kAggregatedType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

ApiError path_not_found() {
  return ApiError(404, "NotFound", "the server could not find the requested resource", Value::object());
}

bool wants_aggregated(const std::string& accept) {
  return accept.find("as=APIGroupDiscoveryList") != std::string::npos && accept.find("v=v2;") != std::string::npos;
}

}  // namespace

std::string HttpRequest::param(const std::string& key) const {
  auto it = query.find(key);
  return it == query.end() ? "" : it->second;
}

bool HttpRequest::flag(const std::string& key) const {
  auto it = query.find(key);
  if (it == query.end()) return false;
  return it->second != "0" && strcasecmp(it->second.c_str(), "false") != 0;
}

Api::Api(Cluster& cluster, ApiOptions options) : cluster_(cluster), options_(std::move(options)), openapi_(cluster) {}

HttpResponse Api::handle(const HttpRequest& request) {
  try {
    return dispatch(request);
  } catch (const ApiError& e) {
    return error_response(e);
  } catch (const model::ParseError& e) {
    return error_response(ApiError::bad_request(std::string("error decoding request body: ") + e.what()));
  } catch (const std::exception& e) {
    return error_response(ApiError::internal(e.what()));
  }
}

HttpResponse Api::discovery(const HttpRequest& request, const std::vector<std::string>& segs) {
  auto types = cluster_.types_snapshot();
  bool aggregated = wants_aggregated(request.accept);
  Value doc;
  if (segs.size() == 1 && aggregated) {
    HttpResponse r = json_response(aggregated_discovery(types, segs[0] == "api"));
    r.content_type = kAggregatedType;
    return r;
  }
  if (segs.size() == 1)
    doc = segs[0] == "api" ? api_versions(options_.server_address) : api_group_list(types);
  else if (segs[0] == "api" && segs.size() == 2)
    doc = api_resource_list(types, "", segs[1]);
  else if (segs[0] == "apis" && segs.size() == 2)
    doc = api_group(types, segs[1]);
  else if (segs[0] == "apis" && segs.size() == 3)
    doc = api_resource_list(types, segs[1], segs[2]);
  if (doc.is_null()) throw path_not_found();
  return json_response(doc);
}

HttpResponse Api::dispatch(const HttpRequest& request) {
  std::vector<std::string> segs = split_path(request.path);
  if (segs.empty()) throw path_not_found();
  const std::string& root = segs[0];
  if (segs.size() == 1 && (root == "healthz" || root == "livez" || root == "readyz")) {
    HttpResponse r;
    r.content_type = "text/plain";
    r.body = "ok";
    return r;
  }
  if (segs.size() == 1 && root == "version") return json_response(version_info());
  if (root == "openapi" && segs.size() >= 2 && segs[1] == "v3") {
    HttpResponse r;
    if (segs.size() == 2)
      r.body = openapi_.index();
    else
      r.body = openapi_.document(request.path.substr(std::string("/openapi/v3/").size()));
    if (r.body.empty()) throw path_not_found();
    if (request.has_param("hash")) r.headers["Cache-Control"] = "public, immutable";
    return r;
  }
  bool is_api = root == "api", is_apis = root == "apis";
  if (!is_api && !is_apis) throw path_not_found();
  std::size_t prefix = is_api ? 2 : 3;  // api/v1 | apis/group/version
  if (segs.size() <= prefix) {
    if (request.method != "GET")
      throw ApiError::method_not_allowed("the server does not allow this method on the requested resource");
    return discovery(request, segs);
  }
  // The API server reads at most 3 MiB of a request body.
  constexpr std::size_t kMaxRequestBodyBytes = 3 * 1024 * 1024;
  if (request.body.size() > kMaxRequestBodyBytes) throw ApiError::request_entity_too_large(kMaxRequestBodyBytes);
  std::string group = is_api ? "" : segs[1], version = is_api ? segs[1] : segs[2];
  return resource(request, group, version,
                  std::vector<std::string>(segs.begin() + static_cast<long>(prefix), segs.end()));
}

std::string watch_event_line(const char* type, const std::string& object_json) {
  std::string out;
  out.reserve(object_json.size() + 32);
  out += "{\"type\":\"";
  out += type;
  out += "\",\"object\":";
  out += object_json;
  out += "}\n";
  return out;
}

}  // namespace k8s::sim
