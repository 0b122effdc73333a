// The target allocator as a fold over its inputs (runtime/input.hpp): the
// config, the discovery indexes (kubernetes_sd, http_sd, collector pods,
// Prometheus CRs) and the Allocator, advanced one Input at a time. The live
// allocation actor and `target-allocator replay` run this same code, so a
// recorded journal replays to the same assignment.
// Contract: pure and single-threaded; time is each input's time_ms (the
// Allocator's clock is set from it), never the system clock. Inputs other
// than `reallocate` only update indexes and mark what changed; a
// `reallocate` input applies the changes to the Allocator: Prometheus CR
// jobs, collectors, readiness refresh when due, then targets, each given
// its Prometheus identity by the RelabelFilter (dropped by the rules only
// with filter_strategy relabel-config). After discovery changes alone only
// the changed groups are reprocessed (Allocator::update_targets), with
// the same result as reprocessing every target, which any doubt falls
// back to (state_targets.cpp). The discovery the config needs
// (watches, http_sd and file_sd sources, including those of Prometheus CR
// jobs) is published by watches(), http_sd() and file_sd() with ids derived
// from the config
// history alone; Effects says when they changed. A watch input whose id is
// not (or no longer) wanted is ignored.
// Config inputs after the first are live reloads: an invalid one (or one
// that needs the Kubernetes API the process lacks) is rejected and the
// previous config keeps serving (Effects::config). A valid one keeps every
// source whose job name and sd entry are unchanged (with its index, so its
// targets stay), the collector watch when its selector and namespace are
// unchanged, the Prometheus CR objects, and the Allocator with its
// assignment unless allocation_strategy changed; new or changed sources get
// fresh ids ("#<generation>"), so events of a stopped watch never reach its
// successor.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "allocation/allocator.hpp"
#include "allocation/discovery/collectors.hpp"
#include "allocation/discovery/prometheus_cr.hpp"
#include "allocation/filter.hpp"
#include "allocation/runtime/change_log.hpp"
#include "allocation/runtime/config.hpp"
#include "allocation/runtime/group_ledger.hpp"
#include "allocation/runtime/input.hpp"
#include "model/log.hpp"

namespace allocation::runtime {

// One list+watch the runtime must run; its events arrive as watch inputs
// carrying `id`.
struct WatchSource {
  // "collectors", "cr/<Kind>", "sd/<n>/<i>", "cr-sd/<job>/<n>@<hash>/<i>";
  // sources a reload adds carry "#<generation>" after "collectors" or "sd/<n>".
  std::string id;
  std::string kind;  // "Pod", "ServiceMonitor", ...
  std::string ns, label_selector, field_selector;
  std::string field;  // what needs it, for logs
  friend bool operator==(const WatchSource&, const WatchSource&) = default;
};

// One http_sd_configs URL to poll; its answers arrive as http_sd inputs.
struct HttpSdSource {
  std::string id;  // "<job>/<n>", "#<generation>" appended when a reload adds it
  std::string job, field;
  discovery::HttpSdConfig config;
  std::string raw;  // the config entry, as JSON
};

// One file_sd_configs entry whose files to read; reads arrive as file_sd
// inputs. Ids: "<job>/file/<n>" ("#<generation>" when a reload adds it),
// "cr-file/<job>/<n>@<hash>" for Prometheus CR jobs (CR http_sd sources
// are "cr-http/<job>/<n>@<hash>").
struct FileSdSource {
  std::string id;
  std::string job, field;
  discovery::FileSdConfig config;
  std::string raw;  // the config entry, as JSON
};

struct Effects {
  enum class ConfigResult { none, applied, rejected };
  ConfigResult config = ConfigResult::none;  // a config input was applied or rejected
  bool reallocated = false;                  // a reallocate ran: publish the result
  bool collectors_set = false, targets_set = false;
  bool targets_incremental = false;  // targets_set by Allocator::update_targets
  // How long each step took, for the time_to_allocate metric; 0 without a
  // stopwatch (replay, tests).
  double collectors_seconds = 0, targets_seconds = 0;
  bool pending = false;           // changes wait for a reallocate input
  std::optional<TimePoint> wake;  // when a reallocate is due for a grace period
  bool sources_changed = false;   // watches(), http_sd() or file_sd() changed
  // Problems, reloads, and what a reallocate changed (change_log.hpp);
  // never a secret value.
  std::vector<model::LogEntry> logs;
  std::vector<std::string> discovery;  // allocator metric event names ("discovery", ...)
};

class State {
 public:
  State();
  ~State();
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  Effects apply(const Input& in);

