// target-allocator: assigns the scrape targets of a Prometheus config to
// collectors and serves them over HTTP (reference §2 shapes). The runtime
// (discovery, journal, allocation actor, server, elector) is
// actors/allocation/runtime.hpp; this file parses flags, runs it until
// SIGINT/SIGTERM, and runs `replay`.
// Usage: target-allocator --config-file FILE [flags] (flags.hpp; --help,
// -h or `help` prints them with their defaults),
//        target-allocator replay JOURNAL [flags] (`help replay`),
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
#include <limits>
#include <sstream>
#include <system_error>

#include "actors/allocation/runtime.hpp"
#include "actors/controller.hpp"
#include "actors/log/process_log.hpp"
#include "allocation/runtime/config.hpp"
#include "cmd/build_info.hpp"
#include "cmd/flagset/log_flags.hpp"
#include "flags.hpp"

namespace {

using target_allocator::Flags;
using target_allocator::parse_listen_addr;
using target_allocator::usage;

constexpr const char* kReplayDescription =
    "Folds a journal written with --journal and prints the allocation it leads to (or why one target went\n"
    "where it did, with --explain).";

struct ReplayFlags {
  std::string path;
  allocation::runtime::ReplayOptions options;
  actors::log::ProcessLogOptions log;
};

cli::Command replay_command(ReplayFlags& f) {
  std::vector<cli::Flag> t;
  t.push_back({{"until"}, "SEQ", "the end", "stop after this event", [&f](const std::string& v) {
                 f.options.until =
                     static_cast<std::uint64_t>(cli::parse_int(v, 0, std::numeric_limits<long long>::max()));
               }});
  t.push_back(
      {{"explain"}, "JOB/ADDRESS", "off", "print why that target went to its collector", [&f](const std::string& v) {
         if (v.find('/') == std::string::npos) throw std::invalid_argument("want JOB/ADDRESS");
         f.options.explain = v;
       }});
  cli::add_log_flags(t, f.log.level, f.log.format);
  return {"target-allocator replay JOURNAL [flags]", kReplayDescription, std::move(t),
          [&f](const std::string& arg) {
            if (!f.path.empty()) throw std::invalid_argument("one JOURNAL only");
            f.path = arg;
          },
          "exit codes: 0 ok, 2 bad flags or an unreadable or corrupt journal"};
}

int replay(int argc, char** argv) {
  ReplayFlags f;
  cli::Command c = replay_command(f);
  try {
    if (cli::parse(c, argc - 2, argv + 2) == cli::Parsed::help) {
      std::cout << cli::help_text(c);
      return 0;
    }
    if (f.path.empty()) throw cli::UsageError("JOURNAL: required");
  } catch (const std::invalid_argument& e) {
    std::cerr << "target-allocator replay: " << e.what() << "\nrun 'target-allocator replay --help' for usage\n";
    return 2;
  }
  const std::string& path = f.path;
  const auto& options = f.options;
  const auto& log_options = f.log;
  std::ifstream in(path);
  if (!in) {
    std::cerr << "target-allocator replay: cannot read " << path << "\n";
    return 2;
  }
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
  if (argc >= 2 && std::string(argv[1]) == "help") {
    if (argc >= 3 && std::string(argv[2]) == "replay") {
      char* args[] = {argv[0], argv[2], const_cast<char*>("--help")};
      return replay(3, args);
    }
    std::cout << target_allocator::help();
    return 0;
  }
  Flags flags;
  try {
    if (target_allocator::parse_flags(argc, argv, flags) == cli::Parsed::help) {
      std::cout << target_allocator::help();
      return 0;
    }
  } catch (const std::invalid_argument& e) {
    return usage(e.what());
  }
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
  actors::tune_target_allocator_memory();  // controller.hpp; before any thread starts
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
