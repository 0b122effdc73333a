// runtime::State: the target allocator's inputs folded into an Allocator.
#include "allocation/runtime/state.hpp"

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

std::vector<Collector> static_collectors(const std::vector<std::string>& names) {
  std::vector<Collector> out;
  for (const auto& n : names) out.push_back({n, "", true, {}});
  return out;
}

}  // namespace

// One kubernetes_sd_configs entry: its index and the watches it needs.
struct State::SdConsumer {
  Name job;
  std::string field;
  discovery::KubernetesIndex index;
  std::vector<discovery::WatchSpec> specs;
  std::vector<TargetGroup> groups;  // as of the last reallocate
  bool dirty = false;
  SdConsumer(const KubernetesSdJob& j)
      : job(Name::intern(j.job)), field(j.field), index(j.sd), specs(discovery::watch_specs(j.sd)) {}
};

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
    case InputType::reallocate:
      reallocate(fx);
      break;
  }
  fx.pending = configured() && (targets_dirty_ || collectors_dirty_ || cr_dirty_);
  return fx;
}

void State::configure(const ConfigInput& in, Effects& fx) {
  if (configured()) {
    fx.logs.push_back("config " + in.path + ": changed; the running config stays until a restart");
    return;
  }
  std::unique_ptr<Strategy> strategy;
  try {
    config_ = in.parsed ? in.parsed : std::make_shared<const Config>(load_config(in.text, in.path));
    strategy = make_strategy(config_->strategy);
    filter_.emplace(0, config_->filter_strategy == "relabel-config");
    filter_->set_scrape_configs(config_->scrape_configs, &config_->global);
  } catch (const std::exception& e) {
    fx.logs.push_back(std::string("config ") + in.path + ": " + e.what());
    config_.reset();
    filter_.reset();
    return;
  }
  allocator_ = std::make_unique<Allocator>(std::move(strategy), AllocatorOptions{}, clock_);
  for (std::size_t n = 0; n < config_->http_sd.size(); ++n) {
    const auto& sd = config_->http_sd[n];
    http_sources_.push_back({sd.job + "/" + std::to_string(n), sd.job, sd.field, sd.sd});
  }
  for (std::size_t n = 0; n < config_->kubernetes_sd.size(); ++n)
    add_consumer("sd/" + std::to_string(n), config_->kubernetes_sd[n]);
  if (config_->collector_selector) {
    collectors_.emplace(*config_->collector_selector);
    watches_.push_back({"collectors", "Pod", in.collector_namespace,
                        discovery::selector_text(*config_->collector_selector), "", "collector_selector"});
  }
  if (config_->prometheus_cr.enabled || in.prometheus_cr_watcher) {
    auto cr = config_->prometheus_cr;
    cr.enabled = true;
    // Secrets and ConfigMaps hold the credentials monitors reference; Helm
    // release Secrets are the bulk of most clusters' Secrets and never do.
    std::vector<std::string> kinds{"ServiceMonitor", "PodMonitor", "Probe", "ScrapeConfig", "Secret", "ConfigMap"};
    if (cr.needs_namespaces()) kinds.push_back("Namespace");
    for (const auto& kind : kinds)
      watches_.push_back(
          {"cr/" + kind, kind, "", "", kind == "Secret" ? "type!=helm.sh/release.v1" : "", "prometheus_cr"});
    cr_.emplace(std::move(cr));
    cr_dirty_ = true;
  }
  rebuild_sources();
  fx.sources_changed = true;
  fx.discovery.push_back("static_configs");
  targets_dirty_ = collectors_dirty_ = true;
}

void State::add_consumer(const std::string& key, const KubernetesSdJob& job) {
  consumers_.emplace(key, std::make_unique<SdConsumer>(job));
  consumer_order_.push_back(key);
}

