// The TokenRequest API (POST .../serviceaccounts/NAME/token), which
// `kubectl create token` calls: it mints a ServiceAccount token for the
// audiences asked (the API server's by default) that Access::review accepts
// until it expires or the ServiceAccount goes.
#include "k8s/sim/access.hpp"
#include "k8s/sim/api_error.hpp"
#include "k8s/sim/rest_util.hpp"
#include "k8s/sim/store_meta.hpp"
#include "k8s/sim/tls.hpp"
#include "model/parse.hpp"
#include "model/yaml_emit.hpp"

namespace k8s::sim {

using model::Value;

namespace {

// spec.expirationSeconds, defaulted and bounded as the API server does.
std::int64_t expiration_seconds(const Value& spec, const std::string& name) {
  const Value* e = spec.find("expirationSeconds");
  if (!e || e->is_null()) return 3600;
  std::int64_t s = e->is_int() ? e->as_int() : 0;
  if (s < 600)
    throw ApiError::invalid(
        "authentication.k8s.io", "TokenRequest", name,
        {{"FieldValueInvalid", "spec.expirationSeconds",
          "Invalid value: " + std::to_string(s) + ": may not specify a duration less than 10 minutes"}});
  return s;
}

// spec.audiences, or the API server's when none are given.
std::vector<std::string> audiences_of(const Value& spec) {
  std::vector<std::string> out;
  if (const Value* a = spec.find("audiences"); a && a->is_array())
    for (const Value& item : a->as_array())
      if (item.is_string()) out.push_back(item.as_string());
  if (out.empty()) out.push_back(kApiAudience);
  return out;
}

Value token_request_body(const std::string& ns, const std::string& name, const Value& spec, std::int64_t seconds,
                         const std::string& token, const std::string& expires) {
  Value aud = Value::strings(audiences_of(spec));
  const Value* bound = spec.find("boundObjectRef");
  return Value::obj(
      {{"kind", "TokenRequest"},
       {"apiVersion", "authentication.k8s.io/v1"},
       {"metadata", Value::obj({{"name", name}, {"namespace", ns}, {"creationTimestamp", Value()}})},
       {"spec",
        Value::obj({{"audiences", aud}, {"expirationSeconds", seconds}, {"boundObjectRef", bound ? *bound : Value()}})},
       {"status", Value::obj({{"token", token}, {"expirationTimestamp", expires}})}});
}

}  // namespace

bool Access::is_token_request(const HttpRequest& r) {
  auto p = split_path(r.path);
  return r.method == "POST" && p.size() == 7 && p[0] == "api" && p[1] == "v1" && p[2] == "namespaces" &&
         p[4] == "serviceaccounts" && p[6] == "token";
}

std::string Access::mint(const std::string& ns, const std::string& name, std::chrono::seconds lifetime,
                         std::vector<std::string> audiences) {
  auto sa = cluster_.store().get(*cluster_.find_type("", "v1", "serviceaccounts"), ns, name);
  std::string token = "simcluster-sa." + random_token();
  std::lock_guard lock(mutex_);
  tokens_[token] = {ns, name, meta_string(sa->value, "uid"), cluster_.clock().now() + lifetime, std::move(audiences)};
  return token;
}

HttpResponse Access::created(const std::function<Value(std::vector<std::string>& warnings)>& make) {
  HttpResponse out;
  try {
    Value object = make(out.warnings);
    out.status = 201;
    out.body = model::to_json(object);
  } catch (const ApiError& e) {
    out.status = e.code();
    out.body = model::to_json(e.status());
  } catch (const model::ParseError& e) {
    ApiError bad = ApiError::bad_request(std::string("error decoding request body: ") + e.what());
    out.status = bad.code();
    out.body = model::to_json(bad.status());
  }
  return out;
}

HttpResponse Access::token_request(const HttpRequest& r) {
  auto p = split_path(r.path);
  const std::string &ns = p[3], &name = p[5];
  return created([&](std::vector<std::string>&) {
    Value body = r.body.empty() ? Value::object() : parse_body(r);
    const Value* spec = body.find("spec");
    Value empty = Value::object();
    if (!spec || !spec->is_object()) spec = &empty;
    std::int64_t seconds = expiration_seconds(*spec, name);
    std::string token = mint(ns, name, std::chrono::seconds(seconds), audiences_of(*spec));
    std::string expires = rfc3339(cluster_.clock().now() + std::chrono::seconds(seconds));
    return token_request_body(ns, name, *spec, seconds, token, expires);
  });
}

}  // namespace k8s::sim
