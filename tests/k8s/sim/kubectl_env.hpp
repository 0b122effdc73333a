// An in-process simcluster with a kubeconfig and a private kubectl cache
// directory, for tests that drive the real kubectl (found on PATH, or at
// $KUBECTL).
// Contract: the server listens on 127.0.0.1 with a free port for the
// lifetime of the object (HTTPS and a token when the options say so, and
// the kubeconfig carries them); the temporary directory is removed afterwards.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "k8s/sim/cluster.hpp"
#include "k8s/sim/process.hpp"
#include "k8s/sim/server.hpp"

namespace testutil {

using k8s::sim::Child;
using k8s::sim::run;
using k8s::sim::RunResult;

class KubectlEnv {
 public:
  explicit KubectlEnv(k8s::sim::ServerOptions options = {});
  ~KubectlEnv();

  RunResult kubectl(std::vector<std::string> args, const std::string& input = "");
  std::vector<std::string> kubectl_argv(std::vector<std::string> args) const;
  // Writes `text` to a file in the temporary directory; returns its path.
  std::string write_file(const std::string& name, const std::string& text) const;
  k8s::sim::Cluster& cluster() { return cluster_; }
  const std::string& kubeconfig() const { return kubeconfig_; }
  k8s::sim::Server& server() { return *server_; }

 private:
  k8s::sim::SystemClock clock_;
  k8s::sim::Cluster cluster_;
  std::unique_ptr<k8s::sim::Server> server_;
  std::string dir_;
  std::string kubeconfig_;
};

}  // namespace testutil
