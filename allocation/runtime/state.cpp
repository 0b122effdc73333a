// runtime::State: the target allocator's inputs folded into an Allocator.
#include "allocation/runtime/state.hpp"

#include "allocation/runtime/sd_consumer.hpp"

#include <algorithm>
#include <cstdio>

#include "allocation/hash.hpp"
#include "model/yaml_emit.hpp"

namespace allocation::runtime {

namespace {

using discovery::Change;

std::string job_name(const model::Value& job) {
  const model::Value* name = job.is_object() ? job.find("job_name") : nullptr;
  return name && name->is_string() ? name->as_string() : "";
}

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// A CR job's http_sd or file_sd sources, "<prefix><job>/<n>@<hash of the
// entry>": an unchanged entry keeps its id (and so its poller or reader).
template <class Job, class Source>
void append_cr_sources(const std::vector<Job>& jobs, const std::string& prefix, std::vector<Source>& out) {
  for (std::size_t n = 0; n < jobs.size(); ++n) {
    const Job& sd = jobs[n];
    out.push_back(
        {prefix + sd.job + "/" + std::to_string(n) + "@" + hex64(hash_bytes(sd.raw)), sd.job, sd.field, sd.sd, sd.raw});
  }
}

std::vector<Collector> static_collectors(const std::vector<std::string>& names) {
  std::vector<Collector> out;
  for (const auto& n : names) out.push_back({n, "", true, {}});
  return out;
}

}  // namespace

State::State() = default;
State::~State() = default;

Effects State::apply(const Input& in) {
  clock_.set(TimePoint(std::chrono::milliseconds(in.time_ms)));
  Effects fx;
  switch (in.type) {
    case InputType::config:
      configure(in.config, fx);
      break;
    case InputType::watch:
      on_watch(in.watch, fx);
      break;
    case InputType::http_sd:
      on_http_sd(in.http_sd, fx);
      break;
    case InputType::file_sd:
      on_file_sd(in.file_sd, fx);
      break;
    case InputType::reallocate:
      reallocate(fx);
      break;
  }
  fx.pending = configured() && (targets_dirty_ || collectors_dirty_ || cr_dirty_);
  return fx;
}

namespace {

// The fields of a config that need a cluster connection, with the flag.
std::vector<std::string> kubernetes_needs(const Config& c, const ConfigInput& in) {
  std::vector<std::string> out = c.kubernetes_fields;
  if (in.prometheus_cr_watcher) out.push_back("--enable-prometheus-cr-watcher");
  return out;
}

}  // namespace

// The first config configures the state; later ones reload it (see the
// header for what a reload keeps).
void State::configure(const ConfigInput& in, Effects& fx) {
  const bool reload = configured();
  std::shared_ptr<const Config> next;
  std::unique_ptr<Strategy> strategy;
  std::optional<RelabelFilter> filter;
  try {
    next = in.parsed ? in.parsed : std::make_shared<const Config>(load_config(in.text, in.path));
    if (auto needs = kubernetes_needs(*next, in); !in.kubernetes && !needs.empty())
      throw ConfigError(needs.front() +
                        " needs the Kubernetes API, and this allocator runs without a cluster "
                        "connection (restart it with one)");
    strategy = make_strategy(next->strategy);
    filter.emplace(0, next->filter_strategy == "relabel-config");
    filter->set_scrape_configs(next->scrape_configs, &next->global);
  } catch (const std::exception& e) {
    fx.config = Effects::ConfigResult::rejected;
    fx.logs.push_back(
        model::log_error("config", reload ? "reload rejected; the previous config keeps serving" : "config rejected")
            .with("file", in.path)
            .with("error", e.what()));
    return;
  }
  ++generation_;
  fx.config = Effects::ConfigResult::applied;
  if (!reload || !(next->strategy == config_->strategy)) {
    if (reload)
      fx.logs.push_back(model::log_info("config", "allocation strategy changed; every target is placed afresh")
                            .with("file", in.path)
                            .with("strategy", next->strategy.name));
    allocator_ = std::make_unique<Allocator>(std::move(strategy), AllocatorOptions{}, clock_);
  }
  config_ = std::move(next);
  filter_ = std::move(filter);
  set_http_sources();
  set_file_sources();
  set_sd_consumers();
  set_collectors(in);
  set_prometheus_cr(in);
  rebuild_sources();
  fx.sources_changed = true;
  fx.discovery.push_back("static_configs");
  targets_dirty_ = collectors_dirty_ = full_targets_ = true;
  fx.logs.push_back(model::log_info("config", reload ? "reloaded" : "loaded")
                        .with("file", in.path)
                        .with("generation", generation_)
                        .with("scrape_configs", config_->scrape_configs.size()));
}

void State::add_consumer(const std::string& key, const KubernetesSdJob& job) {
  consumers_.emplace(key, std::make_unique<SdConsumer>(job));
  consumer_order_.push_back(key);
}

void State::on_watch(const WatchInput& in, Effects&) {
  auto route = routes_.find(in.watch);
  if (route == routes_.end() || !in.object) return;  // a watch the config no longer needs
  const Route& r = route->second;
  switch (r.to) {
    case Route::To::collectors:
      if (collectors_->apply(in.change, *in.object, clock_.now())) collectors_dirty_ = true;
      return;
    case Route::To::cr:
      if (cr_->apply(r.kind_name, in.change, in.object)) cr_dirty_ = true;
      return;
    case Route::To::sd:
      for (const std::string& key : r.consumers) {
        SdConsumer& c = *consumers_.at(key);
        auto changed = c.index.apply(r.kind, in.change, in.object);
        if (changed.empty()) continue;
        targets_dirty_ = true;
        c.changed.insert(std::make_move_iterator(changed.begin()), std::make_move_iterator(changed.end()));
      }
      return;
  }
}

void State::reallocate(Effects& fx) {
  if (!configured()) return;
  if (cr_dirty_) render_cr(fx);
  auto seconds = [this] { return stopwatch_ ? stopwatch_() : 0.0; };
  if (collectors_dirty_) {
    const double start = seconds();
    allocator_->set_collectors(collectors_ ? collectors_->collectors() : static_collectors(config_->collectors));
    collectors_dirty_ = false;
    fx.collectors_set = true;
    fx.collectors_seconds = seconds() - start;
    auto names = collector_names(*allocator_);
    log_collector_changes(collector_names_, names, fx.logs);
    collector_names_ = std::move(names);
  }
  if (auto due = allocator_->next_refresh(); due && *due <= clock_.now()) allocator_->refresh();
  if (targets_dirty_) {
    const double start = seconds();
    set_targets(fx);
    targets_dirty_ = false;
    fx.targets_set = true;
    fx.targets_seconds = seconds() - start;
    fx.discovery.push_back("discovery");
    auto counts = count_targets(*allocator_);
    log_target_changes(job_counts_, counts, fx.logs);
    job_counts_ = std::move(counts);
  }
  fx.reallocated = true;
  fx.wake = allocator_->next_refresh();
}

// The selected monitors' jobs, their static targets, and one consumer per
// kubernetes_sd_configs entry, kept while the job's sd configs are unchanged.
void State::render_cr(Effects& fx) {
  cr_dirty_ = false;
  std::vector<std::string> problems;
  const model::Value rendered = cr_->jobs(problems);
  scrape_configs_ = config_->scrape_configs;
  cr_static_targets_.clear();
  std::vector<std::pair<std::string, KubernetesSdJob>> wanted;
  std::vector<HttpSdSource> http;
  std::vector<FileSdSource> files;
  for (const auto& job : rendered.as_array()) {
    Config one;
    one.global = config_->global;
    try {
      read_scrape_job(job, "prometheus_cr: " + job_name(job), one);
    } catch (const ConfigError& e) {
      problems.push_back(e.what());
      continue;
    }
    scrape_configs_.push(job);
    for (auto& t : one.targets) cr_static_targets_.push_back(std::move(t));
    append_cr_sources(one.http_sd, "cr-http/", http);
    append_cr_sources(one.file_sd, "cr-file/", files);
    if (one.kubernetes_sd.empty()) continue;
    const std::string hash = hex64(hash_bytes(model::to_json(*job.find("kubernetes_sd_configs"))));
    for (std::size_t n = 0; n < one.kubernetes_sd.size(); ++n)
      wanted.emplace_back("cr-sd/" + job_name(job) + "/" + std::to_string(n) + "@" + hash, one.kubernetes_sd[n]);
  }
  std::vector<std::string> keep;
  for (const auto& key : consumer_order_) {
    bool wanted_key = !key.starts_with("cr-sd/") ||
                      std::any_of(wanted.begin(), wanted.end(), [&](auto& w) { return w.first == key; });
    if (wanted_key)
      keep.push_back(key);
    else
      consumers_.erase(key);
  }
  const bool sources_changed = set_cr_sources(std::move(http), std::move(files));
  const bool changed = keep.size() != consumer_order_.size() ||
                       std::any_of(wanted.begin(), wanted.end(), [&](auto& w) { return !consumers_.count(w.first); });
  consumer_order_ = std::move(keep);
  for (const auto& [key, job] : wanted)
    if (!consumers_.count(key)) add_consumer(key, job);
  if (changed) rebuild_sources();
  fx.sources_changed = fx.sources_changed || changed || sources_changed;
  try {
    filter_->set_scrape_configs(scrape_configs_, &config_->global);
  } catch (const RelabelError& e) {
    // Each job passed read_scrape_job above; this would be a renderer bug.
    fx.logs.push_back(model::log_error("prometheus-cr", "rendered jobs rejected").with("error", e.what()));
  }
  if (problems != cr_problems_)
    for (const auto& p : problems)
      fx.logs.push_back(model::log_warn("prometheus-cr", "monitor left out").with("error", p));
  cr_problems_ = std::move(problems);
  targets_dirty_ = full_targets_ = true;
}

}  // namespace allocation::runtime
