// target-allocator: assigns the scrape targets of a Prometheus config to
// collectors and serves them over HTTP (reference §2 shapes).
// Usage: target-allocator --config-file FILE [--listen-addr HOST:PORT]
// Exit codes: 0 after SIGINT/SIGTERM, 2 on bad flags or config, 1 when the
// address cannot be bound. Prints "listening on http://HOST:PORT" once the
// first allocation is served.
#include <csignal>
#include <fstream>
#include <iostream>
#include <sstream>

#include "allocation/allocator.hpp"
#include "allocation/filter.hpp"
#include "allocation/server.hpp"
#include "config.hpp"

namespace {

struct Flags {
  std::string config_file;
  std::string listen_addr = ":8080";
};

int usage(const std::string& problem) {
  std::cerr << "target-allocator: " << problem << "\n"
            << "usage: target-allocator --config-file FILE [--listen-addr HOST:PORT]\n";
  return 2;
}

// Accepts "--flag value" and "--flag=value".
bool parse_flags(int argc, char** argv, Flags& flags, std::string& problem) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    if (auto eq = arg.find('='); eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg.resize(eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      problem = arg + ": missing value";
      return false;
    }
    if (arg == "--config-file")
      flags.config_file = value;
    else if (arg == "--listen-addr")
      flags.listen_addr = value;
    else {
      problem = arg + ": unknown flag";
      return false;
    }
  }
  if (flags.config_file.empty()) problem = "--config-file: required";
  return problem.empty();
}

bool parse_listen_addr(const std::string& addr, allocation::ServerOptions& out) {
  auto colon = addr.rfind(':');
  if (colon == std::string::npos) return false;
  out.host = colon == 0 ? "0.0.0.0" : addr.substr(0, colon);
  try {
    std::size_t used = 0;
    out.port = std::stoi(addr.substr(colon + 1), &used);
    return used == addr.size() - colon - 1 && out.port >= 0 && out.port < 65536;
  } catch (const std::exception&) {
    return false;
  }
}

std::vector<allocation::Collector> static_collectors(const std::vector<std::string>& names) {
  std::vector<allocation::Collector> out;
  for (const auto& n : names) out.push_back({n, "", true, {}});
  return out;
}

int serve(target_allocator::Config config, const allocation::ServerOptions& options) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before the server thread starts

  allocation::SystemClock clock;
  allocation::Allocator allocator(allocation::make_strategy(config.strategy), {}, clock);
  if (config.filter_strategy == "relabel-config") {
    allocation::RelabelFilter filter;
    filter.set_scrape_configs(config.scrape_configs);
    filter.apply(config.targets);
  }
  allocator.set_collectors(static_collectors(config.collectors));
  allocator.set_targets(std::move(config.targets));

  allocation::AllocationServer server(options);
  server.publish(allocator, config.scrape_configs);
  try {
    server.start();
  } catch (const std::exception& e) {
    std::cerr << "target-allocator: " << e.what() << "\n";
    return 1;
  }
  std::cout << "listening on http://" << options.host << ":" << server.port() << std::endl;
  int sig = 0;
  sigwait(&signals, &sig);
  server.stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  std::string problem;
  if (!parse_flags(argc, argv, flags, problem)) return usage(problem);
  allocation::ServerOptions options;
  if (!parse_listen_addr(flags.listen_addr, options)) return usage("--listen-addr: want HOST:PORT or :PORT");
  std::ifstream in(flags.config_file);
  if (!in) return usage("--config-file: cannot read " + flags.config_file);
  std::stringstream text;
  text << in.rdbuf();
  try {
    auto config = target_allocator::load_config(text.str(), flags.config_file);
    allocation::make_strategy(config.strategy);  // validate before serving
    return serve(std::move(config), options);
  } catch (const std::exception& e) {
    std::cerr << "target-allocator: " << e.what() << "\n";
  }
  return 2;
}
