// simcluster: the simulated Kubernetes API server as a program.
//   simcluster --listen HOST:PORT --kubeconfig-out FILE [--crds DIR] [--load PATH...]
//              [--fault-5xx-rate R] [--fault-429-rate R] [--fault-latency-ms N] [--fault-seed S]
//              [--tls [--tls-dir DIR]] [--token TOKEN | --token-file FILE | --anonymous]
//              [--generate SPEC] [--authorization always-allow|rbac]
//              [--service-account-kubeconfig NS/NAME=FILE...] [--audit-log-path FILE]
//              [--log-level LEVEL] [--log-format logfmt|json]
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
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "actors/log/process_log.hpp"
#include "cmd/build_info.hpp"
#include "k8s/sim/cluster.hpp"
#include "k8s/sim/generate.hpp"
#include "k8s/sim/loader.hpp"
#include "k8s/sim/server.hpp"
#include "k8s/sim/tls.hpp"

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
  std::cerr << "simcluster: " << problem << "\n"
            << "usage: simcluster --listen HOST:PORT --kubeconfig-out FILE [--crds DIR] [--load PATH...]\n"
            << "                  [--history EVENTS] [--bookmark-interval-ms MS]\n"
            << "                  [--fault-5xx-rate R] [--fault-429-rate R] [--fault-latency-ms N] [--fault-seed S]\n"
            << "                  [--tls [--tls-dir DIR]] [--token TOKEN | --token-file FILE | --anonymous]\n"
            << "                  [--generate namespaces=N,agents=N,metrics_instances=N,service_monitors=N,\n"
            << "                              pod_monitors=N,probes=N,secrets=N,pods=N,seed=N]\n"
            << "                  [--authorization always-allow|rbac] [--service-account-kubeconfig NS/NAME=FILE...]\n"
            << "                  [--audit-log-path FILE] [--log-level debug|info|warn|error]\n"
            << "                  [--log-format logfmt|json]\n"
            << "       simcluster --version | -version\n";
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

void parse_authorization(const std::string& text, Flags& f) {
  if (text == "rbac" || text == "RBAC")
    f.authorization = k8s::sim::AuthorizationMode::rbac;
  else if (text == "always-allow" || text == "AlwaysAllow")
    f.authorization = k8s::sim::AuthorizationMode::always_allow;
  else
    usage("--authorization wants always-allow or rbac");
}

void parse_generate(const std::string& text, Flags& f) {
  try {
    f.generate = k8s::sim::parse_generate_spec(text);
  } catch (const std::invalid_argument& e) {
    usage(e.what());
  }
}

void parse_log_level(const std::string& text, Flags& f) {
  auto level = model::parse_log_level(text);
  if (!level) usage(model::log_level_error("--log-level", text));
  f.log.level = *level;
}

void parse_log_format(const std::string& text, Flags& f) {
  auto format = model::parse_log_format(text);
  if (!format) usage(model::log_format_error("--log-format", text));
  f.log.format = *format;
}

// Handles the flags without a value; false when `a` is not one of them.
bool parse_switch(const std::string& a, Flags& f) {
  if (a == "--tls")
    f.tls = true;
  else if (a == "--anonymous")
    f.anonymous = true;
  else
    return false;
  return true;
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
    if (parse_switch(a, f)) continue;
    if (a == "--listen")
      parse_listen(value(), f);
    else if (a == "--kubeconfig-out")
      f.kubeconfig_out = value();
    else if (a == "--crds")
      (list = &f.crds)->push_back(value());
    else if (a == "--load")
      (list = &f.load)->push_back(value());
    else if (a == "--tls-dir")
      f.tls_dir = value();
    else if (a == "--token")
      f.token = value();
    else if (a == "--token-file")
      f.token_file = value();
    else if (a == "--generate")
      parse_generate(value(), f);
    else if (a == "--authorization")
      parse_authorization(value(), f);
    else if (a == "--service-account-kubeconfig")
      (list = &f.sa_kubeconfigs)->push_back(value());
    else if (a == "--audit-log-path")
      f.audit_log = value();
    else if (a == "--log-level")
      parse_log_level(value(), f);
    else if (a == "--log-format")
      parse_log_format(value(), f);
    else if (a == "--history")
      f.history = std::strtoul(value().c_str(), nullptr, 10);
    else if (a == "--bookmark-interval-ms")
      f.bookmark_ms = std::strtol(value().c_str(), nullptr, 10);
    else if (a.rfind("--fault-", 0) != 0 || !parse_fault_flag(a, value(), f))
      usage("unknown flag " + a);
  }
  if (f.kubeconfig_out.empty()) usage("--kubeconfig-out is required");
  if (int(!f.token.empty()) + int(!f.token_file.empty()) + int(f.anonymous) > 1)
    usage("--token, --token-file and --anonymous exclude each other");
  if (!f.tls_dir.empty() && !f.tls) usage("--tls-dir needs --tls");
  bool rbac = f.authorization == k8s::sim::AuthorizationMode::rbac;
  if (rbac && f.anonymous) usage("--authorization rbac needs an admin token: drop --anonymous");
  for (const auto& spec : f.sa_kubeconfigs)
    if (spec.find('/') == std::string::npos || spec.find('=') == std::string::npos)
      usage("--service-account-kubeconfig wants NS/NAME=FILE");
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
