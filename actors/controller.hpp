// The controller assembled: one Reflector (informer) per watched kind
// feeding the journal actor, then one selector actor per secondary kind
// (plus one for the owned workloads and the GrafanaAgent selector that
// starts roots), one root actor per GrafanaAgent, and the writer actor, as
// docs/architecture.md draws it; with -kubelet-service also a Node informer
// and the kubelet Service controller.
// Contract: start() returns at once (it throws core::JournalLocked, with
// nothing started, when another process holds the journal); synced()
// turns true once every informer has delivered its first list, and the
// writer starts writing only after that. stop() stops the informers
// first, so no event is lost half-way: what was journaled has been
// forwarded. Stats calls block the caller for a round trip to an actor
// (never call them from an actor).
#pragma once

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actors/bindings_actor.hpp"
#include "actors/core/journal_file.hpp"
#include "actors/core/leader.hpp"
#include "actors/http/metrics.hpp"
#include "actors/journal_actor.hpp"
#include "actors/kubelet_actor.hpp"
#include "actors/leader_label_actor.hpp"
#include "actors/root_actor.hpp"
#include "actors/sd_actor.hpp"
#include "actors/selector_actor.hpp"
#include "actors/writer_actor.hpp"
#include "k8s/client/reflector.hpp"

namespace actors {

// The metadata the controller's informers drop before caching
// (ReflectorOptions::drop_metadata): nothing here reads it (the writer's
// drift check ignores both too), and kept it would swell every cached,
// journaled and shared tree (creationTimestamp alone ~70 bytes each).
// Whoever feeds the journal directly drops it too, or every object differs
// from the store's.
inline constexpr std::array<std::string_view, 2> kUnreadMetadata = {"managedFields", "creationTimestamp"};

struct ControllerOptions {
  std::string journal_path;                         // "" = keep no journal file
  std::shared_ptr<core::JournalSink> journal_sink;  // overrides journal_path (tests)
  bool journal_include_secrets = false;
  // HMAC key for redacted Secret values: "" = a random key per process; the
  // same key (--journal-redaction-key-file) makes journals comparable.
  std::string journal_redaction_key;
  core::FsyncPolicy fsync = core::FsyncPolicy::on_flush;
  // Rotation (--journal-max-size, --journal-max-files): core::FileJournalOptions.
  std::uint64_t journal_max_bytes = core::FileJournalOptions{}.max_bytes;
  int journal_max_files = core::FileJournalOptions{}.keep_files;
  std::string operator_version = "0.1.0";
  std::string watch_namespace;  // -namespace: "" = all namespaces
  std::string agent_selector;   // -agent-selector: label selector on GrafanaAgents
  RootConfig root;              // render options, debounce, on_render hook
  // --secret-grace-period: how long a deleted Secret/ConfigMap that members
  // reference keeps being used (a delete-and-recreate rotation is no outage).
  std::chrono::milliseconds member_grace{std::chrono::minutes(5)};
  WriterConfig writer;              // client is filled in by the controller
  k8s::ReflectorOptions reflector;  // page size, watch timeout, backoff
  // --leader-elect: only the holder of this Lease writes.
  std::optional<core::LeaderConfig> leader;
  // stop() hands the Lease back (client-go's ReleaseOnCancel); tests turn
  // it off to stand for a process that dies.
  bool release_lease_on_stop = true;
  // Every component's entries (informer, journal, writer, leader-election,
  // integrations-sd), unless a config above sets its own.
  model::Log log = {};
  OperatorMetrics* metrics = nullptr;  // must outlive the controller
  // The integrations SD aggregator (with an Endpoints informer on the
  // integrations Services); absent: neither runs. Its log and metrics
  // hooks are filled in from `log` and `metrics` when left empty.
  std::optional<SdConfig> sd;
  // -kubelet-service: the kubelet Service, its Endpoints and EndpointSlices
  // kept from a Node informer (with informers on those objects in the
  // Service's namespace); absent: none of it runs.
  std::optional<model::KubeletServiceOptions> kubelet;
  // --monitor-status: the status.bindings writer (issue 19) patches the
  // status of ServiceMonitors, PodMonitors, Probes and IntegrationMonitors
  // whose installed CRD admits our entries. Off by default: the bundle's
  // RBAC does not grant it yet (docs/architecture.md, "Per-monitor status").
  bool monitor_status = false;
  // --leader-pod-label: with `leader`, this replica's Pod carries the label
  // while it leads (actors/leader_label_actor.hpp); absent: no label.
  std::optional<LeaderLabelConfig> leader_label;
};

struct ControllerStats {
  SelectorStats selectors;  // summed over the selectors; roots from the GrafanaAgent selector
  WriterStats writer;
  std::optional<KubeletStats> kubelet;    // with ControllerOptions::kubelet
  std::optional<BindingsStats> bindings;  // with ControllerOptions::monitor_status
  std::uint64_t journal_seq = 0;
  std::vector<std::pair<std::string, k8s::ReflectorStats>> informers;
};

// Scheduler settings for the controller's actor system: CAF's default
// work-stealing workers poll and then sleep (up to 10 ms) when idle, which
// stalls a pipeline that hands every event from actor to actor; the
// sharing policy wakes a worker through a condition variable instead.
void tune_actor_system(caf::actor_system_config& cfg);

// Scheduler workers as `agent-operator run` sets them: one per core, at
// least two (CAF's own default is at least four, more threads than a
// 2-core machine can run). The load benchmark and the target allocator
// set the same.
void set_operator_threads(caf::actor_system_config& cfg);

// Caps glibc's malloc arenas at two, unless MALLOC_ARENA_MAX is set: with
// one arena per CAF worker, and objects built on one thread and freed on
// another, freed memory stays spread over the arenas. Measured with
// benchmarks/operator_load.cpp: peak RSS after the cold start 538 -> 389
// MiB, change latency unchanged. It limits arenas created afterwards, so
// call it before the actor system starts. It also fixes the mmap threshold
// at 256 KiB (unless MALLOC_MMAP_THRESHOLD_ is set), so large transient
// buffers never land in the heap: RSS after a 10x cold start 3.20-3.27 KB
// per object with it, 3.22-3.38 without (within the spread in a direct
// pair; never worse; benchmarks/README, session 31). The target-allocator
// binary caps its arenas the same way (tune_target_allocator_memory; with
// set_operator_threads: 100k static targets to listening 393-399 ->
// 337-360 ms, peak RSS 111 -> 104 MiB; session 35).
void tune_process_memory();
// The target allocator's process: the same two arenas, an mmap
// threshold of 4 MiB instead of 256 KiB, and up to 64 MiB of freed heap
// kept for reuse instead of 128 KiB (M_TRIM_THRESHOLD); the MALLOC_*_
// variables still win. A reprocess frees and allocates again the same
// transient arrays of every target on each pass: mapped fresh, or trimmed
// back to the kernel, their pages faulted in again every time (100k
// targets: the allocation stage 18.9-20.0 -> 9.2-10.2 ms, a full runtime
// reprocess ~15% faster; benchmarks/README, session 36).
void tune_target_allocator_memory();

// The kinds the controller watches: members, Namespaces, Secrets,
// ConfigMaps, and the kinds it owns (for drift correction).
const std::vector<std::string>& watched_kinds();
// One selector actor each; roots subscribe with all of them.
const std::vector<std::string>& member_selector_kinds();

class Controller {
 public:
  Controller(caf::actor_system& sys, k8s::Client& client, ControllerOptions opts);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  void start();
  void stop();
  bool synced() const { return synced_count_.load() == reflectors_.size() && !reflectors_.empty(); }
  // The kinds whose informer has not listed yet, each with its last error
  // ("HTTP 404 ...") and its likely cause (core::list_failure_cause, "" when
  // unknown), for a start-up that does not finish.
  struct Unsynced {
    std::string kind, error, cause;
  };
  std::vector<Unsynced> unsynced() const;
  ControllerStats stats();
  // Polls until the controller is quiet: no new journal events, no writes
  // in flight and nothing new for `quiet`. False on timeout.
  bool wait_idle(std::chrono::milliseconds timeout, std::chrono::milliseconds quiet = std::chrono::milliseconds(400));
  // Whether this replica leads (always, without --leader-elect); any thread.
  bool leading() const { return !opts_.leader || leading_->load(); }
  writer_actor writer() const { return writer_; }
  journal_actor journal() const { return journal_; }  // benchmarks feed events straight in
  // The integrations SD endpoint's source (ControllerOptions::sd), waiting
  // up to `timeout` per poll; empty before start() or without an
  // aggregator. Thread-safe.
  SdPoll sd_poll(std::chrono::milliseconds timeout);
  // The root's view of its hierarchy (JSON), nullopt for an unknown agent.
  std::optional<std::string> explain(const std::string& ns, const std::string& name);

