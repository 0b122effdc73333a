// simcluster: the simulated Kubernetes API server as a program.
//   simcluster --kubeconfig-out FILE [--listen HOST:PORT] [--crds DIR...] [--load PATH...] [flags]
//   simcluster --help | -h | help      (every flag, with its default)
//   simcluster --version | -version
// Prints "listening on http(s)://HOST:PORT" once ready and serves until
// SIGINT or SIGTERM. With --tls or --authorization rbac and no token flag a
// random admin token is made; it is written only to the kubeconfig, never
// printed. With rbac, every 403 is logged to stderr (logfmt or JSON, as the
// operator logs), and each
// --service-account-kubeconfig writes a kubeconfig with a token of that
// (preloaded) ServiceAccount. --audit-log-path appends every write request
// to FILE as kube-apiserver's audit log does (k8s/sim/audit.hpp).
#include <sys/stat.h>

#include <atomic>
#include <cctype>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "actors/log/process_log.hpp"
#include "cmd/build_info.hpp"
#include "cmd/flagset/log_flags.hpp"
#include "k8s/sim/cluster.hpp"
#include "k8s/sim/generate.hpp"
#include "k8s/sim/loader.hpp"
#include "k8s/sim/server.hpp"
#include "k8s/sim/tls.hpp"
#include "model/listen_address.hpp"

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
  bool tls = false;
  std::string tls_dir;
  std::string token;
  std::string token_file;
  bool anonymous = false;
  std::optional<k8s::sim::GenerateSpec> generate;
  k8s::sim::AuthorizationMode authorization = k8s::sim::AuthorizationMode::always_allow;
  std::vector<std::string> sa_kubeconfigs;  // NS/NAME=FILE
  std::string audit_log;
  actors::log::ProcessLogOptions log;
};

// Stands still at a fixed instant until started, so the objects made at
// startup for --generate get the same timestamps on every run.
class StartupClock : public k8s::sim::Clock {
 public:
  explicit StartupClock(bool frozen) : frozen_(frozen) {}
  time_point now() const override {
    if (frozen_) return time_point(std::chrono::seconds(1704067200));  // 2024-01-01T00:00:00Z
    return std::chrono::system_clock::now();
  }
  void start() { frozen_ = false; }

 private:
  std::atomic<bool> frozen_;
};

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "simcluster: " << problem << "\nrun 'simcluster --help' for usage\n";
  std::exit(2);
}

using Set = std::function<void(const std::string&)>;

Set rate_into(double& out) {
  return [&out](const std::string& v) {
    char* end = nullptr;
    double r = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !(r >= 0 && r <= 1)) throw std::invalid_argument("want a rate between 0 and 1");
    out = r;
  };
}

void add_fault_flags(std::vector<cli::Flag>& t, Flags& f) {
  t.push_back(
      {{"fault-5xx-rate"}, "R", "0", "answer this share of requests with a 500", rate_into(f.faults.error_5xx_rate)});
  t.push_back(
      {{"fault-429-rate"}, "R", "0", "answer this share of requests with a 429", rate_into(f.faults.error_429_rate)});
  t.push_back({{"fault-latency-ms"}, "N", "0", "delay every answer this long", [&f](const std::string& v) {
                 f.faults.latency_ms = static_cast<int>(cli::parse_int(v, 0, 3'600'000));
               }});
  t.push_back({{"fault-seed"}, "S", "1", "seed of the fault choices", [&f](const std::string& v) {
                 f.fault_seed = static_cast<std::uint64_t>(cli::parse_int(v, 0, std::numeric_limits<long long>::max()));
               }});
}

void add_auth_flags(std::vector<cli::Flag>& t, Flags& f) {
  t.push_back({{"tls"},
               "",
               "false",
               "serve HTTPS with a self-signed CA (a random admin token unless one is given)",
               [&f](const std::string& v) { f.tls = cli::parse_bool(v); }});
  t.push_back(
      {{"tls-dir"}, "DIR", "none", "write the CA, certificate and key here (needs --tls)", [&f](const std::string& v) {
         f.tls_dir = v;
       }});
  t.push_back({{"token"}, "TOKEN", "none", "require this bearer token", [&f](const std::string& v) { f.token = v; }});
  t.push_back({{"token-file"}, "FILE", "none", "require the bearer token in FILE", [&f](const std::string& v) {
                 f.token_file = v;
               }});
  t.push_back({{"anonymous"}, "", "false", "require no token, even with --tls", [&f](const std::string& v) {
                 f.anonymous = cli::parse_bool(v);
               }});
  t.push_back({{"authorization"},
               "MODE",
               "always-allow",
               "always-allow or rbac (every 403 is logged)",
               [&f](const std::string& v) {
                 if (v == "rbac" || v == "RBAC")
                   f.authorization = k8s::sim::AuthorizationMode::rbac;
                 else if (v == "always-allow" || v == "AlwaysAllow")
                   f.authorization = k8s::sim::AuthorizationMode::always_allow;
                 else
                   throw std::invalid_argument("want always-allow or rbac");
               }});
  t.push_back({{"service-account-kubeconfig"},
               "NS/NAME=FILE",
               "none",
               "write a kubeconfig with a token of that preloaded ServiceAccount (repeatable)",
               [&f](const std::string& v) {
                 if (v.find('/') == std::string::npos || v.find('=') == std::string::npos)
                   throw std::invalid_argument("want NS/NAME=FILE");
                 f.sa_kubeconfigs.push_back(v);
               },
               true});
}

