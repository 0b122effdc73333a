// Exec credential plugins (a kubeconfig user's `exec` stanza), as client-go
// runs them: the plugin is started with its args and env entries plus
// KUBERNETES_EXEC_INFO (an ExecCredential whose spec says whether it may be
// interactive and, with provideClusterInfo, describes the cluster); it must
// print an ExecCredential of the configured apiVersion
// (client.authentication.k8s.io/v1 or v1beta1) whose status holds a token
// and/or a client certificate and key, optionally with an
// expirationTimestamp.
// Contract: run_exec_plugin() blocks (fork/exec, stdin from /dev/null,
// stderr passed through, stdout captured, killed after `timeout`) and throws
// ExecError naming the user entry and the command; no message ever contains
// the plugin's stdout, so no token reaches a log. ExecCredentialSource
// caches the credential until shortly before it expires and refreshes it
// on a worker thread of its own (refresh_async), one plugin run at a time
// however many callers wait; it is thread-safe and shared by every
// transport built from one ClusterConfig.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace k8s {

class ExecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ExecConfig {
  std::string user;  // the kubeconfig users[] entry, for messages
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string api_version;                 // client.authentication.k8s.io/v1 or v1beta1
  std::string interactive_mode = "Never";  // Never, IfAvailable, Always
  bool provide_cluster_info = false;       // cluster fields below go into KUBERNETES_EXEC_INFO
  std::string server, ca_data;             // ca_data: PEM (sent base64-encoded)
  bool insecure_skip_tls_verify = false;
  std::chrono::milliseconds timeout{30'000};
};

struct ExecCredential {
  std::string token;
  std::string client_cert_data, client_key_data;  // PEM
  std::optional<std::chrono::system_clock::time_point> expiry;
};

// Runs the plugin once and returns what it printed.
ExecCredential run_exec_plugin(const ExecConfig& config);
// Parses a plugin's stdout; `what` prefixes errors (user entry and command).
ExecCredential parse_exec_credential(const std::string& text, const std::string& api_version, const std::string& what);
// The KUBERNETES_EXEC_INFO value for `config`.
std::string exec_info(const ExecConfig& config);

class ExecCredentialSource {
 public:
  using Clock = std::chrono::system_clock;
  using Credential = std::shared_ptr<const ExecCredential>;
  using Done = std::function<void(Credential, std::string error)>;

  explicit ExecCredentialSource(ExecConfig config);
  ~ExecCredentialSource();  // waits for a plugin run in progress
  ExecCredentialSource(const ExecCredentialSource&) = delete;
  ExecCredentialSource& operator=(const ExecCredentialSource&) = delete;

  const ExecConfig& config() const { return config_; }
  // The cached credential while it is fresh, else null.
  Credential current();
  // Calls `done` (on the worker thread, or at once when fresh) with a fresh
  // credential or an error.
  void refresh_async(Done done);
  // Blocking form, for start-up checks off any I/O thread; throws ExecError.
  Credential get();
  // Drops `used` (a 401 answered it) unless a newer one replaced it already.
  void invalidate(const Credential& used);
  unsigned runs() const;  // plugin runs so far

 private:
  void work();
  bool fresh(Clock::time_point now) const;

  ExecConfig config_;
  mutable std::mutex mutex_;
  Credential cached_;
  Clock::time_point use_until_{};
  bool running_ = false, stopping_ = false;
  unsigned runs_ = 0;
  std::vector<Done> waiters_;
  std::condition_variable wake_;
  std::thread worker_;  // started on the first refresh
};

}  // namespace k8s
