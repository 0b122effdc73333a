#include "k8s/client/kubeconfig_loader.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

namespace k8s {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> read_if_present(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot read kubeconfig");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

ClusterConfig from_list(const std::string& list, const std::string& context) {
  std::vector<std::pair<std::string, std::string>> files;
  std::string seen;
  std::stringstream in(list);
  for (std::string path; std::getline(in, path, ':');) {
    if (path.empty() || seen.find("\n" + path + "\n") != std::string::npos) continue;
    seen += "\n" + path + "\n";
    if (auto text = read_if_present(path)) files.emplace_back(path, std::move(*text));
  }
  if (files.empty()) throw ConfigError("$KUBECONFIG=" + list + ": none of its files exists");
  return from_kubeconfigs(files, context);
}

}  // namespace

LoadEnv LoadEnv::from_process() {
  LoadEnv e;
  if (const char* k = std::getenv("KUBECONFIG")) e.kubeconfig = k;
  e.home = env_or_empty("HOME");
  e.service_host = env_or_empty("KUBERNETES_SERVICE_HOST");
  e.service_port = env_or_empty("KUBERNETES_SERVICE_PORT");
  return e;
}

ClusterConfig load_config(const std::string& explicit_path, const std::string& context, const LoadEnv& env) {
  if (!explicit_path.empty()) return from_kubeconfig(explicit_path, context);
  if (env.kubeconfig && !env.kubeconfig->empty()) return from_list(*env.kubeconfig, context);
  if (!env.service_host.empty() && !env.service_port.empty()) {
    // --context names a kubeconfig context; in-cluster has none to pick.
    if (!context.empty()) throw ConfigError("--context " + context + " needs a kubeconfig, and none was found");
    return in_cluster_at(env.service_host, env.service_port, env.sa_dir);
  }
  std::string home_config = env.home.empty() ? "" : (fs::path(env.home) / ".kube" / "config").string();
  if (!home_config.empty())
    if (auto text = read_if_present(home_config)) return from_kubeconfigs({{home_config, std::move(*text)}}, context);
  throw ConfigError(
      "no cluster configuration: no --kubeconfig, $KUBECONFIG is unset, not running in a cluster "
      "(KUBERNETES_SERVICE_HOST is unset), and " +
      (home_config.empty() ? std::string("$HOME is unset") : home_config + " does not exist"));
}

}  // namespace k8s
