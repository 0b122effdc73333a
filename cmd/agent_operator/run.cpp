// `agent-operator run`: the controller against a real cluster, found as
// client-go finds it (k8s/client/kubeconfig_loader.hpp).
#include <iostream>
#include <mutex>

#include "commands.hpp"
#include "k8s/client/kubeconfig_loader.hpp"
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
    cc = k8s::load_config(f.kubeconfig, f.context);
    // A broken exec plugin is a start-up error, not a retry loop.
    if (cc.exec) cc.exec->get();
  } catch (const std::runtime_error& e) {
    std::cerr << "agent-operator: " << e.what() << "\n";
    return 2;
  }
  std::cerr << "agent-operator: cluster from " << cc.source << std::endl;
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
