// The target-allocator's command line: upstream's flags (--config-file,
// --listen-addr, --kubeconfig-path, --enable-prometheus-cr-watcher, the
// --enable-https-server group) plus --collector-namespace, --leader-elect*
// --journal and --config-reload-interval, and the log flags of both
// upstream operators (--log-level/-log.level, --log-format/-log.format).
// Contract: parse_flags() accepts "--flag value" and "--flag=value" (boolean
// flags also alone) and fills `problem` with a message naming the flag when
// it returns false; usage() prints it with the usage text and returns 2.
#pragma once

#include <chrono>
#include <string>

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

// --log-level, -log.level, --log-format, -log.format (and --log.level,
// --log.format): `arg` without its value.
bool is_log_flag(const std::string& arg);
// Reads one into `level` or `format`; false, with `problem` naming the
// flag and the accepted values, when the value is not one of them.
bool parse_log_flag(const std::string& arg, const std::string& value, model::LogLevel& level, model::LogFormat& format,
                    std::string& problem);

bool parse_flags(int argc, char** argv, Flags& flags, std::string& problem);
int usage(const std::string& problem);
// "HOST:PORT" or ":PORT" (all interfaces).
bool parse_listen_addr(const std::string& addr, std::string& host, int& port);

}  // namespace target_allocator