std::vector<cli::Flag> flag_table(Flags& f) {
  std::vector<cli::Flag> t;
  t.push_back({{"listen"}, "HOST:PORT", "127.0.0.1:0 (a free port)", "where to serve", [&f](const std::string& v) {
                 auto addr = model::parse_listen_address(v);
                 if (!addr) throw std::invalid_argument("want HOST:PORT, got \"" + v + "\"");
                 f.host = addr->host;
                 f.port = addr->port;
               }});
  t.push_back(
      {{"kubeconfig-out"}, "FILE", "required", "write a kubeconfig for this server here", [&f](const std::string& v) {
         f.kubeconfig_out = v;
       }});
  t.push_back({{"crds"},
               "PATH",
               "none",
               "CRDs to install first (repeatable)",
               [&f](const std::string& v) { f.crds.push_back(v); },
               true});
  t.push_back({{"load"},
               "PATH",
               "none",
               "manifests to load (repeatable)",
               [&f](const std::string& v) { f.load.push_back(v); },
               true});
  t.push_back({{"generate"},
               "SPEC",
               "none",
               "generate objects: namespaces=N,agents=N,metrics_instances=N,service_monitors=N,pod_monitors=N,"
               "probes=N,secrets=N,pods=N,seed=N",
               [&f](const std::string& v) { f.generate = k8s::sim::parse_generate_spec(v); }});
  t.push_back({{"history"}, "EVENTS", "10000", "watch events kept for resuming watches", [&f](const std::string& v) {
                 f.history = static_cast<std::size_t>(cli::parse_int(v, 1, 100'000'000));
               }});
  t.push_back({{"bookmark-interval-ms"}, "MS", "60000", "send a watch BOOKMARK this often", [&f](const std::string& v) {
                 f.bookmark_ms = static_cast<long>(cli::parse_int(v, 1, 86'400'000));
               }});
  t.push_back({{"audit-log-path"},
               "FILE",
               "off",
               "append every write request to FILE as kube-apiserver's audit log",
               [&f](const std::string& v) { f.audit_log = v; }});
  add_fault_flags(t, f);
  add_auth_flags(t, f);
  cli::add_log_flags(t, f.log.level, f.log.format);
  return t;
}

// Cross-flag rules, checked after every flag is read.
void check_flags(const Flags& f) {
  if (f.kubeconfig_out.empty()) usage("--kubeconfig-out is required");
  if (int(!f.token.empty()) + int(!f.token_file.empty()) + int(f.anonymous) > 1)
    usage("--token, --token-file and --anonymous exclude each other");
  if (!f.tls_dir.empty() && !f.tls) usage("--tls-dir needs --tls");
  bool rbac = f.authorization == k8s::sim::AuthorizationMode::rbac;
  if (rbac && f.anonymous) usage("--authorization rbac needs an admin token: drop --anonymous");
}

Flags parse(int argc, char** argv) {
  Flags f;
  cli::Command c{"simcluster --kubeconfig-out FILE [flags]",
                 "The simulated Kubernetes API server as a program. Prints \"listening on http(s)://HOST:PORT\" once "
                 "ready and serves until SIGINT or SIGTERM. A token it makes up is written only to the kubeconfig, "
                 "never printed.",
                 flag_table(f),
                 {},
                 "exit codes: 0 after SIGINT/SIGTERM, 1 when the manifests cannot be loaded or the address "
                 "cannot be served, 2 for bad flags.\n--version and -version print the version and exit 0."};
  try {
    if (argc >= 2 && std::string(argv[1]) == "help") argv[1] = const_cast<char*>("--help");
    if (cli::parse(c, argc - 1, argv + 1) == cli::Parsed::help) {
      std::cout << cli::help_text(c);
      std::exit(0);
    }
  } catch (const std::invalid_argument& e) {
    usage(e.what());
  }
  check_flags(f);
  return f;
}

