// agent-operator: the command-line entry point. Subcommands:
//   render -f PATH...   print every object the controller would create
//   version             print the version (also --version, -version)
#include <csignal>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cmd/build_info.hpp"
#include "commands.hpp"
#include "flags.hpp"
#include "input.hpp"
#include "model/parse.hpp"
#include "model/render.hpp"
#include "operator.hpp"

namespace {

constexpr const char* kUsage =
    "usage: agent-operator <command> [flags]\n"
    "\n"
    "commands:\n"
    "  render -f PATH...   print the objects the controller would create for every\n"
    "                      GrafanaAgent in the given files/directories ('-' = stdin)\n"
    "     --labels k=v,...   extra labels for created objects (upstream's -labels)\n"
    "     --explain NS/NAME  print why each resource is in or out of that agent's hierarchy\n"
    "     --upstream-compat  reproduce upstream's known bugs (see docs/differences.md)\n"
    "     --integrations-sd-url URL  the operator's integrations SD endpoint, as agents reach it\n"
    "                        (IntegrationMonitor jobs; default the agent-operator-metrics Service)\n"
    "  run [flags]         run the controller against a cluster\n"
    "  demo [flags]        run the controller against an embedded simcluster loaded with\n"
    "                      deploy/crds, deploy/prometheus-operator-crds and deploy/examples;\n"
    "                      writes a kubeconfig for kubectl\n"
    "     --kubeconfig-out FILE  (default agent-operator-demo.kubeconfig)\n"
    "     --load PATH            manifests to load instead of deploy/examples (repeatable)\n"
    "  replay JOURNAL...   print the objects a recorded journal leads to (JOURNAL with its\n"
    "                      rotated files JOURNAL.N..JOURNAL.1 first, or the files given, oldest first)\n"
    "     --until SEQ        stop after this event\n"
    "     --explain NS/NAME  print why each resource is in or out of that agent's hierarchy\n"
    "     --partial          replay a journal without a base state anyway (see replay --help)\n"
    "  version             print the version and revision (also --version, -version)\n"
    "\n"
    "exit codes: 0 ok, 1 some resource is invalid (details on stderr), 2 unusable input\n";

int explain(const model::Inventory& inv, const std::string& target) {
  auto slash = target.find('/');
  if (slash == std::string::npos) {
    std::cerr << "agent-operator: --explain wants NAMESPACE/NAME, got \"" << target << "\"\n";
    return 2;
  }
  auto it = inv.agents.find({target.substr(0, slash), target.substr(slash + 1)});
  if (it == inv.agents.end()) {
    std::cerr << "agent-operator: GrafanaAgent " << target << " not found in the input\n";
    return 1;
  }
  for (const auto& line : model::explain_hierarchy(inv, it->second.obj)) std::cout << line << "\n";
  return 0;
}

int render(int argc, char** argv) {
  std::vector<std::string> paths;
  model::RenderOptions opts;
  std::string explain_target;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* flag) -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(std::string(flag) + " needs a value");
      return argv[++i];
    };
    if (a == "-f" || a == "--filename") {
      paths.push_back(value("-f"));
    } else if (a.rfind("-f=", 0) == 0 || a.rfind("--filename=", 0) == 0) {
      paths.push_back(a.substr(a.find('=') + 1));
    } else if (a == "--labels" || a == "-labels") {
      if (!cli::parse_labels(value("--labels"), opts.operator_labels))
        throw std::invalid_argument("--labels wants k=v[,k=v...]");
    } else if (a == "--explain") {
      explain_target = value("--explain");
    } else if (a == "--upstream-compat") {
      opts.upstream_compat = true;
    } else if (a == "--integrations-sd-url") {
      opts.integrations_sd_url = cli::check_sd_url(value("--integrations-sd-url"));
    } else {
      throw std::invalid_argument("unknown render flag \"" + a + "\"");
    }
  }
  if (paths.empty()) throw std::invalid_argument("render needs at least one -f PATH");
  model::Inventory inv;
  try {
    cli::load_paths(paths, inv);
  } catch (const model::ParseError& e) {
    std::cerr << "agent-operator: " << e.what() << "\n";
    return 2;
  } catch (const std::runtime_error& e) {
    std::cerr << "agent-operator: " << e.what() << "\n";
    return 2;
  }
  if (!explain_target.empty()) return explain(inv, explain_target);
  model::RenderAll all = model::render_all(inv, opts);
  std::cout << model::to_yaml_stream(all.objects);
  for (const auto& p : all.problems) std::cerr << (p.warning ? "warning: " : "") << p.str() << "\n";
  return model::has_errors(all.problems) ? 1 : 0;
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
  if (argc < 2 || std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0) {
    std::cout << kUsage << cli::operator_flags_usage();
    return argc < 2 ? 2 : 0;
  }
  std::string cmd = argv[1];
  try {
    if (cmd == "render") return render(argc - 2, argv + 2);
    if (cmd == "run") return cli::run(argc - 2, argv + 2);
    if (cmd == "demo") return cli::demo(argc - 2, argv + 2);
    if (cmd == "replay") return cli::replay(argc - 2, argv + 2);
    std::cerr << "agent-operator: unknown command \"" << cmd << "\"\n\n" << kUsage;
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "agent-operator: " << e.what() << "\n\n" << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "agent-operator: internal error: " << e.what() << "\n";
    return 3;
  }
}
