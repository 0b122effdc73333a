#include "k8s/sim/rest_util.hpp"

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/protobuf.hpp"
#include "model/parse.hpp"

namespace k8s::sim {

using model::Value;

Value parse_body(const HttpRequest& r) {
  if (r.content_type.rfind("application/vnd.kubernetes.protobuf", 0) == 0) return decode_protobuf_object(r.body);
  if (r.content_type.find("protobuf") != std::string::npos || r.content_type.find("cbor") != std::string::npos)
    throw ApiError::unsupported_media_type("application/json, application/yaml");
  if (r.content_type.find("yaml") != std::string::npos) {
    auto docs = model::parse_documents(r.body, "body");
    if (docs.empty()) throw ApiError::bad_request("empty request body");
    return std::move(docs.front().value);
  }
  return model::parse_json(r.body, "body");
}

WriteOptions write_options(const HttpRequest& r) {
  WriteOptions o;
  std::string dry = r.param("dryRun"), v = r.param("fieldValidation");
  if (!dry.empty() && dry != "All") throw ApiError::bad_request("Invalid dry run value: " + dry);
  o.dry_run = dry == "All";
  if (v == "Strict")
    o.validation = FieldValidation::strict;
  else if (v == "Ignore")
    o.validation = FieldValidation::ignore;
  else if (v.empty() || v == "Warn")
    o.validation = FieldValidation::warn;
  else
    throw ApiError::bad_request("fieldValidation must be one of \"Ignore\", \"Warn\", or \"Strict\", got " + v);
  return o;
}

PatchType patch_type(const std::string& content_type) {
  std::string ct = content_type.substr(0, content_type.find(';'));
  if (ct == "application/merge-patch+json") return PatchType::merge;
  if (ct == "application/json-patch+json") return PatchType::json;
  if (ct == "application/strategic-merge-patch+json") return PatchType::strategic;
  throw ApiError::unsupported_media_type(
      "application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json");
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

}  // namespace k8s::sim
