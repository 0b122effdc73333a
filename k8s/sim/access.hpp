// Who sends a request and whether it may proceed: bearer-token
// authentication (the admin token, ServiceAccount tokens minted through
// the TokenRequest API, anonymous requests) and, in rbac mode, the RBAC
// authorizer (k8s/sim/rbac.hpp) over the RBAC objects stored at the time
// of the request.
// Contract: thread-safe. In always_allow mode nothing changes from a
// server without authorization: with no admin token every request passes;
// with one, a request needs the admin token or a valid ServiceAccount
// token, except health and version paths without credentials. In rbac mode
// a request without credentials is system:anonymous and is authorized like
// any other; a wrong, expired or orphaned token is always a 401. The admin
// token is a system:masters superuser. ServiceAccount tokens die with
// their ServiceAccount (a new one of the same name does not revive them),
// and authenticate API requests only when minted for the API server's
// audience (kApiAudience, the default). The TokenReview API answers the
// same question for any audience: who a token is, and for which of the
// audiences asked.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "k8s/sim/api.hpp"
#include "k8s/sim/cluster.hpp"
#include "k8s/sim/rbac.hpp"

namespace k8s::sim {

enum class AuthorizationMode { always_allow, rbac };

// The audience of the API server (--api-audiences): what tokens are minted
// for unless a TokenRequest names others, and what a TokenReview without
// spec.audiences checks.
inline constexpr const char* kApiAudience = "https://kubernetes.default.svc.cluster.local";

struct AccessOptions {
  std::string admin_token;
  AuthorizationMode mode = AuthorizationMode::always_allow;
  // Called with the message of every 403 (an audit trail for tests and logs).
  std::function<void(const std::string& message)> on_denied;
};

class Access {
 public:
  Access(Cluster& cluster, AccessOptions options);

  // nullopt when the request may proceed; otherwise the 401 or 403.
  std::optional<HttpResponse> check(const HttpRequest& request, const std::string& authorization_header);
  // The user behind an Authorization header; nullopt means 401.
  std::optional<UserInfo> authenticate(const HttpRequest& request, const std::string& authorization_header);

  // POST /api/v1/namespaces/NS/serviceaccounts/NAME/token
  static bool is_token_request(const HttpRequest& request);
  // Serves the TokenRequest API (authentication.k8s.io/v1); never throws.
  HttpResponse token_request(const HttpRequest& request);
  // A token for an existing ServiceAccount (else ApiError 404).
  std::string mint(const std::string& ns, const std::string& name, std::chrono::seconds lifetime,
                   std::vector<std::string> audiences = {kApiAudience});

  // POST /apis/authentication.k8s.io/v1/tokenreviews
  static bool is_token_review(const HttpRequest& request);
  // Serves the TokenReview API (authentication.k8s.io/v1); never throws.
  // The caller was authenticated and authorized (create tokenreviews) by
  // check() like any request.
  HttpResponse token_review(const HttpRequest& request);

  // Who `token` is for `audiences` (non-empty): the user, its uid (the
  // ServiceAccount's; "" for the admin) and the audiences granted, the
  // intersection of the token's with the ones asked; or `error` saying why not.
  struct TokenReview {
    std::optional<UserInfo> user;
    std::string uid;
    std::vector<std::string> audiences;
    std::string error;
  };
  TokenReview review(const std::string& token, const std::vector<std::string>& audiences);

 private:
  struct SaToken {
    std::string ns;
    std::string name;
    std::string uid;
    Clock::time_point expires;
    std::vector<std::string> audiences;
  };
  TokenReview service_account(const std::string& token, const std::vector<std::string>& audiences);
  // A 201 with the object `make` returns (it may add warnings), or the
  // Status of the ApiError or body ParseError it throws: how the two
  // create-only APIs here answer.
  static HttpResponse created(const std::function<model::Value(std::vector<std::string>& warnings)>& make);
  Decision decide(const RequestAttributes& a) const;

  Cluster& cluster_;
  AccessOptions options_;
  std::mutex mutex_;
  std::unordered_map<std::string, SaToken> tokens_;
};

// The token of an "Authorization: Bearer <token>" header, as kube-apiserver's
// bearer authenticator reads it; "" when the header is not one.
std::string bearer_token(std::string header);

}  // namespace k8s::sim
