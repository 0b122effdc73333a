// `agent-operator run`: the controller against a real cluster, found as
// client-go finds it (k8s/client/kubeconfig_loader.hpp).
#include <iostream>

#include "commands.hpp"
#include "k8s/client/kubeconfig_loader.hpp"
#include "operator.hpp"

namespace cli {

namespace {

// How the client authenticates, for a debug line: never the credential.
std::string auth_method(const k8s::ClusterConfig& cc) {
  if (cc.exec) return "exec plugin";
  if (!cc.token_file.empty()) return "token file " + cc.token_file;
  if (!cc.token.empty()) return "token";
  if (!cc.client_cert_file.empty() || !cc.client_cert_data.empty()) return "client certificate";
  return "none";
}

}  // namespace

int run(int argc, char** argv) {
  OperatorFlags f;
  Command c{"agent-operator run [flags]",
            "Runs the controller against a cluster: reconciles every GrafanaAgent (and, with -kubelet-service, "
            "the kubelet Service) until SIGINT or SIGTERM.\n"
            "Upstream's Grafana Agent Operator flags are accepted as it spells them (-metrics-listen-address, "
            "-health-listen-address, -listen-host, -listen-port, -log.level, -log.format, -labels, -agent-selector, "
            "-namespace, -kubelet-service, -version), so its Deployment runs unchanged.",
            operator_flags(f, ":8080"),
            {},
            kOperatorExitCodes};
  if (parse(c, argc, argv) == Parsed::help) {
    std::cout << help_text(c);
    return 0;
  }
  block_signals();
  k8s::ClusterConfig cc;
  try {
    cc = k8s::load_config(f.kubeconfig, f.context);
    // A broken exec plugin is a start-up error, not a retry loop.
    if (cc.exec) cc.exec->get();
  } catch (const std::runtime_error& e) {
    std::cerr << "agent-operator: " << e.what() << "\n";  // unusable input, as a bad flag
    return 2;
  }
  actors::log::ProcessLog process_log(log_options(f));
  OperatorHooks hooks;
  hooks.log = process_log.log();
  hooks.log(model::log_info("operator", "cluster configuration loaded")
                .with("server", model::url_for_log(cc.server))
                .with("source", cc.source));
  hooks.log(model::log_debug("operator", "authentication").with("method", auth_method(cc)));
  hooks.on_synced = [log = hooks.log](actors::Controller&) {
    log(model::log_info("operator", "informers synced; reconciling"));
  };
  return run_operator(f, cc, hooks);
}

}  // namespace cli