// watches_ keeps the collector and CR watches (set by configure) and gets
// every consumer's watches appended; routes_ follows.
void State::rebuild_sources() {
  std::erase_if(watches_, [](const WatchSource& w) { return w.id.starts_with("sd/") || w.id.starts_with("cr-sd/"); });
  routes_.clear();
  for (const auto& w : watches_)
    routes_[w.id] = Route{w.id == "collectors" ? Route::To::collectors : Route::To::cr, "", {}, w.kind};
  for (const auto& key : consumer_order_) {
    const SdConsumer& c = *consumers_.at(key);
    for (std::size_t i = 0; i < c.specs.size(); ++i) {
      const auto& spec = c.specs[i];
      const std::string kind(discovery::kind_name(spec.kind));
      WatchSource w{key + "/" + std::to_string(i), kind, spec.ns, spec.label_selector, spec.field_selector, c.field};
      routes_[w.id] = Route{Route::To::sd, key, spec.kind, kind};
      watches_.push_back(std::move(w));
    }
  }
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
    case Route::To::sd: {
      SdConsumer& c = *consumers_.at(r.consumer);
      if (!c.index.apply(r.kind, in.change, in.object).empty()) c.dirty = targets_dirty_ = true;
      return;
    }
  }
}

void State::on_http_sd(const HttpSdInput& in, Effects& fx) {
  auto source = std::find_if(http_sources_.begin(), http_sources_.end(), [&](auto& s) { return s.id == in.source; });
  if (source == http_sources_.end()) return;
  const std::string& url = source->config.url;
  if (!in.error.empty()) {
    fx.logs.push_back(source->field + ": " + url + ": " + in.error);  // the previous groups stay
    return;
  }
  std::vector<TargetGroup> groups;
  try {
    discovery::check_http_sd_response(in.status, in.content_type);
    for (auto& g : discovery::parse_http_sd(in.body, url)) groups.push_back(std::move(g.group));
  } catch (const discovery::DiscoveryError& e) {
    fx.logs.push_back(source->field + ": " + url + ": " + e.what());
    return;
  }
  http_groups_[in.source] = std::move(groups);
  targets_dirty_ = true;
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
  }
  if (auto due = allocator_->next_refresh(); due && *due <= clock_.now()) allocator_->refresh();
  if (targets_dirty_) {
    const double start = seconds();
    TargetList targets = all_targets();
    filter_->apply(targets);
    invalid_targets_ = filter_->invalid();
    allocator_->set_targets(std::move(targets));
    targets_dirty_ = false;
    fx.targets_set = true;
    fx.targets_seconds = seconds() - start;
    fx.discovery.push_back("discovery");
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
  const bool changed = keep.size() != consumer_order_.size() ||
                       std::any_of(wanted.begin(), wanted.end(), [&](auto& w) { return !consumers_.count(w.first); });
  consumer_order_ = std::move(keep);
  for (const auto& [key, job] : wanted)
    if (!consumers_.count(key)) add_consumer(key, job);
  if (changed) {
    rebuild_sources();
    fx.sources_changed = true;
  }
  try {
    filter_->set_scrape_configs(scrape_configs_, &config_->global);
  } catch (const RelabelError& e) {
    // Each job passed read_scrape_job above; this would be a renderer bug.
    fx.logs.push_back(std::string("prometheus_cr: ") + e.what());
  }
  if (problems != cr_problems_)
    for (const auto& p : problems) fx.logs.push_back("prometheus_cr: left out: " + p);
  cr_problems_ = std::move(problems);
  targets_dirty_ = true;
}

// Static targets, then http_sd sources in config order, then kubernetes_sd
// consumers (the file's, then the CR jobs').
TargetList State::all_targets() {
  TargetList out = config_->targets;
  out.insert(out.end(), cr_static_targets_.begin(), cr_static_targets_.end());
  for (const auto& source : http_sources_) {
    auto groups = http_groups_.find(source.id);
    if (groups != http_groups_.end()) append_targets(Name::intern(source.job), groups->second, out);
  }
  for (const auto& key : consumer_order_) {
    SdConsumer& c = *consumers_.at(key);
    if (c.dirty) {
      c.groups.clear();
      for (auto& g : c.index.groups()) c.groups.push_back(std::move(g.group));
      c.dirty = false;
    }
    append_targets(c.job, c.groups, out);
  }
  return out;
}

}  // namespace allocation::runtime
