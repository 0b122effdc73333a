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
  std::string raw;                  // the config entry, as JSON
  bool dirty = false;
  SdConsumer(const KubernetesSdJob& j)
      : job(Name::intern(j.job)), field(j.field), index(j.sd), specs(discovery::watch_specs(j.sd)), raw(j.raw) {}
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

namespace {

// The fields of a config that need a cluster connection, with the flag.
std::vector<std::string> kubernetes_needs(const Config& c, const ConfigInput& in) {
  std::vector<std::string> out = c.kubernetes_fields;
  if (in.prometheus_cr_watcher) out.push_back("--enable-prometheus-cr-watcher");
  return out;
}

// Secrets and ConfigMaps hold the credentials monitors reference; Helm
// release Secrets are the bulk of most clusters' Secrets and never do.
std::vector<WatchSource> cr_watches(const discovery::PrometheusCrConfig& cr) {
  std::vector<std::string> kinds{"ServiceMonitor", "PodMonitor", "Probe", "Secret", "ConfigMap"};
  if (cr.needs_namespaces()) kinds.push_back("Namespace");
  std::vector<WatchSource> out;
  for (const auto& kind : kinds)
    out.push_back({"cr/" + kind, kind, "", "", kind == "Secret" ? "type!=helm.sh/release.v1" : "", "prometheus_cr"});
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
    fx.logs.push_back("config " + in.path + ": " + (reload ? "reload rejected: " : "") + e.what() +
                      (reload ? "; the previous config keeps serving" : ""));
    return;
  }
  ++generation_;
  fx.config = Effects::ConfigResult::applied;
  if (!reload || !(next->strategy == config_->strategy)) {
    if (reload) fx.logs.push_back("config " + in.path + ": allocation strategy changed; every target is placed afresh");
    allocator_ = std::make_unique<Allocator>(std::move(strategy), AllocatorOptions{}, clock_);
  }
  config_ = std::move(next);
  filter_ = std::move(filter);
  set_http_sources();
  set_sd_consumers();
  set_collectors(in);
  set_prometheus_cr(in);
  rebuild_sources();
  fx.sources_changed = true;
  fx.discovery.push_back("static_configs");
  targets_dirty_ = collectors_dirty_ = true;
  if (reload) fx.logs.push_back("config " + in.path + ": reloaded (generation " + std::to_string(generation_) + ")");
}

std::string State::generation_suffix() const {
  return generation_ > 1 ? "#" + std::to_string(generation_) : "";
}

// Sources with the same job and entry keep their id and last answer.
void State::set_http_sources() {
  std::vector<HttpSdSource> next;
  for (std::size_t n = 0; n < config_->http_sd.size(); ++n) {
    const auto& sd = config_->http_sd[n];
    auto same = std::find_if(http_sources_.begin(), http_sources_.end(), [&](const HttpSdSource& s) {
      return s.job == sd.job && s.raw == sd.raw && !s.id.empty();
    });
    std::string id = sd.job + "/" + std::to_string(n) + generation_suffix();
    if (same != http_sources_.end()) id = std::exchange(same->id, "");  // each old source is kept once
    next.push_back({id, sd.job, sd.field, sd.sd, sd.raw});
  }
  http_sources_ = std::move(next);
  std::erase_if(http_groups_, [&](const auto& g) {
    return std::none_of(http_sources_.begin(), http_sources_.end(), [&](auto& s) { return s.id == g.first; });
  });
}

// The config file's kubernetes_sd consumers ("sd/..."); a consumer whose
// job and entry are unchanged is kept with its index. The Prometheus CR
// jobs' consumers follow, as they were.
void State::set_sd_consumers() {
  std::map<std::string, std::unique_ptr<SdConsumer>> next;
  std::vector<std::string> order;
  for (std::size_t n = 0; n < config_->kubernetes_sd.size(); ++n) {
    const auto& job = config_->kubernetes_sd[n];
    auto same = std::find_if(consumer_order_.begin(), consumer_order_.end(), [&](const std::string& key) {
      auto c = consumers_.find(key);
      return key.starts_with("sd/") && c != consumers_.end() && c->second && c->second->job.text() == job.job &&
             c->second->raw == job.raw;
    });
    if (same != consumer_order_.end()) {
      next.emplace(*same, std::move(consumers_.at(*same)));
      order.push_back(*same);
      continue;
    }
    const std::string key = "sd/" + std::to_string(n) + generation_suffix();
    next.emplace(key, std::make_unique<SdConsumer>(job));
    order.push_back(key);
  }
  for (const auto& key : consumer_order_)
    if (key.starts_with("cr-sd/")) {
      next.emplace(key, std::move(consumers_.at(key)));
      order.push_back(key);
    }
  consumers_ = std::move(next);
  consumer_order_ = std::move(order);
}

void State::set_collectors(const ConfigInput& in) {
  const auto& selector = config_->collector_selector;
  if (!selector) {
    collectors_.reset();
    collector_watch_.reset();
    return;
  }
  WatchSource w{"collectors",        "Pod", in.collector_namespace, discovery::selector_text(*selector), "",
                "collector_selector"};
  if (collector_watch_ && collector_watch_->ns == w.ns && collector_watch_->label_selector == w.label_selector) return;
  w.id += generation_suffix();
  collectors_.emplace(*selector);
  collector_watch_ = std::move(w);
}

// The CR index keeps its objects across reloads; only its selectors change.
void State::set_prometheus_cr(const ConfigInput& in) {
  if (!config_->prometheus_cr.enabled && !in.prometheus_cr_watcher) {
    cr_.reset();
    cr_dirty_ = false;
    cr_static_targets_.clear();
    cr_problems_.clear();
    std::erase_if(consumer_order_,
                  [&](const std::string& key) { return key.starts_with("cr-sd/") && consumers_.erase(key) > 0; });
    return;
  }
  auto cr = config_->prometheus_cr;
  cr.enabled = true;
  if (cr_)
    cr_->set_config(std::move(cr));
  else
    cr_.emplace(std::move(cr));
  cr_dirty_ = true;
}

void State::add_consumer(const std::string& key, const KubernetesSdJob& job) {
  consumers_.emplace(key, std::make_unique<SdConsumer>(job));
  consumer_order_.push_back(key);
}

// The collector watch, the CR watches, then every consumer's; routes_ follows.
void State::rebuild_sources() {
  watches_.clear();
  routes_.clear();
  if (collector_watch_) {
    watches_.push_back(*collector_watch_);
    routes_[collector_watch_->id] = Route{Route::To::collectors, "", {}, "Pod"};
  }
  if (cr_)
    for (auto& w : cr_watches(cr_->config())) {
      routes_[w.id] = Route{Route::To::cr, "", {}, w.kind};
      watches_.push_back(std::move(w));
    }
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
