// runtime::State's sources: what a config (or a reload) keeps and
// replaces, the watch list and its routes, and the http_sd and file_sd
// answers.
#include <algorithm>

#include "allocation/runtime/sd_consumer.hpp"
#include "allocation/runtime/state.hpp"

namespace allocation::runtime {

std::string State::generation_suffix() const {
  return generation_ > 1 ? "#" + std::to_string(generation_) : "";
}

namespace {

// Secrets and ConfigMaps hold the credentials monitors reference; Helm
// release Secrets are the bulk of most clusters' Secrets and never do.
std::vector<WatchSource> cr_watches(const discovery::PrometheusCrConfig& cr) {
  std::vector<std::string> kinds{"ServiceMonitor", "PodMonitor", "Probe", "ScrapeConfig", "Secret", "ConfigMap"};
  if (cr.needs_namespaces()) kinds.push_back("Namespace");
  std::vector<WatchSource> out;
  for (const auto& kind : kinds)
    out.push_back({"cr/" + kind, kind, "", "", kind == "Secret" ? "type!=helm.sh/release.v1" : "", "prometheus_cr"});
  return out;
}

// The config file's sources (HttpSdSource or FileSdSource) for `jobs`: one
// with the same job and entry keeps its id (and so its last answer); new
// ones get `base(n)` + `suffix`. The Prometheus CR jobs' sources (ids
// starting with `cr_prefix`) follow, as they were.
template <class Source, class Job, class Base>
std::vector<Source> reconcile(std::vector<Source> old, const std::vector<Job>& jobs, const std::string& cr_prefix,
                              Base base, const std::string& suffix) {
  std::vector<Source> next;
  for (std::size_t n = 0; n < jobs.size(); ++n) {
    const Job& j = jobs[n];
    auto same = std::find_if(old.begin(), old.end(), [&](const Source& s) {
      return s.job == j.job && s.raw == j.raw && !s.id.empty() && !s.id.starts_with(cr_prefix);
    });
    std::string id = same != old.end() ? std::exchange(same->id, "") : base(j, n) + suffix;
    next.push_back({std::move(id), j.job, j.field, j.sd, j.raw});
  }
  for (auto& s : old)
    if (s.id.starts_with(cr_prefix)) next.push_back(std::move(s));
  return next;
}

// Drops the answers of sources that are gone.
template <class Groups, class Source>
void forget_gone(Groups& groups, const std::vector<Source>& sources) {
  std::erase_if(groups, [&](const auto& g) {
    return std::none_of(sources.begin(), sources.end(), [&](auto& s) { return s.id == g.first; });
  });
}

template <class Source>
std::vector<std::string> ids_of(const std::vector<Source>& sources) {
  std::vector<std::string> out;
  for (const auto& s : sources) out.push_back(s.id);
  return out;
}

// Never with the password a user may have put in the URL.
model::LogEntry http_sd_failed(const HttpSdSource& source, const std::string& error) {
  return model::log_warn("discovery", "http_sd poll failed; its last groups stay")
      .with("field", source.field)
      .with("url", model::url_for_log(source.config.url))
      .with("error", error);
}

}  // namespace

void State::set_http_sources() {
  http_sources_ = reconcile(
      std::move(http_sources_), config_->http_sd, "cr-http/",
      [](const HttpSdJob& j, std::size_t n) { return j.job + "/" + std::to_string(n); }, generation_suffix());
  forget_gone(http_groups_, http_sources_);
}

void State::set_file_sources() {
  file_sources_ = reconcile(
      std::move(file_sources_), config_->file_sd, "cr-file/",
      [](const FileSdJob& j, std::size_t n) { return j.job + "/file/" + std::to_string(n); }, generation_suffix());
  forget_gone(file_groups_, file_sources_);
}

// Replaces the Prometheus CR jobs' http_sd and file_sd sources; returns
// whether the set of ids changed (ids hash the entry, so an unchanged
// entry keeps its source and answers).
bool State::set_cr_sources(std::vector<HttpSdSource> http, std::vector<FileSdSource> files) {
  const auto old_http = ids_of(http_sources_), old_files = ids_of(file_sources_);
  std::erase_if(http_sources_, [](auto& s) { return s.id.starts_with("cr-http/"); });
  std::erase_if(file_sources_, [](auto& s) { return s.id.starts_with("cr-file/"); });
  for (auto& s : http) http_sources_.push_back(std::move(s));
  for (auto& s : files) file_sources_.push_back(std::move(s));
  forget_gone(http_groups_, http_sources_);
  forget_gone(file_groups_, file_sources_);
  return ids_of(http_sources_) != old_http || ids_of(file_sources_) != old_files;
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
    set_cr_sources({}, {});
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

// The collector watch, the CR watches, then every consumer's; routes_ follows.
void State::rebuild_sources() {
  std::map<std::string, Route> before = std::move(routes_);
  // A kept watch keeps its whole WatchSource (the field its first job
  // named too): the runtime restarts a watch whose source changed.
  std::map<std::string, WatchSource> running;
  for (auto& w : watches_) running.emplace(w.id, std::move(w));
  watches_.clear();
  routes_.clear();
  if (collector_watch_) {
    watches_.push_back(*collector_watch_);
    routes_[collector_watch_->id] = Route{Route::To::collectors, {}, {}, "Pod", ""};
  }
  if (cr_)
    for (auto& w : cr_watches(cr_->config())) {
      routes_[w.id] = Route{Route::To::cr, {}, {}, w.kind, ""};
      watches_.push_back(std::move(w));
    }
  add_sd_watches(before, running);
  seed_joined(before);
}

// Watch `id`'s first consumer before this rebuild that is still here (and
// so holds what the watch delivered), or null.
const std::string* State::kept_consumer(const std::map<std::string, Route>& before, const std::string& id) const {
  auto old = before.find(id);
  if (old == before.end()) return nullptr;
  for (const std::string& key : old->second.consumers)
    if (consumers_.count(key)) return &key;
  return nullptr;
}

// Consumers whose entries need the same watch (kind, namespace, selectors)
// share it, as Prometheus shares one discovery among identical configs. A
// shared watch keeps its id while a consumer that had it remains, so the
// runtime does not restart it; the first consumer to need a watch names it.
void State::add_sd_watches(const std::map<std::string, Route>& before, std::map<std::string, WatchSource>& running) {
  std::map<std::string, std::string> ids;  // content -> id
  for (const auto& key : consumer_order_) {
    const SdConsumer& c = *consumers_.at(key);
    for (std::size_t i = 0; i < c.specs.size(); ++i) {
      const auto& spec = c.specs[i];
      const std::string kind(discovery::kind_name(spec.kind));
      const std::string content = kind + "\n" + spec.ns + "\n" + spec.label_selector + "\n" + spec.field_selector;
      if (auto shared = ids.find(content); shared != ids.end()) {
        routes_[shared->second].consumers.push_back(key);
        continue;
      }
      std::string id = key + "/" + std::to_string(i);
      if (auto old = sd_watch_ids_.find(content); old != sd_watch_ids_.end() && kept_consumer(before, old->second))
        id = old->second;
      ids.emplace(content, id);
      routes_[id] = Route{Route::To::sd, {key}, spec.kind, kind, spec.ns};
      if (auto kept = running.find(id); kept != running.end())
        watches_.push_back(std::move(kept->second));
      else
        watches_.push_back({id, kind, spec.ns, spec.label_selector, spec.field_selector, c.field});
    }
  }
  sd_watch_ids_ = std::move(ids);
}

// A consumer that joins a running watch never sees the objects it already
// delivered: it starts from what a consumer that had the watch holds of it.
void State::seed_joined(const std::map<std::string, Route>& before) {
  for (const auto& [id, route] : routes_) {
    const std::string* seed = route.to == Route::To::sd ? kept_consumer(before, id) : nullptr;
    if (!seed) continue;
    const auto& had = before.at(id).consumers;
    for (const std::string& key : route.consumers) {
      if (std::find(had.begin(), had.end(), key) != had.end()) continue;
      SdConsumer& c = *consumers_.at(key);
      for (const auto& object : consumers_.at(*seed)->index.objects(route.kind, route.ns)) {
        auto changed = c.index.apply(route.kind, discovery::Change::added, object);
        c.changed.insert(std::make_move_iterator(changed.begin()), std::make_move_iterator(changed.end()));
      }
      targets_dirty_ = true;
    }
  }
}

void State::on_http_sd(const HttpSdInput& in, Effects& fx) {
  auto source = std::find_if(http_sources_.begin(), http_sources_.end(), [&](auto& s) { return s.id == in.source; });
  if (source == http_sources_.end()) return;
  const std::string& url = source->config.url;
  if (!in.error.empty()) {
    fx.logs.push_back(http_sd_failed(*source, in.error));  // the previous groups stay
    return;
  }
  std::vector<TargetGroup> groups;
  try {
    discovery::check_http_sd_response(in.status, in.content_type);
    for (auto& g : discovery::parse_http_sd(in.body, url)) groups.push_back(std::move(g.group));
  } catch (const discovery::DiscoveryError& e) {
    fx.logs.push_back(http_sd_failed(*source, e.what()));
    return;
  }
  http_groups_[in.source] = std::move(groups);
  changed_http_.insert(in.source);
  targets_dirty_ = true;
}

// Each file of the source: parsed anew, or, when it cannot be read or
// parsed, its previous groups kept (as Prometheus keeps them); files no
// longer matched are gone.
void State::on_file_sd(const FileSdInput& in, Effects& fx) {
  auto source = std::find_if(file_sources_.begin(), file_sources_.end(), [&](auto& s) { return s.id == in.source; });
  if (source == file_sources_.end()) return;
  auto& previous = file_groups_[in.source];
  std::map<std::string, std::vector<TargetGroup>> next;
  for (const auto& f : in.files) {
    try {
      if (!f.error.empty()) throw discovery::DiscoveryError(f.path + ": " + f.error);
      auto& groups = next[f.path];
      for (auto& g : discovery::parse_file_sd(f.text, f.path)) groups.push_back(std::move(g.group));
    } catch (const discovery::DiscoveryError& e) {
      fx.logs.push_back(model::log_warn("discovery", "file_sd file unusable; its last groups stay")
                            .with("field", source->field)
                            .with("error", e.what()));
      if (auto kept = previous.find(f.path); kept != previous.end())
        next[f.path] = std::move(kept->second);
      else
        next.erase(f.path);
    }
  }
  previous = std::move(next);
  changed_file_.insert(in.source);
  targets_dirty_ = true;
}

}  // namespace allocation::runtime
