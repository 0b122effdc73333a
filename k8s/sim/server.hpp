// The HTTP transport of simcluster: cpp-httplib serving an Api on a
// background thread. TCP_NODELAY is on, the listen backlog is raised, and
// connections run on an elastic thread pool that grows with the number of
// long-lived watches (up to max_threads).
// Contract: start() binds (port 0 picks a free port) and returns once the
// server accepts connections; stop() ends every watch and joins all
// threads. Idle watch streams send a single "\n" every
// heartbeat_interval so dead clients are noticed (JSON stream decoders
// skip whitespace between events). Faults (k8s/sim/faults.hpp) are applied
// to API requests, and /sim/faults serves their admin endpoint.
// With `tls`, it serves HTTPS with a certificate from `tls_material`, or
// one generated at construction for 127.0.0.1, localhost and `host`. With a
// `token`, every request must carry "Authorization: Bearer TOKEN" (else 401
// Unauthorized); only /healthz, /livez, /readyz and /version may be asked
// without credentials, as the real server's public-info role allows. With
// an `audit_log_path`, every request that can change state is appended to
// it as kube-apiserver's audit log backend would (k8s/sim/audit.hpp).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "k8s/sim/access.hpp"
#include "k8s/sim/api.hpp"
#include "k8s/sim/cluster.hpp"
#include "k8s/sim/faults.hpp"
#include "k8s/sim/tls.hpp"

namespace k8s::sim {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  std::size_t max_threads = 4096;
  int backlog = 4096;
  std::chrono::seconds heartbeat_interval{10};
  ApiOptions api;
  FaultConfig faults;
  std::uint64_t fault_seed = 1;
  bool tls = false;
  std::optional<TlsMaterial> tls_material;  // generated when tls is set and this is empty
  std::string token;                        // the admin token; empty: no authentication
  AuthorizationMode authorization = AuthorizationMode::always_allow;
  std::function<void(const std::string& message)> on_denied;  // the message of every 403
  std::string audit_log_path;                                 // "" = no audit log (k8s/sim/audit.hpp)
};

class Server {
 public:
  Server(Cluster& cluster, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and starts serving; returns the bound port. Throws
  // std::runtime_error when the address cannot be bound.
  int start();
  void stop();
  int port() const { return port_; }
  // "http://HOST:PORT", or "https://HOST:PORT" with TLS.
  std::string url() const;
  // The certificates in use; null without TLS.
  const TlsMaterial* tls() const { return options_.tls ? &*options_.tls_material : nullptr; }
  // A kubeconfig for this server: its URL, CA and token.
  std::string kubeconfig() const;
  Faults& faults();
  // A token for an existing ServiceAccount (ApiError 404 otherwise), for
  // the API server unless other audiences are named (a token for another
  // audience authenticates only through the TokenReview API), and a
  // kubeconfig for this server that carries one.
  std::string mint_token(const std::string& ns, const std::string& name,
                         std::chrono::seconds lifetime = std::chrono::hours(24),
                         std::vector<std::string> audiences = {kApiAudience});
  std::string service_account_kubeconfig(const std::string& ns, const std::string& name);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  ServerOptions options_;
  int port_ = 0;
};

}  // namespace k8s::sim
