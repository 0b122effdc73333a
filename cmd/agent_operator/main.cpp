// agent-operator: the command-line entry point; dispatches to the
// subcommands (commands.hpp), each with its own flag table and --help.
// `help`, -h and --help alone print the overview; `help CMD` and
// `CMD --help` print CMD's flags with their defaults. Exit codes: 0 ok or
// asked-for help, 1 as the subcommand says, 2 usage errors (naming the
// flag), 3 an internal error.
#include <csignal>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cmd/build_info.hpp"
#include "cmd/flagset/flagset.hpp"
#include "commands.hpp"

namespace {

constexpr const char* kUsage =
    "usage: agent-operator <command> [flags]\n"
    "\n"
    "A Kubernetes operator for the Grafana Agent: a replacement for the Grafana Agent Operator.\n"
    "\n"
    "commands:\n"
    "  render -f PATH...   print the objects the controller would create for the GrafanaAgents in files\n"
    "  run                 run the controller against a cluster (upstream's flags accepted)\n"
    "  demo                run the controller against an embedded simcluster loaded with the examples\n"
    "  replay JOURNAL...   print the objects a recorded journal leads to, and its problems\n"
    "  version             print the version and revision (also --version, -version)\n"
    "  help [COMMAND]      print this, or a command's flags with their defaults (also COMMAND --help)\n"
    "\n"
    "exit codes: 0 ok, 1 some resource is invalid or the controller could not run (details on stderr),\n"
    "2 usage error or unusable input\n";

using Subcommand = int (*)(int, char**);

const std::map<std::string, Subcommand>& subcommands() {
  static const std::map<std::string, Subcommand> m{
      {"render", cli::render}, {"run", cli::run}, {"demo", cli::demo}, {"replay", cli::replay}};
  return m;
}

int usage_error(const std::string& cmd, const std::string& message) {
  std::cerr << "agent-operator: " << message << "\n"
            << "run 'agent-operator " << (cmd.empty() ? "" : cmd + " ") << "--help' for usage\n";
  return 2;
}

// `help` and `help CMD`.
int help(int argc, char** argv) {
  if (argc < 3) {
    std::cout << kUsage;
    return 0;
  }
  std::string cmd = argv[2];
  if (cmd == "version" || cmd == "help") {
    std::cout << kUsage;
    return 0;
  }
  auto it = subcommands().find(cmd);
  if (it == subcommands().end()) return usage_error("", "help: unknown command \"" + cmd + "\"");
  char flag[] = "--help";
  char* args[] = {flag, nullptr};
  return it->second(1, args);
}

}  // namespace

int main(int argc, char** argv) {
  // A peer that hangs up during a TLS write must not kill the process
  // (OpenSSL writes with write(2), not send(MSG_NOSIGNAL)).
  std::signal(SIGPIPE, SIG_IGN);
  if (model::version_requested(argc, argv, true)) {
    std::cout << model::version_line("agent-operator", cli::this_build()) << "\n";
    return 0;
  }
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  std::string cmd = argv[1];
  if (cli::is_help(cmd)) return help(argc, argv);
  auto it = subcommands().find(cmd);
  if (it == subcommands().end()) return usage_error("", "unknown command \"" + cmd + "\"");
  try {
    return it->second(argc - 2, argv + 2);
  } catch (const std::invalid_argument& e) {  // cli::UsageError and bad values found after parsing
    return usage_error(cmd, e.what());
  } catch (const std::exception& e) {
    std::cerr << "agent-operator: internal error: " << e.what() << "\n";
    return 3;
  }
}
