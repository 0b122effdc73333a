#include "flags.hpp"

#include <chrono>
#include <iostream>

#include <unistd.h>

#include "cmd/flagset/log_flags.hpp"
#include "model/listen_address.hpp"
#include "model/scrape/common.hpp"

namespace target_allocator {

namespace {

using cli::Flag;
using Set = std::function<void(const std::string&)>;

std::string default_identity() {
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  return std::string(host) + "_" + std::to_string(::getpid());
}

constexpr const char* kDescription =
    "Assigns the scrape targets of a Prometheus config to collectors and serves them over HTTP, as the\n"
    "OpenTelemetry Target Allocator does: /scrape_configs, /jobs, /jobs/JOB/targets[?collector_id=], /metrics,\n"
    "/livez, /readyz (and /-/healthy, /-/ready). Prints \"listening on http://HOST:PORT\" once serving; SIGHUP\n"
    "reloads the config file (as does a change seen every --config-reload-interval).\n"
    "\n"
    "other commands:\n"
    "  target-allocator replay JOURNAL [flags]   fold a --journal (target-allocator replay --help)\n"
    "  target-allocator version                  print the version (also --version, -version)";

constexpr const char* kExitCodes =
    "exit codes: 0 after SIGINT/SIGTERM, 1 when the address cannot be bound or the allocation fails, 2 for bad\n"
    "flags or config (also a config that needs the Kubernetes API without a usable cluster connection) or a\n"
    "--journal file that cannot be written";

Set into(std::string& out, bool non_empty = false) {
  return [&out, non_empty](const std::string& v) {
    if (non_empty && v.empty()) throw std::invalid_argument("must not be empty");
    out = v;
  };
}

Set bool_into(bool& out) {
  return [&out](const std::string& v) { out = cli::parse_bool(v); };
}

// Prometheus durations ("15s", "500ms", "1m30s"), positive.
Set duration_into(std::chrono::milliseconds& out) {
  return [&out](const std::string& v) {
    auto ms = model::scrape::parse_duration(v);
    if (!ms || *ms <= 0) throw std::invalid_argument("\"" + v + "\" is not a positive duration (e.g. 500ms, 15s)");
    out = std::chrono::milliseconds(*ms);
  };
}

void add_lease_flags(std::vector<Flag>& t, Flags& f) {
  auto& l = f.lease;
  t.push_back(
      {{"leader-elect"}, "", "false", "only the holder of a Lease serves allocations", bool_into(f.leader_elect)});
  t.push_back({{"leader-elect-lease-name", "leader-election-id"},
               "NAME",
               "target-allocator",
               "the Lease's name",
               into(l.name, true)});
  t.push_back({{"leader-elect-namespace", "leader-election-namespace"},
               "NS",
               "--collector-namespace",
               "where the Lease lives",
               into(l.ns, true)});
  t.push_back(
      {{"leader-elect-identity"}, "ID", "HOST_PID", "this replica's name in the Lease", into(l.identity, true)});
  t.push_back({{"leader-elect-lease-duration", "lease-duration"},
               "D",
               "15s",
               "how long a Lease is held unrenewed",
               duration_into(l.lease_duration)});
  t.push_back({{"leader-elect-renew-deadline", "renew-deadline"},
               "D",
               "10s",
               "the holder steps down when it has not renewed for this long",
               duration_into(l.renew_deadline)});
  t.push_back({{"leader-elect-retry-period", "retry-period"},
               "D",
               "2s",
               "how often to try to take or renew the Lease",
               duration_into(l.retry_period)});
}

void add_https_flags(std::vector<Flag>& t, Flags& f) {
  t.push_back({{"enable-https-server"},
               "",
               "false",
               "also serve over mutual TLS, with the scrape configs' credentials unmasked",
               bool_into(f.https)});
  t.push_back(
      {{"listen-addr-https"}, "HOST:PORT", ":8443", "the mutual TLS server's address", into(f.https_listen_addr)});
  t.push_back({{"https-ca-file"},
               "FILE",
               "none",
               "CA of the client certificates (required with --enable-https-server)",
               into(f.https_ca_file)});
  t.push_back({{"https-tls-cert-file"},
               "FILE",
               "none",
               "server certificate (required with --enable-https-server)",
               into(f.https_cert_file)});
  t.push_back({{"https-tls-key-file"},
               "FILE",
               "none",
               "server key (required with --enable-https-server)",
               into(f.https_key_file)});
}

std::vector<Flag> flag_table(Flags& f) {
  std::vector<Flag> t;
  t.push_back({{"config-file"},
               "FILE",
               "required",
               "the allocator's config (collectors, strategy, scrape configs)",
               into(f.config_file)});
  t.push_back({{"listen-addr", "listen"}, "HOST:PORT", ":8080", "the HTTP server's address", into(f.listen_addr)});
  t.push_back({{"kubeconfig-path", "kubeconfig"},
               "FILE",
               "$KUBECONFIG, else the in-cluster service account, else ~/.kube/config",
               "the cluster for kubernetes_sd_configs and the Prometheus CR watcher",
               into(f.kubeconfig_path)});
  t.push_back({{"enable-prometheus-cr-watcher"},
               "",
               "false",
               "add the ServiceMonitors' and PodMonitors' scrape configs",
               bool_into(f.prometheus_cr_watcher)});
  t.push_back({{"collector-namespace"},
               "NS",
               "every namespace",
               "where the collector pods are watched",
               into(f.collector_namespace)});
  add_lease_flags(t, f);
  add_https_flags(t, f);
  t.push_back(
      {{"journal"}, "FILE", "off", "record every input to this JSON Lines file (replay folds it)", into(f.journal)});
  t.push_back({{"config-reload-interval"},
               "D",
               "1s",
               "how often the config file is read for changes (0 disables)",
               [&f](const std::string& v) {
                 auto ms = model::scrape::parse_duration(v);
                 if (!ms) throw std::invalid_argument("\"" + v + "\" is not a duration (e.g. 1s, 500ms, 0 to disable)");
                 f.config_reload_interval = std::chrono::milliseconds(*ms);
               }});
  cli::add_log_flags(t, f.log_level, f.log_format);
  return t;
}

// Cross-flag rules, checked after every flag is read.
void check_flags(const Flags& flags) {
  if (flags.config_file.empty()) throw cli::UsageError("--config-file: required");
  const auto& l = flags.lease;
  if (!(l.retry_period < l.renew_deadline && l.renew_deadline < l.lease_duration))
    throw cli::UsageError("--leader-elect-*: want retry-period < renew-deadline < lease-duration");
  if (flags.https)
    for (const auto& [flag, file] : {std::pair{"--https-ca-file", &flags.https_ca_file},
                                     std::pair{"--https-tls-cert-file", &flags.https_cert_file},
                                     std::pair{"--https-tls-key-file", &flags.https_key_file}})
      if (file->empty()) throw cli::UsageError(std::string(flag) + ": required with --enable-https-server");
}

cli::Command command(Flags& f) {
  return {"target-allocator --config-file FILE [flags]", kDescription, flag_table(f), {}, kExitCodes};
}

}  // namespace

std::string help() {
  Flags f;
  return cli::help_text(command(f));
}

int usage(const std::string& problem) {
  std::cerr << "target-allocator: " << problem << "\nrun 'target-allocator --help' for usage\n";
  return 2;
}

cli::Parsed parse_flags(int argc, char** argv, Flags& flags) {
  if (cli::parse(command(flags), argc - 1, argv + 1) == cli::Parsed::help) return cli::Parsed::help;
  if (flags.lease.identity.empty()) flags.lease.identity = default_identity();
  check_flags(flags);
  return cli::Parsed::ok;
}

bool parse_listen_addr(const std::string& addr, std::string& host, int& port) {
  auto parsed = model::parse_listen_address(addr);
  if (!parsed) return false;
  host = parsed->host;
  port = parsed->port;
  return true;
}

}  // namespace target_allocator
