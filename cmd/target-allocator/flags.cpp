#include "flags.hpp"

#include <chrono>
#include <iostream>
#include <map>

#include <unistd.h>

#include "model/listen_address.hpp"
#include "model/scrape/common.hpp"

namespace target_allocator {

namespace {

std::string default_identity() {
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  return std::string(host) + "_" + std::to_string(::getpid());
}

constexpr const char* kUsage =
    "usage: target-allocator --config-file FILE [--listen-addr HOST:PORT] [--kubeconfig-path FILE]\n"
    "                        [--enable-prometheus-cr-watcher[=BOOL]] [--collector-namespace NS]\n"
    "                        [--leader-elect[=BOOL]] [--leader-elect-lease-name NAME] [--leader-elect-namespace NS]\n"
    "                        [--leader-elect-lease-duration D] [--leader-elect-renew-deadline D]\n"
    "                        [--leader-elect-retry-period D] [--leader-elect-identity ID]\n"
    "                        [--enable-https-server[=BOOL]] [--listen-addr-https HOST:PORT] [--https-ca-file F]\n"
    "                        [--https-tls-cert-file F] [--https-tls-key-file F] [--journal FILE]\n"
    "                        [--config-reload-interval D] [--log-level LEVEL] [--log-format logfmt|json]\n"
    "       target-allocator replay JOURNAL [--until SEQ] [--explain JOB/ADDRESS] [--log-level L] [--log-format F]\n"
    "--log-level: debug, info (default), warn or error (all and none as prometheus-operator takes them);\n"
    "--log-format: logfmt (default) or json; both also as upstream's -log.level and -log.format. Logs go to stderr.\n"
    "       target-allocator version | --version | -version\n";

// --leader-elect-*: names and durations ("15s", "500ms") of the Lease.
bool parse_lease_flag(const std::string& arg, const std::string& value, k8s::lease::LeaderConfig& lease,
                      std::string& problem) {
  auto duration = [&](std::chrono::milliseconds& out) {
    auto ms = model::scrape::parse_duration(value);
    if (ms && *ms > 0)
      out = std::chrono::milliseconds(*ms);
    else
      problem = arg + ": \"" + value + "\" is not a positive duration (e.g. 500ms, 15s)";
    return problem.empty();
  };
  if (arg == "--leader-elect-lease-name")
    lease.name = value;
  else if (arg == "--leader-elect-namespace")
    lease.ns = value;
  else if (arg == "--leader-elect-identity")
    lease.identity = value;
  else if (arg == "--leader-elect-lease-duration")
    return duration(lease.lease_duration);
  else if (arg == "--leader-elect-renew-deadline")
    return duration(lease.renew_deadline);
  else if (arg == "--leader-elect-retry-period")
    return duration(lease.retry_period);
  else
    problem = arg + ": unknown flag";
  if (problem.empty() && value.empty()) problem = arg + ": must not be empty";
  return problem.empty();
}

// Cross-flag rules, checked after every flag is read.
bool check_flags(const Flags& flags, std::string& problem) {
  if (flags.config_file.empty()) problem = "--config-file: required";
  const auto& l = flags.lease;
  if (problem.empty() && !(l.retry_period < l.renew_deadline && l.renew_deadline < l.lease_duration))
    problem = "--leader-elect-*: want retry-period < renew-deadline < lease-duration";
  if (problem.empty() && flags.https)
    for (const auto& [flag, file] : {std::pair{"--https-ca-file", &flags.https_ca_file},
                                     std::pair{"--https-tls-cert-file", &flags.https_cert_file},
                                     std::pair{"--https-tls-key-file", &flags.https_key_file}})
      if (file->empty()) {
        problem = std::string(flag) + ": required with --enable-https-server";
        break;
      }
  return problem.empty();
}

}  // namespace

int usage(const std::string& problem) {
  std::cerr << "target-allocator: " << problem << "\n" << kUsage;
  return 2;
}

bool parse_flags(int argc, char** argv, Flags& flags, std::string& problem) {
  const std::map<std::string, bool*> booleans{{"--enable-prometheus-cr-watcher", &flags.prometheus_cr_watcher},
                                              {"--leader-elect", &flags.leader_elect},
                                              {"--enable-https-server", &flags.https}};
  const std::map<std::string, std::string*> strings{{"--config-file", &flags.config_file},
                                                    {"--listen-addr", &flags.listen_addr},
                                                    {"--kubeconfig-path", &flags.kubeconfig_path},
                                                    {"--collector-namespace", &flags.collector_namespace},
                                                    {"--listen-addr-https", &flags.https_listen_addr},
                                                    {"--https-ca-file", &flags.https_ca_file},
                                                    {"--https-tls-cert-file", &flags.https_cert_file},
                                                    {"--https-tls-key-file", &flags.https_key_file},
                                                    {"--journal", &flags.journal}};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    if (auto eq = arg.find('='); eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg.resize(eq);
    } else if (booleans.count(arg)) {
      value = "true";
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      problem = arg + ": missing value";
      return false;
    }
    if (auto b = booleans.find(arg); b != booleans.end()) {
      if (value != "true" && value != "false") {
        problem = arg + ": want true or false";
        return false;
      }
      *b->second = value == "true";
    } else if (auto s = strings.find(arg); s != strings.end()) {
      *s->second = value;
    } else if (arg == "--config-reload-interval") {
      auto ms = model::scrape::parse_duration(value);
      if (!ms) {
        problem = arg + ": \"" + value + "\" is not a duration (e.g. 1s, 500ms, 0 to disable)";
        return false;
      }
      flags.config_reload_interval = std::chrono::milliseconds(*ms);
    } else if (is_log_flag(arg)) {
      if (!parse_log_flag(arg, value, flags.log_level, flags.log_format, problem)) return false;
    } else if (arg.starts_with("--leader-elect-")) {
      if (!parse_lease_flag(arg, value, flags.lease, problem)) return false;
    } else {
      problem = arg + ": unknown flag";
      return false;
    }
  }
  if (flags.lease.identity.empty()) flags.lease.identity = default_identity();
  return check_flags(flags, problem);
}

bool is_log_flag(const std::string& arg) {
  for (const char* name : {"--log-level", "-log.level", "--log.level", "--log-format", "-log.format", "--log.format"})
    if (arg == name) return true;
  return false;
}

bool parse_log_flag(const std::string& arg, const std::string& value, model::LogLevel& level, model::LogFormat& format,
                    std::string& problem) {
  if (arg.find("level") != std::string::npos) {
    auto l = model::parse_log_level(value);
    if (!l) problem = model::log_level_error(arg, value);
    level = l.value_or(level);
  } else {
    auto f = model::parse_log_format(value);
    if (!f) problem = model::log_format_error(arg, value);
    format = f.value_or(format);
  }
  return problem.empty();
}

bool parse_listen_addr(const std::string& addr, std::string& host, int& port) {
  auto parsed = model::parse_listen_address(addr);
  if (!parsed) return false;
  host = parsed->host;
  port = parsed->port;
  return true;
}

}  // namespace target_allocator
