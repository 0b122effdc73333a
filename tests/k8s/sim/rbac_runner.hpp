// Running a program under a ServiceAccount against simcluster
// --authorization rbac, for tests that prove an RBAC manifest is exactly
// what the program uses: the grants of a manifest one verb at a time, the
// manifest without one of them, and an in-process server that records
// every 403 it answers.
// Contract: a SimRbac listens on 127.0.0.1 (plain HTTP; the admin token is
// "admin") until destroyed; its temporary directory is removed afterwards.
// Programs started with spawn() have their stderr in a file and are
// terminated when the Child is destroyed.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "k8s/sim/cluster.hpp"
#include "k8s/sim/process.hpp"
#include "k8s/sim/server.hpp"
#include "model/value.hpp"

namespace testutil {

using k8s::sim::Child;
using k8s::sim::run;
using k8s::sim::RunResult;

// One granted verb: (apiGroup, resource, verb), and the Role/ClusterRole
// ("Kind/ns/name") that grants it.
struct Grant {
  std::string group, resource, verb, role;
  std::string describe() const;
  // What the 403 for this verb says: `cannot VERB resource "R" in API group "G"`.
  std::string denial() const;
};

std::vector<model::Value> read_manifest(const std::string& path);
// Every verb granted by the (Cluster)Roles of a manifest; wildcards and
// resourceNames are not expected in least-privilege manifests.
std::vector<Grant> grants_of(const std::vector<model::Value>& docs);
// The manifest with one verb taken away (that role's rules are rewritten
// one verb per rule, which grants the same).
std::vector<model::Value> without(std::vector<model::Value> docs, const Grant& g);

class SimRbac {
 public:
  SimRbac();
  ~SimRbac();
  k8s::sim::Cluster& cluster() { return cluster_; }
  void apply(model::Value doc);
  void apply_yaml(const std::string& yaml);
  // Files or directories, as simcluster --load reads them.
  void load(const std::vector<std::string>& paths);
  // A kubeconfig file authenticating as the ServiceAccount.
  std::string kubeconfig_for(const std::string& ns, const std::string& name);
  // A token of the ServiceAccount for `audience` (as a projected token
  // volume holds it), valid for an hour.
  std::string token_for(const std::string& ns, const std::string& name, const std::string& audience);
  std::string file(const std::string& name) const { return dir_ + "/" + name; }
  std::vector<std::string> denials() const;
  bool denied(const std::string& text) const;
  std::shared_ptr<const model::Value> get(const std::string& group, const std::string& plural, const std::string& ns,
                                          const std::string& name);

 private:
  k8s::sim::SystemClock clock_;
  k8s::sim::Cluster cluster_;
  std::unique_ptr<k8s::sim::Server> server_;
  mutable std::mutex mutex_;
  std::vector<std::string> denials_;
  std::string dir_;
};

// Starts argv with its stderr appended to `log`.
std::unique_ptr<Child> spawn(const std::vector<std::string>& argv, const std::string& log);

// Polls every 20 ms until `done` holds (true) or `give_up` holds or the
// timeout passes (false).
bool poll_until(const std::function<bool()>& done, const std::function<bool()>& give_up,
                std::chrono::milliseconds timeout);

// Runs `job(i)` for i in [0, n) on `workers` threads.
void run_parallel(std::size_t n, std::size_t workers, const std::function<void(std::size_t)>& job);

}  // namespace testutil
