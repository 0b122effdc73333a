// `agent-operator run`: the controller against a real cluster (kubeconfig
// or in-cluster service account).
#include <iostream>
#include <mutex>

#include "commands.hpp"
#include "operator.hpp"

namespace cli {

int run(int argc, char** argv) {
  OperatorFlags f;
  Args a(argc, argv);
  while (a.next())
    if (!parse_operator_flag(a, f)) a.unknown();
  block_signals();
  k8s::ClusterConfig cc;
  try {
    cc = f.kubeconfig.empty() ? k8s::in_cluster() : k8s::from_kubeconfig(f.kubeconfig, f.context);
  } catch (const k8s::ConfigError& e) {
    std::cerr << "agent-operator: " << e.what() << "\n";
    return 2;
  }
  std::mutex mu;
  OperatorHooks hooks;
  hooks.log = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(mu);
    std::cerr << line << std::endl;
  };
  hooks.on_synced = [&](actors::Controller&) {
    std::lock_guard<std::mutex> lock(mu);
    std::cerr << "informers synced; reconciling" << std::endl;
  };
  return run_operator(f, cc, hooks);
}

}  // namespace cli
