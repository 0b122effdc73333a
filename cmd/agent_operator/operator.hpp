// The controller process shared by `run` and `demo`: flags, the actor
// system, the curl transport and client, the Controller, and the wait for
// SIGINT/SIGTERM (or --for). Contract: block_signals() must run before any
// thread starts; run_operator() returns the process exit code.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "actors/controller.hpp"
#include "actors/core/journal_file.hpp"
#include "actors/log/process_log.hpp"
#include "cmd/flagset/log_flags.hpp"
#include "flags.hpp"
#include "k8s/client/config.hpp"
#include "model/selector_text.hpp"

namespace cli {

struct OperatorFlags {
  std::string kubeconfig, context;
  std::string journal;
  bool journal_include_secrets = false;
  std::string journal_redaction_key;  // from --journal-redaction-key-file
  actors::core::FsyncPolicy fsync = actors::core::FsyncPolicy::on_flush;
  std::uint64_t journal_max_bytes = actors::core::FileJournalOptions{}.max_bytes;
  int journal_max_files = actors::core::FileJournalOptions{}.keep_files;
  // The operator's HTTP server, upstream's -metrics-listen-address ("" or
  // "0" = off); upstream's default :8080 for run, a free loopback port for demo.
  std::string listen = ":8080";
  // Upstream's -health-listen-address: a second server with the health
  // paths only ("" = none; they are always on `listen` as well).
  std::string health_listen;
  // --targets-listen-address: the targets endpoint (shardingStrategy
  // consistent and node) on a server of its own, so a NetworkPolicy can
  // admit only agent pods to it ("" = on `listen`, with everything else).
  std::string targets_listen;
  // Upstream's webhook flags: accepted so its Deployments run unchanged;
  // upstream registers no webhook, and neither do we (logged when given).
  std::string webhook_host;
  int webhook_port = -1;
  bool upstream_compat = false;  // --upstream-compat, as for render
  std::string watch_namespace, agent_selector;
  std::optional<model::Key> kubelet_service;  // -kubelet-service NS/NAME
  std::string kubelet_selector;               // --kubelet-selector (checked at parse time)
  bool monitor_status = true;                 // --monitor-status (=false: off)
  model::Labels labels;
  std::chrono::milliseconds debounce{100};
  double qps = 50, burst = 100;
  std::optional<std::chrono::milliseconds> run_for;
  std::chrono::milliseconds sync_timeout{60'000};
  std::chrono::milliseconds secret_grace{std::chrono::minutes(5)};
  // --log-level/-log.level (-v, --verbose: debug), --log-format/-log.format.
  model::LogLevel log_level = model::LogLevel::info;
  model::LogFormat log_format = model::LogFormat::logfmt;
  bool leader_elect = false;
  actors::core::LeaderConfig leader;  // namespace, name, durations; identity defaults to host_pid
  std::string leader_namespace;       // --leader-election-namespace ("" = see lease_namespace)
  std::string leader_pod_label;       // --leader-pod-label ("" = none)
  // The integrations SD aggregator: per-pod timeout, freshness window.
  std::chrono::milliseconds sd_timeout{5000}, sd_freshness{1000};
  std::string sd_url;       // "" = model::RenderOptions' default
  std::string targets_url;  // "" = model::RenderOptions' default
};

// An --integrations-sd-url value: an absolute http(s) URL without a query
// (the operator appends ?agent=). Throws std::invalid_argument otherwise.
std::string check_sd_url(const std::string& url);
// A --kubelet-selector value; throws std::invalid_argument naming the flag.
model::selector_text::LabelSelector kubelet_node_selector(const std::string& text);

// The flag table of run and demo (operator_flags.cpp), storing into `f`,
// which must outlive the table. `listen_default` is the help text's default
// of --metrics-listen-address.
std::vector<Flag> operator_flags(OperatorFlags& f, const std::string& listen_default);
// The process log as the flags ask for it: stderr, the level and format.
actors::log::ProcessLogOptions log_options(const OperatorFlags& f);

// Where the Lease lives: the flag, else $POD_NAMESPACE (the Deployment sets
// it from the downward API), else the service account's namespace file,
// else "default". The deploy RBAC grants Leases only in the operator's own
// namespace, so guessing "default" in a pod would make every call a 403.
std::string lease_namespace(const std::string& flag, const std::string& namespace_file);

void block_signals();
// Waits for SIGINT/SIGTERM or until `run_for` elapses; true on a signal.
bool wait_for_stop(const std::optional<std::chrono::milliseconds>& run_for);
enum class SyncWait { synced, timed_out, signalled };
// Waits until every informer has listed once, the timeout passes, or
// SIGINT/SIGTERM arrives (signals must be blocked, see block_signals).
SyncWait wait_for_sync(actors::Controller& controller, std::chrono::milliseconds timeout);

struct OperatorHooks {
  model::Log log;                                                            // every component's entries
  std::function<void(actors::Controller&)> on_synced = {};                   // once, after the initial sync
  std::function<void(const std::string& host, int port)> on_listening = {};  // the HTTP server's address
  std::function<void(actors::Controller&)> on_exit = {};                     // before shutdown
};

int run_operator(const OperatorFlags& f, const k8s::ClusterConfig& cluster, const OperatorHooks& hooks);

}  // namespace cli
