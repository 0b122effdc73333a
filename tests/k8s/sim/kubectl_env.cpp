#include "kubectl_env.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "k8s/sim/loader.hpp"

namespace testutil {

KubectlEnv::KubectlEnv(k8s::sim::ServerOptions options) : cluster_(clock_) {
  char tmpl[] = "/tmp/ao-kubectl-XXXXXX";
  dir_ = mkdtemp(tmpl);
  server_ = std::make_unique<k8s::sim::Server>(cluster_, std::move(options));
  server_->start();
  kubeconfig_ = write_file("kubeconfig", server_->kubeconfig());
}

KubectlEnv::~KubectlEnv() {
  server_->stop();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string KubectlEnv::write_file(const std::string& name, const std::string& text) const {
  std::string path = dir_ + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::vector<std::string> KubectlEnv::kubectl_argv(std::vector<std::string> args) const {
  const char* bin = std::getenv("KUBECTL");
  std::vector<std::string> argv = {bin ? bin : "kubectl", "--kubeconfig", kubeconfig_, "--cache-dir", dir_ + "/cache"};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

RunResult KubectlEnv::kubectl(std::vector<std::string> args, const std::string& input) {
  return run(kubectl_argv(std::move(args)), input);
}

}  // namespace testutil
