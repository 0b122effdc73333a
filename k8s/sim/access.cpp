#include "k8s/sim/access.hpp"

#include <strings.h>

#include <algorithm>

#include "k8s/sim/api_error.hpp"
#include "k8s/sim/request_info.hpp"
#include "k8s/sim/store_meta.hpp"
#include "model/yaml_emit.hpp"

namespace k8s::sim {

namespace {

bool public_path(const std::string& path) {
  return path == "/healthz" || path == "/livez" || path == "/readyz" || path == "/version" ||
         path.rfind("/healthz/", 0) == 0 || path.rfind("/livez/", 0) == 0 || path.rfind("/readyz/", 0) == 0;
}

// Compares without an early exit so timing does not reveal the token.
bool same_secret(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

UserInfo anonymous() {
  return {"system:anonymous", {"system:unauthenticated"}};
}

// ["a" "b"], as Go's %q prints a list of strings.
std::string quoted_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const auto& i : items) out += (out.size() > 1 ? " \"" : "\"") + i + "\"";
  return out + "]";
}

UserInfo admin() {
  return {"kubernetes-admin", {"system:masters", "system:authenticated"}};
}

// The stored RBAC objects; `lists` keeps them alive while `policy` points at them.
struct PolicySnapshot {
  std::vector<ListResult> lists;
  RbacPolicy policy;
};

void load_policy(Cluster& c, PolicySnapshot& out) {
  std::vector<const model::Value*>* targets[] = {&out.policy.roles, &out.policy.cluster_roles,
                                                 &out.policy.role_bindings, &out.policy.cluster_role_bindings};
  const char* plurals[] = {"roles", "clusterroles", "rolebindings", "clusterrolebindings"};
  out.lists.reserve(4);
  for (int i = 0; i < 4; ++i) {
    auto type = c.find_type("rbac.authorization.k8s.io", "v1", plurals[i]);
    out.lists.push_back(c.store().list(*type, "", {}));
    for (const SnapshotPtr& s : out.lists.back().items) targets[i]->push_back(&s->value);
  }
}

}  // namespace

std::string bearer_token(std::string header) {
  auto space = [](char c) { return c == ' ' || c == '\t'; };
  while (!header.empty() && space(header.back())) header.pop_back();
  std::size_t start = 0;
  while (start < header.size() && space(header[start])) ++start;
  header.erase(0, start);
  std::size_t sp = header.find(' ');
  if (sp == std::string::npos) return "";
  std::string token = header.substr(sp + 1);
  if (strncasecmp(header.c_str(), "bearer ", 7) != 0 || sp != 6 || token.find(' ') != std::string::npos) return "";
  return token;
}

Access::Access(Cluster& cluster, AccessOptions options) : cluster_(cluster), options_(std::move(options)) {}

std::optional<UserInfo> Access::authenticate(const HttpRequest& r, const std::string& header) {
  bool rbac = options_.mode == AuthorizationMode::rbac;
  // Without authorization or an admin token there is no authentication.
  if (!rbac && options_.admin_token.empty()) return anonymous();
  if (header.empty()) {
    if (rbac || public_path(r.path)) return anonymous();
    return std::nullopt;
  }
  std::string token = bearer_token(header);
  if (token.empty()) return std::nullopt;
  return review(token, {kApiAudience}).user;
}

Access::TokenReview Access::review(const std::string& token, const std::vector<std::string>& audiences) {
  if (options_.admin_token.empty() || !same_secret(token, options_.admin_token))
    return service_account(token, audiences);
  // The admin token is a static token: good for the API server's audience only.
  TokenReview out;
  if (std::find(audiences.begin(), audiences.end(), kApiAudience) == audiences.end()) {
    out.error = "token audiences " + quoted_list({kApiAudience}) + " is invalid for the target audiences " +
                quoted_list(audiences);
    return out;
  }
  out.user = admin();
  out.audiences = {kApiAudience};
  return out;
}

Access::TokenReview Access::service_account(const std::string& token, const std::vector<std::string>& audiences) {
  TokenReview out;
  SaToken t;
  {
    std::lock_guard lock(mutex_);
    auto it = tokens_.find(token);
    if (it == tokens_.end()) return {.error = "invalid bearer token"};
    t = it->second;
  }
  if (cluster_.clock().now() >= t.expires) return {.error = "service account token has expired"};
  bool alive = false;  // a new ServiceAccount of the same name has another uid
  try {
    auto sa = cluster_.store().get(*cluster_.find_type("", "v1", "serviceaccounts"), t.ns, t.name);
    alive = meta_string(sa->value, "uid") == t.uid;
  } catch (const ApiError&) {
  }
  if (!alive) return {.error = "service account " + t.ns + "/" + t.name + " has been deleted"};
  for (const auto& a : audiences)
    if (std::find(t.audiences.begin(), t.audiences.end(), a) != t.audiences.end()) out.audiences.push_back(a);
  if (out.audiences.empty()) {
    out.error = "token audiences " + quoted_list(t.audiences) + " is invalid for the target audiences " +
                quoted_list(audiences);
    return out;
  }
  out.user = service_account_user(t.ns, t.name);
  out.uid = t.uid;
  return out;
}

Decision Access::decide(const RequestAttributes& a) const {
  PolicySnapshot snapshot;
  load_policy(cluster_, snapshot);
  return authorize(a, snapshot.policy);
}

std::optional<HttpResponse> Access::check(const HttpRequest& request, const std::string& header) {
  std::optional<UserInfo> user = authenticate(request, header);
  if (!user) return error_response(ApiError(401, "Unauthorized", "Unauthorized"));
  if (options_.mode != AuthorizationMode::rbac) return std::nullopt;
  RequestAttributes a = request_attributes(request);
  a.user = *user;
  Decision d = decide(a);
  if (d.allowed) return std::nullopt;
  ApiError e = forbidden(a, d.reason);
  if (options_.on_denied) options_.on_denied(e.what());
  return error_response(e);
}

}  // namespace k8s::sim
