// The target allocator's HTTP server: /scrape_configs, /jobs,
// /jobs/{job}/targets[?collector_id=], /metrics, /livez and /readyz (also as
// /-/healthy and /-/ready, the Prometheus spellings).
// Contract: publish() turns the allocator's current state into an immutable
// Snapshot (every per-collector body prebuilt by a ResponseCache, so
// unchanged ones are shared, not rebuilt; a job's body over all collectors
// is assembled from them on its first request) and swaps it in
// through an atomic shared_ptr, so request threads never lock and never see
// a half-built state. publish() must be called from one thread at a time.
// /readyz answers 503 until the first publish(); with require_leadership it
// also answers 503 while set_leading(false) (active/standby: a Service then
// routes only to the leader). Sockets use TCP_NODELAY.
// /jobs/{job}/targets answers (per collector and job, and all collectors of
// a job) carry a strong ETag (the same targets give the same tag in every
// replica) and Cache-Control: no-cache; a request whose If-None-Match
// names the current tag gets 304 without a body. Per-collector answers are
// sent in chunks (TargetsBody), or gzipped once per body version when the
// client accepts gzip (another tag, with -gzip inside the quotes).
// With ServerOptions::https set, a second, mutual-TLS listener serves the
// same routes, and its /scrape_configs carries the real credentials
// (basic auth passwords, bearer tokens, TLS keys); the plain listener
// always masks them as "<secret>". Only clients presenting a certificate
// signed by client_ca_file get past the handshake.
// /metrics renders metrics() (publish() updates its allocation gauges; the
// caller records allocation times and events; every request is timed).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "allocation/allocator.hpp"
#include "allocation/metrics.hpp"
#include "allocation/responses.hpp"
#include "model/value.hpp"

namespace httplib {
class SSLServer;
}

namespace allocation {

struct HttpsOptions {
  std::string host = "0.0.0.0";
  int port = 0;                                     // 0 picks a free port
  std::string cert_file, key_file, client_ca_file;  // PEM files; all three required
};

struct ServerOptions {
  std::string host = "0.0.0.0";
  int port = 8080;                  // 0 picks a free port
  bool require_leadership = false;  // --leader-elect: Ready only while leading
  std::optional<HttpsOptions> https;
};

class AllocationServer {
 public:
  explicit AllocationServer(ServerOptions options);
  ~AllocationServer();
  AllocationServer(const AllocationServer&) = delete;
  AllocationServer& operator=(const AllocationServer&) = delete;

  // Publishes the allocation of `a` and the scrape configs (a list).
  void publish(const Allocator& a, const model::Value& scrape_configs);
  // Binds and serves on background threads; returns the bound port.
  // Throws std::runtime_error when an address cannot be bound or the TLS
  // files cannot be loaded (the message names the file).
  int start();
  // Stops serving and joins the thread (also done by the destructor).
  void stop();
  int port() const { return port_; }
  int https_port() const { return https_port_; }
  // Leadership as the elector last saw it; any thread, takes effect at once.
  void set_leading(bool leading);
  AllocatorMetrics& metrics();

 private:
  struct Impl;
  void start_https(httplib::SSLServer& https, const HttpsOptions& tls);
  std::unique_ptr<Impl> impl_;
  ServerOptions options_;
  int port_ = -1, https_port_ = -1;
};

}  // namespace allocation
