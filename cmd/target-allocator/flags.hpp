// The target-allocator's command line, as one flag table (cmd/flagset):
// upstream's flags (--config-file, --listen-addr, --kubeconfig-path,
// --enable-prometheus-cr-watcher, the --enable-https-server group) plus
// --collector-namespace, --leader-elect*, --journal,
// --config-reload-interval and the log flags. Where agent-operator has the
// same concept its spelling is an alias (--kubeconfig, --listen,
// --lease-duration, --leader-election-id, ...).
// Contract: parse_flags() returns Parsed::help for -h/--help, and throws
// cli::UsageError naming the flag for a bad flag or value or a broken
// cross-flag rule; help() is the text --help prints.
#pragma once

#include <chrono>
#include <string>

#include "cmd/flagset/flagset.hpp"
#include "k8s/lease/leader.hpp"
#include "model/log_format.hpp"

namespace target_allocator {

struct Flags {
  std::string config_file;
  std::string listen_addr = ":8080";
  std::string kubeconfig_path;
  bool prometheus_cr_watcher = false;
  std::string collector_namespace;
  bool leader_elect = false;
  // identity defaults to host_pid, the namespace to the collector namespace
  k8s::lease::LeaderConfig lease{"", "", "target-allocator"};
  bool https = false;
  std::string https_listen_addr = ":8443", https_ca_file, https_cert_file, https_key_file;
  std::string journal;  // --journal FILE: record every input
  // --config-reload-interval D: how often the config file is read for
  // changes ("0" disables it; SIGHUP still reloads).
  std::chrono::milliseconds config_reload_interval{1000};
  model::LogLevel log_level = model::LogLevel::info;
  model::LogFormat log_format = model::LogFormat::logfmt;
};

cli::Parsed parse_flags(int argc, char** argv, Flags& flags);
std::string help();
// Prints the problem and a pointer to --help; returns 2.
int usage(const std::string& problem);
// "HOST:PORT" or ":PORT" (all interfaces).
bool parse_listen_addr(const std::string& addr, std::string& host, int& port);

}  // namespace target_allocator
