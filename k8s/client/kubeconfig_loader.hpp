// Finding the cluster connection as controller-runtime and client-go find
// it, for every binary: `--kubeconfig` (or target-allocator's
// --kubeconfig-path), then $KUBECONFIG (a colon-separated list merged as
// client-go merges it, see from_kubeconfigs), then the in-cluster service
// account, then ~/.kube/config.
// Contract: an explicit path that cannot be read is an error; files of a
// $KUBECONFIG list that do not exist are skipped (as client-go skips them),
// but a list none of whose files exist is an error naming them; in-cluster
// is chosen when KUBERNETES_SERVICE_HOST and _PORT are both set, and its
// errors then stand; the last resort missing too is an error naming every
// place looked at. The environment comes in through LoadEnv so that tests
// need not change the process's.
#pragma once

#include <optional>
#include <string>

#include "k8s/client/config.hpp"

namespace k8s {

struct LoadEnv {
  std::optional<std::string> kubeconfig;   // $KUBECONFIG; nullopt or "" = unset
  std::string home;                        // $HOME
  std::string service_host, service_port;  // KUBERNETES_SERVICE_HOST / _PORT
  std::string sa_dir = kServiceAccountDir;
  static LoadEnv from_process();
};

ClusterConfig load_config(const std::string& explicit_path, const std::string& context,
                          const LoadEnv& env = LoadEnv::from_process());

}  // namespace k8s
