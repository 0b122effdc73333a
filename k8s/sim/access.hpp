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
// their ServiceAccount (a new one of the same name does not revive them).
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "k8s/sim/api.hpp"
#include "k8s/sim/cluster.hpp"
#include "k8s/sim/rbac.hpp"

namespace k8s::sim {

enum class AuthorizationMode { always_allow, rbac };

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
  std::string mint(const std::string& ns, const std::string& name, std::chrono::seconds lifetime);

 private:
  struct SaToken {
    std::string ns;
    std::string name;
    std::string uid;
    Clock::time_point expires;
  };
  std::optional<UserInfo> service_account(const std::string& token);
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