// The bearer token to require: given, read from a file, or made up for
// --tls unless --anonymous. Empty means no authentication.
std::string resolve_token(const Flags& f) {
  if (!f.token_file.empty()) {
    std::ifstream in(f.token_file);
    std::string token;
    if (!in || !std::getline(in, token)) throw std::runtime_error("cannot read --token-file " + f.token_file);
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
    if (token.empty()) throw std::runtime_error("--token-file " + f.token_file + " is empty");
    return token;
  }
  bool rbac = f.authorization == k8s::sim::AuthorizationMode::rbac;
  if (!f.token.empty() || f.anonymous || (!f.tls && !rbac)) return f.token;
  return k8s::sim::random_token();
}

void write_private(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  ::chmod(path.c_str(), 0600);  // it holds a token
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

// Each NS/NAME=FILE: a kubeconfig authenticating as that ServiceAccount.
void write_service_account_kubeconfigs(k8s::sim::Server& server, const Flags& flags) {
  for (const auto& spec : flags.sa_kubeconfigs) {
    std::size_t slash = spec.find('/'), eq = spec.find('=', slash);
    std::string ns = spec.substr(0, slash), name = spec.substr(slash + 1, eq - slash - 1);
    std::string kubeconfig = server.service_account_kubeconfig(ns, name);  // throws when it does not exist
    write_private(spec.substr(eq + 1), kubeconfig);
  }
}

// Starts serving and writes the kubeconfig; throws on failure.
std::unique_ptr<k8s::sim::Server> start_server(k8s::sim::Cluster& cluster, const Flags& flags, model::Log log) {
  k8s::sim::ServerOptions options;
  options.host = flags.host;
  options.port = flags.port;
  options.api.bookmark_interval = std::chrono::milliseconds(flags.bookmark_ms);
  options.faults = flags.faults;
  options.fault_seed = flags.fault_seed;
  options.tls = flags.tls;
  options.token = resolve_token(flags);
  options.authorization = flags.authorization;
  options.audit_log_path = flags.audit_log;
  if (flags.authorization == k8s::sim::AuthorizationMode::rbac)
    options.on_denied = [log](const std::string& message) {
      log(model::log_warn("authorization", "request denied").with("error", message));
    };
  auto server = std::make_unique<k8s::sim::Server>(cluster, options);
  if (!flags.tls_dir.empty()) k8s::sim::write_tls_files(*server->tls(), flags.tls_dir);
  server->start();
  std::ofstream out(flags.kubeconfig_out, std::ios::trunc);
  // The kubeconfig may hold the token: readable by its owner only.
  if (!options.token.empty()) ::chmod(flags.kubeconfig_out.c_str(), 0600);
  out << server->kubeconfig();
  if (!out) throw std::runtime_error("cannot write " + flags.kubeconfig_out);
  write_service_account_kubeconfigs(*server, flags);
  return server;
}

}  // namespace

int main(int argc, char** argv) {
  // A peer that hangs up during a TLS write must not kill the process
  // (OpenSSL writes with write(2), not send(MSG_NOSIGNAL)).
  std::signal(SIGPIPE, SIG_IGN);
  if (model::version_requested(argc, argv, false)) {
    std::cout << model::version_line("simcluster", cli::this_build()) << "\n";
    return 0;
  }
  Flags flags = parse(argc, argv);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // threads started below inherit the mask

  StartupClock clock(flags.generate.has_value());
  k8s::sim::ClusterOptions cluster_options;
  cluster_options.store.history_limit = flags.history;
  if (flags.generate) cluster_options.store.seed = flags.generate->seed + 1;  // 0 would mean random uids
  k8s::sim::Cluster cluster(clock, cluster_options);
  try {
    std::vector<std::string> paths = flags.crds;
    paths.insert(paths.end(), flags.load.begin(), flags.load.end());
    k8s::sim::load_manifests(cluster, paths);
    if (flags.generate) k8s::sim::generate_cluster(cluster, *flags.generate);
    clock.start();
  } catch (const std::exception& e) {
    std::cerr << "simcluster: " << e.what() << "\n";
    return 1;
  }
  actors::log::ProcessLog process_log(flags.log);
  std::unique_ptr<k8s::sim::Server> server;
  try {
    server = start_server(cluster, flags, process_log.log());
  } catch (const std::exception& e) {
    std::cerr << "simcluster: " << e.what() << "\n";
    return 1;
  }
  std::cout << "listening on " << server->url() << std::endl;
  int sig = 0;
  sigwait(&signals, &sig);
  server->stop();
  return 0;
}
