// The TokenReview API (POST /apis/authentication.k8s.io/v1/tokenreviews),
// which servers call to learn who sent them a bearer token (the target
// allocator and the operator's agent endpoints, as a delegated
// authenticator would). The answer is the request with its status filled
// in, created (201) and never stored.
#include "k8s/sim/access.hpp"
#include "k8s/sim/api_error.hpp"
#include "k8s/sim/rest_util.hpp"
#include "k8s/sim/store_meta.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace k8s::sim {

using model::Value;

namespace {

std::vector<std::string> strings_at(const Value& spec, const char* key) {
  std::vector<std::string> out;
  if (const Value* a = spec.find(key); a && a->is_array())
    for (const Value& item : a->as_array())
      if (item.is_string()) out.push_back(item.as_string());
  return out;
}

// status as kube-apiserver encodes it: `authenticated` and an empty `error`
// are left out when false or empty (omitempty); `user` is always there.
Value review_status(const Access::TokenReview& r) {
  Value status = Value::object();
  Value user = Value::object();
  if (r.user) {
    status.set("authenticated", true);
    user.set("username", r.user->name);
    user.set_nonempty("uid", r.uid);
    user.set("groups", Value::strings(r.user->groups));
  }
  status.set("user", std::move(user));
  status.set_nonempty("audiences", Value::strings(r.audiences));
  status.set_nonempty("error", r.error);
  return status;
}

// The body, checked as the server decodes a TokenReview: the type, the
// fields (fieldValidation), no namespace, a token.
Value checked_review(const Cluster& cluster, const HttpRequest& r, std::vector<std::string>& warnings) {
  Value body = parse_body(r);
  if (body.is_object() && !meta_string(body, "namespace").empty())
    throw ApiError::bad_request("namespace is not allowed on this type: " + meta_string(body, "namespace"));
  auto type = cluster.find_type("authentication.k8s.io", "v1", "tokenreviews");
  if (body.is_object() && !body.find("metadata")) body.set("metadata", Value::object());
  cluster.check_review(*type, body, write_options(r), warnings);
  const Value* spec = body.find("spec");
  const Value* token = spec ? spec->find("token") : nullptr;
  if (!token || !token->is_string() || token->as_string().empty())
    throw ApiError::bad_request("token is required for TokenReview in authentication");
  return body;
}

}  // namespace

bool Access::is_token_review(const HttpRequest& r) {
  auto p = split_path(r.path);
  return r.method == "POST" && p.size() == 4 && p[0] == "apis" && p[1] == "authentication.k8s.io" && p[2] == "v1" &&
         p[3] == "tokenreviews";
}

HttpResponse Access::token_review(const HttpRequest& r) {
  return created([&](std::vector<std::string>& warnings) {
    Value body = checked_review(cluster_, r, warnings);
    Value& spec = *body.find("spec");
    std::vector<std::string> audiences = strings_at(spec, "audiences");
    // Without audiences the review asks about the API server's own.
    TokenReview review = this->review(spec.find("token")->as_string(),
                                      audiences.empty() ? std::vector<std::string>{kApiAudience} : audiences);
    body.find("metadata")->set("creationTimestamp", Value());
    body.set("status", review_status(review));
    return body;
  });
}

}  // namespace k8s::sim
