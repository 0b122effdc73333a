// target-allocator: assigns the scrape targets of a Prometheus config to
// collectors and serves them over HTTP (reference §2 shapes). The runtime
// (discovery, journal, allocation actor, server, elector) is
// actors/allocation/runtime.hpp; this file parses flags, runs it until
// SIGINT/SIGTERM, and runs `replay`.
// Usage: target-allocator --config-file FILE [--listen-addr HOST:PORT]
//        [--kubeconfig-path FILE] [--enable-prometheus-cr-watcher[=BOOL]]
//        [--collector-namespace NS] [--leader-elect[=BOOL]] [--leader-elect-*]
//        [--enable-https-server[=BOOL] --https-ca-file F --https-tls-cert-file F
//         --https-tls-key-file F [--listen-addr-https HOST:PORT]] [--journal FILE]
//        [--config-reload-interval D] [--log-level L] [--log-format F]
//        target-allocator replay JOURNAL [--until SEQ] [--explain JOB/ADDRESS]
//                                [--log-level L] [--log-format F]
//        target-allocator version | --version | -version
// Exit codes: 0 after SIGINT/SIGTERM (replay, version: after printing), 2 on bad
// flags or config (including a config that needs the Kubernetes API
// without a usable cluster connection), a bad journal or a --journal file
// that cannot be written, 1 when the address cannot be bound or the
// allocation fails. Prints "listening on http://HOST:PORT" to stdout once
// the first allocation is served. Logs (logfmt or JSON) go to stderr: the
// config loaded and each reload, discovery's target counts per job and the
// collector set when they change, and problems. SIGHUP reloads the config
// file (as does a change seen every --config-reload-interval); an invalid
// one is logged and the running config stays.
#include <csignal>
#include <fstream>
#include <iostream>
#include <sstream>
#include <system_error>

#include "actors/allocation/runtime.hpp"
#include "actors/log/process_log.hpp"
#include "allocation/runtime/config.hpp"
#include "cmd/build_info.hpp"
#include "flags.hpp"

namespace {

using target_allocator::Flags;
using target_allocator::parse_listen_addr;
using target_allocator::usage;

int replay_usage(const std::string& problem) {
  std::cerr << "target-allocator replay: " << problem
            << "\nusage: target-allocator replay JOURNAL [--until SEQ] [--explain JOB/ADDRESS] [--log-level L]"
               " [--log-format F]\n";
  return 2;
}

int replay(int argc, char** argv) {
  std::string path;
  allocation::runtime::ReplayOptions options;
  actors::log::ProcessLogOptions log_options;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool takes_value = arg == "--until" || arg == "--explain" || target_allocator::is_log_flag(arg);
    if (takes_value && i + 1 == argc) return replay_usage(arg + ": missing value");
    if (arg == "--until") {
      const std::string v = argv[++i];
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 19)
        return replay_usage("--until: want a seq (a non-negative integer), got \"" + v + "\"");
      options.until = std::stoull(v);
    } else if (arg == "--explain") {
      options.explain = argv[++i];
      if (options.explain.find('/') == std::string::npos) return replay_usage("--explain: want JOB/ADDRESS");
    } else if (target_allocator::is_log_flag(arg)) {
      std::string problem;
      if (!target_allocator::parse_log_flag(arg, argv[++i], log_options.level, log_options.format, problem))
        return replay_usage(problem);
    } else if (path.empty() && !arg.starts_with("--")) {
      path = arg;
    } else {
      return replay_usage(arg + ": unexpected argument");
    }
  }
  if (path.empty()) return replay_usage("JOURNAL: required");
  std::ifstream in(path);
  if (!in) return replay_usage("cannot read " + path);
  allocation::runtime::Replayer replayer(options);
  std::string line;
  std::size_t line_no = 0;
  try {
    while (std::getline(in, line)) {
      ++line_no;
      if (in.eof()) break;  // no '\n': a torn last line (a crash mid-write) is not applied
      if (!replayer.feed(line, line_no)) break;
    }
  } catch (const allocation::runtime::InputError& e) {
    std::cerr << "target-allocator replay: " << path << ": " << e.what() << "\n";
    return 2;
  }
  actors::log::ProcessLog process_log(log_options);
  for (const auto& e : replayer.logs()) process_log.write(e);
  std::cout << replayer.report();
  return 0;
}

