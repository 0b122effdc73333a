// Loopback stand-ins for integrations pods: each "pod" is a listening
// socket on 127.0.0.1 that answers every HTTP request with its behaviour
// (after a delay, with a status, content type and body; or never; or by
// closing the connection half-way through the body). The demo serves real
// targets from them, and tests and benchmarks put the aggregator under
// healthy, slow, failing and hostile pods without a cluster.
// Contract: one thread and one epoll set serve every pod, so a thousand
// pods cost a thousand sockets, not a thousand threads. Connections are
// kept alive between requests. The constructor throws std::runtime_error
// when a socket cannot be bound; the destructor stops and joins. Behaviours
// may be replaced while running (thread-safe). Interrupted calls are
// retried; running out of file descriptors pauses accepting, not serving.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/value.hpp"

namespace sd {

struct StandinBehaviour {
  enum class Mode { answer, hang, close_mid_body } mode = Mode::answer;
  std::chrono::milliseconds delay{0};
  int status = 200;
  std::string content_type = "application/json";
  std::string body = "[]";
};

// A plausible agent SD answer: one target per integration name, labelled as
// the agent labels them (job integrations/<name>, agent_hostname, the
// __meta_agent_integration_* labels) plus `extra` labels on each.
std::string standin_sd_body(const std::string& hostname, const std::vector<std::string>& integrations,
                            const std::vector<std::pair<std::string, std::string>>& extra = {});

// What one agent pod's SD API would answer for its agent.yml `config`: a
// group per integration instance (each `<name>_configs` entry), labelled
// as integrations-next labels them, plus the entry's extra_labels.
std::string standin_sd_body_for(const model::Value& config, const std::string& hostname);

// The Endpoints object Kubernetes would keep for the integrations Service
// of GrafanaAgent `ns`/`agent` with these ready "host:port" addresses
// (IPv4; one subset per address, since stand-ins differ by port).
model::Value standin_endpoints(const std::string& ns, const std::string& agent,
                               const std::vector<std::string>& addresses);

class StandinPods {
 public:
  explicit StandinPods(std::vector<StandinBehaviour> pods);
  ~StandinPods();
  StandinPods(const StandinPods&) = delete;
  StandinPods& operator=(const StandinPods&) = delete;

  // "127.0.0.1:PORT", one per pod, in the constructor's order.
  const std::vector<std::string>& addresses() const { return addresses_; }
  void set_behaviour(std::size_t pod, StandinBehaviour b);
  // Requests received (complete request heads), over all pods.
  std::uint64_t requests() const { return requests_.load(); }
  // Connections accepted, over all pods (fewer than requests: keep-alive).
  std::uint64_t connections() const { return connections_.load(); }
  // accept() calls that failed for want of resources (EMFILE, ENFILE,
  // ENOBUFS, ENOMEM). Each pauses that pod's listener for 100 ms instead
  // of spinning on it; the pending connections wait in the backlog.
  std::uint64_t accept_failures() const { return accept_failures_.load(); }

 private:
  struct Loop;
  std::unique_ptr<Loop> loop_;
  std::vector<std::string> addresses_;
  std::atomic<std::uint64_t> requests_{0}, connections_{0}, accept_failures_{0};
};

}  // namespace sd