  bool configured() const { return allocator_ != nullptr; }
  const Allocator& allocator() const { return *allocator_; }  // only when configured()
  const Config& config() const { return *config_; }           // only when configured()
  // The config's scrape configs, plus the rendered Prometheus CR jobs.
  const model::Value& scrape_configs() const { return cr_ ? scrape_configs_ : config_->scrape_configs; }
  const std::vector<WatchSource>& watches() const { return watches_; }
  const std::vector<HttpSdSource>& http_sd() const { return http_sources_; }
  const std::vector<FileSdSource>& file_sd() const { return file_sources_; }
  TimePoint now() const { return clock_.now(); }
  // Targets the last reallocate removed because Prometheus would refuse
  // them (no valid address, bad interval, timeout or label value).
  std::size_t invalid_targets() const { return invalid_targets_; }
  // A monotonic clock in seconds, read only to time the allocation steps
  // (Effects::*_seconds). The fold never reads it otherwise, so it cannot
  // change what a journal replays to; the live runtime sets it.
  void set_stopwatch(std::function<double()> stopwatch) { stopwatch_ = std::move(stopwatch); }
  // On (the default), a reallocate gives the Allocator only the groups
  // that changed when it can (same result; see "Incremental targets" in
  // runtime/README.md); off, every target is reprocessed each time (for
  // tests and benchmarks that compare the two).
  void set_incremental(bool on) { incremental_on_ = on; }

 private:
  struct SdConsumer;
  struct Route {
    enum class To { collectors, cr, sd } to = To::sd;
    std::vector<std::string> consumers;  // for sd: every job whose entry needs this watch
    discovery::Kind kind = discovery::Kind::pod;
    std::string kind_name;
    std::string ns;  // for sd: the watch's namespace ("" = all)
  };

  void configure(const ConfigInput& in, Effects& fx);
  std::string generation_suffix() const;
  void set_http_sources();
  void set_sd_consumers();
  void set_collectors(const ConfigInput& in);
  void set_prometheus_cr(const ConfigInput& in);
  void on_watch(const WatchInput& in, Effects& fx);
  void on_http_sd(const HttpSdInput& in, Effects& fx);
  void on_file_sd(const FileSdInput& in, Effects& fx);
  void set_file_sources();
  bool set_cr_sources(std::vector<HttpSdSource> http, std::vector<FileSdSource> files);
  void reallocate(Effects& fx);
  void render_cr(Effects& fx);
  void add_consumer(const std::string& key, const KubernetesSdJob& job);
  void rebuild_sources();
  void add_sd_watches(const std::map<std::string, Route>& before, std::map<std::string, WatchSource>& running);
  const std::string* kept_consumer(const std::map<std::string, Route>& before, const std::string& id) const;
  void seed_joined(const std::map<std::string, Route>& before);
  // The targets step of a reallocate (state_targets.cpp).
  void set_targets(Effects& fx);
  void set_all_targets();
  bool update_targets();
  TargetList all_targets();
  void forget_changes();

  ManualClock clock_;
  std::function<double()> stopwatch_;
  std::shared_ptr<const Config> config_;  // shared with the input that carried it parsed
  std::unique_ptr<Allocator> allocator_;
  std::optional<RelabelFilter> filter_;
  std::uint64_t generation_ = 0;  // config inputs applied
  std::optional<discovery::CollectorSet> collectors_;
  std::optional<WatchSource> collector_watch_;
  std::optional<discovery::PrometheusCrIndex> cr_;
  TargetList cr_static_targets_;
  model::Value scrape_configs_ = model::Value::array();           // with Prometheus CRs only
  std::map<std::string, std::unique_ptr<SdConsumer>> consumers_;  // by key: file ones, then CR ones
  std::vector<std::string> consumer_order_;
  std::map<std::string, std::vector<TargetGroup>> http_groups_;  // by source id
  std::vector<HttpSdSource> http_sources_;
  std::map<std::string, std::map<std::string, std::vector<TargetGroup>>> file_groups_;  // by source id, then path
  std::vector<FileSdSource> file_sources_;
  std::vector<WatchSource> watches_;
  std::map<std::string, Route> routes_;  // watch id -> its consumers
  // A kubernetes_sd watch's content (kind, namespace, selectors) -> its id:
  // jobs with identical entries share one watch, under the id it got first.
  std::map<std::string, std::string> sd_watch_ids_;
  std::vector<std::string> cr_problems_;
  bool targets_dirty_ = false, collectors_dirty_ = false, cr_dirty_ = false;
  std::size_t invalid_targets_ = 0;
  GroupLedger ledger_;                                 // what each source gave at the last reallocate
  bool full_targets_ = true;                           // sources or rules changed: reprocess every target
  bool incremental_on_ = true;                         // set_incremental
  std::set<std::string> changed_http_, changed_file_;  // source ids answered since the last reallocate
  JobCounts job_counts_;                               // at the last reallocate, for its change log
  std::vector<std::string> collector_names_;           // likewise
};

}  // namespace allocation::runtime