 private:
  void start_informer(const std::string& kind);
  // An informer with its own scope; `label` names it in unsynced() and
  // stats (events carry the plain kind).
  void start_informer(const std::string& kind, k8s::ReflectorOptions ro, const std::string& label);
  void start_kubelet(JournalRoutes& routes, std::shared_ptr<core::LeaseFence> fence);
  std::shared_ptr<core::LeaseFence> fence_;  // with opts_.leader; closed first by stop()
  void start_kubelet_informers();
  void start_bindings(JournalRoutes& routes, std::shared_ptr<core::LeaseFence> fence);
  // With --leader-elect: the writer stops, then the Lease is handed back so
  // a standby takes over within one retry period (bounded wait).
  void release_lease();
  void add_metrics_hooks(JournalConfig& jc, WriterConfig& wc, RootConfig& rc);
  void start_sd(JournalRoutes& routes);

  caf::actor_system& sys_;
  k8s::Client& client_;
  ControllerOptions opts_;
  writer_actor writer_;
  journal_actor journal_;
  sd_actor sd_;
  kubelet_actor kubelet_;
  bindings_actor bindings_;
  std::mutex sd_mu_;
  elector_actor elector_;
  leader_label_actor leader_label_;
  std::shared_ptr<std::atomic<bool>> leading_ = std::make_shared<std::atomic<bool>>(false);
  agent_selector_actor agent_selector_;
  std::vector<member_selector_actor> member_selectors_;  // one per member kind, then the owned workloads
  std::vector<std::pair<std::string, std::unique_ptr<k8s::Reflector>>> reflectors_;
  std::atomic<std::size_t> synced_count_{0};
  struct SyncProgress {
    mutable std::mutex mu;
    std::map<std::string, std::pair<std::string, std::string>> pending;  // kind -> last error and cause ("" = none yet)
  };
  std::shared_ptr<SyncProgress> progress_ = std::make_shared<SyncProgress>();
  bool started_ = false;
};

}  // namespace actors
