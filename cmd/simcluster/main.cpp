// simcluster: the simulated Kubernetes API server as a program.
//   simcluster --listen HOST:PORT --kubeconfig-out FILE [--crds DIR] [--load PATH...]
//              [--fault-5xx-rate R] [--fault-429-rate R] [--fault-latency-ms N] [--fault-seed S]
// Prints "listening on http://HOST:PORT" once ready and serves until
// SIGINT or SIGTERM.
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "k8s/sim/cluster.hpp"
#include "k8s/sim/loader.hpp"
#include "k8s/sim/server.hpp"

namespace {

struct Flags {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string kubeconfig_out;
  std::vector<std::string> crds;
  std::vector<std::string> load;
  std::size_t history = 10000;
  long bookmark_ms = 60000;
  k8s::sim::FaultConfig faults;
  std::uint64_t fault_seed = 1;
};

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "simcluster: " << problem << "\n"
            << "usage: simcluster --listen HOST:PORT --kubeconfig-out FILE [--crds DIR] [--load PATH...]\n"
            << "                  [--history EVENTS] [--bookmark-interval-ms MS]\n"
            << "                  [--fault-5xx-rate R] [--fault-429-rate R] [--fault-latency-ms N] [--fault-seed S]\n";
  std::exit(2);
}

void parse_listen(const std::string& text, Flags& f) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos) usage("--listen wants HOST:PORT");
  f.host = text.substr(0, colon);
  char* end = nullptr;
  long port = std::strtol(text.c_str() + colon + 1, &end, 10);
  if (*end != '\0' || port < 0 || port > 65535) usage("bad port in --listen " + text);
  f.port = static_cast<int>(port);
}

double parse_rate(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  double r = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(r >= 0 && r <= 1)) usage(flag + " wants a rate between 0 and 1");
  return r;
}

long parse_count(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  long n = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || n < 0) usage(flag + " wants a non-negative integer");
  return n;
}

// Handles the --fault-* flags; false when `a` is not one of them.
bool parse_fault_flag(const std::string& a, const std::string& v, Flags& f) {
  if (a == "--fault-5xx-rate")
    f.faults.error_5xx_rate = parse_rate(a, v);
  else if (a == "--fault-429-rate")
    f.faults.error_429_rate = parse_rate(a, v);
  else if (a == "--fault-latency-ms")
    f.faults.latency_ms = static_cast<int>(parse_count(a, v));
  else if (a == "--fault-seed")
    f.fault_seed = static_cast<std::uint64_t>(parse_count(a, v));
  else
    return false;
  return true;
}

Flags parse(int argc, char** argv) {
  Flags f;
  std::vector<std::string>* list = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a.rfind("--", 0) != 0) {
      if (!list) usage("unexpected argument " + a);
      list->push_back(a);
      continue;
    }
    list = nullptr;
    if (a == "--listen")
      parse_listen(value(), f);
    else if (a == "--kubeconfig-out")
      f.kubeconfig_out = value();
    else if (a == "--crds")
      (list = &f.crds)->push_back(value());
    else if (a == "--load")
      (list = &f.load)->push_back(value());
    else if (a == "--history")
      f.history = std::strtoul(value().c_str(), nullptr, 10);
    else if (a == "--bookmark-interval-ms")
      f.bookmark_ms = std::strtol(value().c_str(), nullptr, 10);
    else if (a.rfind("--fault-", 0) != 0 || !parse_fault_flag(a, value(), f))
      usage("unknown flag " + a);
  }
  if (f.kubeconfig_out.empty()) usage("--kubeconfig-out is required");
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags = parse(argc, argv);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // threads started below inherit the mask

  k8s::sim::SystemClock clock;
  k8s::sim::ClusterOptions cluster_options;
  cluster_options.store.history_limit = flags.history;
  k8s::sim::Cluster cluster(clock, cluster_options);
  try {
    std::vector<std::string> paths = flags.crds;
    paths.insert(paths.end(), flags.load.begin(), flags.load.end());
    k8s::sim::load_manifests(cluster, paths);
  } catch (const std::exception& e) {
    std::cerr << "simcluster: " << e.what() << "\n";
    return 1;
  }
  k8s::sim::ServerOptions options;
  options.host = flags.host;
  options.port = flags.port;
  options.api.bookmark_interval = std::chrono::milliseconds(flags.bookmark_ms);
  options.faults = flags.faults;
  options.fault_seed = flags.fault_seed;
  k8s::sim::Server server(cluster, options);
  try {
    server.start();
  } catch (const std::exception& e) {
    std::cerr << "simcluster: " << e.what() << "\n";
    return 1;
  }
  std::ofstream(flags.kubeconfig_out) << k8s::sim::kubeconfig_yaml(server.url());
  std::cout << "listening on " << server.url() << std::endl;
  int sig = 0;
  sigwait(&signals, &sig);
  server.stop();
  return 0;
}
