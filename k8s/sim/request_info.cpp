#include "k8s/sim/request_info.hpp"

#include <cctype>

#include "k8s/sim/rest_util.hpp"
#include "model/text.hpp"

namespace k8s::sim {

using model::Value;

namespace {

std::string method_verb(const std::string& method) {
  if (method == "POST") return "create";
  if (method == "GET" || method == "HEAD") return "get";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return "delete";
  return "";
}

// X of a fieldSelector term "metadata.name=X" or "metadata.name==X".
std::string selected_name(const std::string& selector) {
  std::size_t start = 0;
  while (start <= selector.size()) {
    std::size_t comma = selector.find(',', start);
    if (comma == std::string::npos) comma = selector.size();
    std::string term = selector.substr(start, comma - start);
    for (const char* prefix : {"metadata.name==", "metadata.name="})
      if (term.rfind(prefix, 0) == 0) {
        std::string name = term.substr(std::string(prefix).size());
        return name.find('/') == std::string::npos && name != "." && name != ".." ? name : "";
      }
    start = comma + 1;
  }
  return "";
}

// resource/name/subresource after /namespaces/NS (namespaces' own status
// and finalize stay subresources of the namespace).
void read_parts(std::vector<std::string> parts, RequestAttributes& a) {
  if (parts[0] == "namespaces" && parts.size() > 1) {
    a.ns = parts[1];
    if (parts.size() > 2 && parts[2] != "status" && parts[2] != "finalize")
      parts.erase(parts.begin(), parts.begin() + 2);
  }
  a.resource = parts[0];
  if (parts.size() >= 2) a.name = parts[1];
  if (parts.size() >= 3) a.subresource = parts[2];
}

}  // namespace

RequestAttributes request_attributes(const HttpRequest& r) {
  RequestAttributes a;
  a.path = r.path;
  a.verb = model::ascii_lower(r.method);
  std::vector<std::string> parts = split_path(r.path);
  bool core = !parts.empty() && parts[0] == "api", grouped = !parts.empty() && parts[0] == "apis";
  std::size_t prefix = core ? 2 : 3;  // api/VERSION | apis/GROUP/VERSION
  if ((!core && !grouped) || parts.size() <= prefix) return a;
  a.resource_request = true;
  a.api_group = core ? "" : parts[1];
  a.api_version = parts[prefix - 1];
  parts.erase(parts.begin(), parts.begin() + static_cast<long>(prefix));
  bool watch_prefix = parts[0] == "watch";
  if (watch_prefix && parts.size() < 2) return a;  // the real server answers 404 here anyway
  if (watch_prefix) parts.erase(parts.begin());
  a.verb = watch_prefix ? "watch" : method_verb(r.method);
  read_parts(std::move(parts), a);
  if (a.name.empty() && a.verb == "get") {
    a.verb = r.flag("watch") ? "watch" : "list";
    a.name = selected_name(r.param("fieldSelector"));
  }
  if (a.name.empty() && a.verb == "delete") a.verb = "deletecollection";
  return a;
}

std::string forbidden_message(const RequestAttributes& a, const std::string& reason) {
  std::string user = "User \"" + a.user.name + "\" cannot " + a.verb;
  std::string why;
  if (!a.resource_request) {
    why = user + " path \"" + a.path + "\"";
  } else {
    std::string resource = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
    why = user + " resource \"" + resource + "\" in API group \"" + a.api_group + "\"" +
          (a.ns.empty() ? " at the cluster scope" : " in the namespace \"" + a.ns + "\"");
  }
  if (!reason.empty()) why += ": " + reason;
  if (!a.resource_request) return "forbidden: " + why;
  std::string qualified = qualified_resource(a.api_group, a.resource);
  return a.name.empty() ? qualified + " is forbidden: " + why : qualified + " \"" + a.name + "\" is forbidden: " + why;
}

ApiError forbidden(const RequestAttributes& a, const std::string& reason) {
  Value details = Value::object();
  if (a.resource_request) {
    details.set_nonempty("name", a.name);
    details.set_nonempty("group", a.api_group);
    details.set_nonempty("kind", a.resource);
  }
  return ApiError(403, "Forbidden", forbidden_message(a, reason), std::move(details));
}

}  // namespace k8s::sim