actors::ta::RuntimeOptions runtime_options(const Flags& flags, std::string config_text, model::Log log) {
  actors::ta::RuntimeOptions o;
  o.config_text = std::move(config_text);
  o.config_path = flags.config_file;
  o.kubeconfig_path = flags.kubeconfig_path;
  o.prometheus_cr_watcher = flags.prometheus_cr_watcher;
  o.collector_namespace = flags.collector_namespace;
  o.leader_elect = flags.leader_elect;
  o.lease = flags.lease;
  o.journal_path = flags.journal;
  o.config_reload_interval = flags.config_reload_interval;
  o.log = std::move(log);
  return o;
}

// Binds, serves until SIGINT/SIGTERM (SIGHUP reloads the config), then
// stops (handing the Lease back).
int serve(actors::ta::TargetAllocator& ta, const allocation::ServerOptions& options, const model::Log& log) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before any thread starts
  try {
    ta.start();
  } catch (const std::system_error& e) {  // --journal: the file cannot be kept or created
    std::cerr << "target-allocator: --journal: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    log(model::log_error("target-allocator", "cannot start; exiting").with("error", e.what()));
    return 1;
  }
  std::cout << "listening on http://" << options.host << ":" << ta.port() << std::endl;
  log(model::log_info("target-allocator", "serving").with("address", options.host + ":" + std::to_string(ta.port())));
  if (options.https) {
    std::cout << "serving credentials over mutual TLS on https://" << options.https->host << ":" << ta.https_port()
              << std::endl;
    log(model::log_info("target-allocator", "serving credentials over mutual TLS")
            .with("address", options.https->host + ":" + std::to_string(ta.https_port())));
  }
  int sig = 0;
  while (sigwait(&signals, &sig) == 0 && sig == SIGHUP) {
    log(model::log_info("target-allocator", "SIGHUP: reading the config file"));
    ta.reload();
  }
  log(model::log_info("target-allocator", "signal received; stopping"));
  ta.stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // A peer that hangs up during a TLS write must not kill the process
  // (OpenSSL writes with write(2), not send(MSG_NOSIGNAL)).
  std::signal(SIGPIPE, SIG_IGN);
  if (model::version_requested(argc, argv, true)) {
    std::cout << model::version_line("target-allocator", cli::this_build()) << "\n";
    return 0;
  }
  if (argc >= 2 && std::string(argv[1]) == "replay") return replay(argc, argv);
  Flags flags;
  std::string problem;
  if (!target_allocator::parse_flags(argc, argv, flags, problem)) return usage(problem);
  allocation::ServerOptions options;
  if (!parse_listen_addr(flags.listen_addr, options.host, options.port))
    return usage("--listen-addr: want HOST:PORT or :PORT");
  if (flags.https) {
    allocation::HttpsOptions& tls = options.https.emplace();
    if (!parse_listen_addr(flags.https_listen_addr, tls.host, tls.port))
      return usage("--listen-addr-https: want HOST:PORT or :PORT");
    tls.cert_file = flags.https_cert_file;
    tls.key_file = flags.https_key_file;
    tls.client_ca_file = flags.https_ca_file;
  }
  std::ifstream in(flags.config_file);
  if (!in) return usage("--config-file: cannot read " + flags.config_file);
  std::stringstream text;
  text << in.rdbuf();
  actors::log::ProcessLog process_log({.level = flags.log_level, .format = flags.log_format});
  std::unique_ptr<actors::ta::TargetAllocator> ta;
  try {
    auto o = runtime_options(flags, text.str(), process_log.log());
    o.server = options;
    ta = std::make_unique<actors::ta::TargetAllocator>(std::move(o));
    ta->server().metrics().set_build_info(cli::this_build());
  } catch (const std::exception& e) {
    std::cerr << "target-allocator: " << e.what() << "\n";
    return 2;
  }
  return serve(*ta, options, process_log.log());
}
