// The chaos soak's processes (benchmarks/chaos_soak.cpp): simcluster run
// as a separate program with RBAC and an audit log, loaded with the
// deploy/ CRDs, the operator's RBAC and the examples; admin access to it
// over HTTP; and operator replicas run as `agent-operator run` under the
// operator's ServiceAccount, each with its own journal and log.
// Contract: SimProcess and Replica own their processes and end them when
// destroyed. SimProcess::call retries the answers faults inject (5xx, 429,
// timeouts) until the deadline, so an edit is applied exactly once.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "k8s/client/config.hpp"
#include "k8s/sim/faults.hpp"
#include "k8s/sim/process.hpp"
#include "model/value.hpp"

namespace soak {

using Clock = std::chrono::steady_clock;

struct HttpAnswer {
  int status = 0;
  std::string body;
};

class SimProcess {
 public:
  // Starts simcluster in `dir` (kubeconfigs and audit.jsonl go there) with
  // one ServiceAccount kubeconfig per replica name.
  SimProcess(const std::string& dir, const std::vector<std::string>& replicas);
  ~SimProcess();
  const std::string& admin_kubeconfig() const { return admin_; }
  std::string replica_kubeconfig(const std::string& replica) const;
  std::string audit_log() const { return dir_ + "/audit.jsonl"; }

  HttpAnswer call(const std::string& method, const std::string& path, const std::string& body = "",
                  const std::string& content_type = "application/json");
  std::vector<model::Value> list(const std::string& kind);
  std::optional<model::Value> get(const std::string& kind, const std::string& ns, const std::string& name);
  void set_faults(const k8s::sim::FaultConfig& faults);
  void drop_watches();
  void compact();  // resumed watches then get 410 Gone

 private:
  std::string dir_, admin_;
  std::unique_ptr<k8s::sim::Child> child_;
  k8s::ClusterConfig cc_;
  std::string host_;
  int port_ = 0;
};

struct ProcSample {
  Clock::time_point at;
  long rss_kib = 0;
  long fds = 0;
};

// One `agent-operator run` replica: identity `name` (POD_NAME), leader
// election in the agent-operator namespace, its own journal.
class Replica {
 public:
  Replica(std::string name, std::string kubeconfig, std::string dir, std::vector<std::string> extra_flags);
  ~Replica();
  const std::string& name() const { return name_; }
  std::string journal() const { return dir_ + "/" + name_ + ".journal.jsonl"; }
  std::string log() const { return dir_ + "/" + name_ + ".log"; }
  void start();
  void kill9();           // then reaped; start() brings it back as a new process
  int terminate();        // SIGTERM; the exit code
  void request_stop();    // SIGCONT and SIGTERM, without waiting (terminate() collects it)
  void pause(bool stop);  // SIGSTOP / SIGCONT
  bool running() const { return child_ != nullptr; }
  pid_t pid() const { return child_ ? child_->pid() : -1; }
  Clock::time_point started() const { return started_; }
  std::optional<ProcSample> sample() const;  // from /proc

 private:
  std::string name_, kubeconfig_, dir_;
  std::vector<std::string> flags_;
  std::unique_ptr<k8s::sim::Child> child_;
  Clock::time_point started_{};
};

// Where the programs are: beside the running chaos_soak, so a copy of the
// three runs on while the build tree is rebuilt.
std::string bin_dir();

// The Lease's holderIdentity ("" when none), and a wait until there is one.
std::string lease_holder(SimProcess& sim);
bool wait_leader(SimProcess& sim, std::chrono::seconds timeout);
// The replicas' timing: a 3 s lease, so a pause past it is short; a 2 s
// grace for deleted Secrets, so quiescence comes soon after the last edit.
std::vector<std::string> replica_flags();
inline constexpr std::chrono::seconds kLeaseDuration{3};

}  // namespace soak
