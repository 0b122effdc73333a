// PrometheusCrWatcher: monitor events into rendered jobs and their discovery.
#include "prometheus_cr_watch.hpp"

#include "model/yaml_emit.hpp"

namespace target_allocator {

namespace {

using allocation::discovery::Change;

Change change_of(k8s::WatchType t) {
  if (t == k8s::WatchType::added) return Change::added;
  return t == k8s::WatchType::modified ? Change::modified : Change::deleted;
}

std::string job_name(const model::Value& job) {
  const model::Value* name = job.is_object() ? job.find("job_name") : nullptr;
  return name && name->is_string() ? name->as_string() : "";
}

}  // namespace

PrometheusCrWatcher::PrometheusCrWatcher(std::shared_ptr<k8s::Transport> transport,
                                         allocation::discovery::PrometheusCrConfig config, DiscoveryRunner& runner,
                                         std::function<void(const std::string&)> log)
    : transport_(std::move(transport)),
      client_(std::make_unique<k8s::Client>(transport_)),
      runner_(runner),
      log_(std::move(log)),
      index_(config) {
  // Secrets and ConfigMaps hold the credentials monitors reference.
  std::vector<std::string> kinds{"ServiceMonitor", "PodMonitor", "Probe", "Secret", "ConfigMap"};
  if (config.needs_namespaces()) kinds.push_back("Namespace");
  for (const auto& kind : kinds) {
    auto sink = [this, kind](k8s::ObjectEvent e) {
      {
        std::lock_guard lock(mu_);
        if (!index_.apply(kind, change_of(e.type), e.object)) return;
        dirty_ = true;
      }
      runner_.notify();
    };
    auto on_error = [this, kind](const k8s::Result& r) {
      if (log_) log_("prometheus_cr: watching " + kind + ": " + r.error);
    };
    k8s::ReflectorOptions options;
    // Helm release Secrets are the bulk of most clusters' Secrets and never
    // hold scrape credentials.
    if (kind == "Secret") options.field_selector = "type!=helm.sh/release.v1";
    reflectors_.push_back(std::make_unique<k8s::Reflector>(*client_, *k8s::resource_for_kind(kind), options,
                                                           std::move(sink), nullptr, std::move(on_error)));
  }
}

PrometheusCrWatcher::~PrometheusCrWatcher() {
  stop();
}

void PrometheusCrWatcher::start() {
  started_ = true;
  for (auto& r : reflectors_) r->start();
  for (auto& [key, w] : sd_watchers_) w->start();
}

void PrometheusCrWatcher::stop() {
  for (auto& r : reflectors_) r->stop();
  for (auto& [key, w] : sd_watchers_) w->stop();
}

std::optional<PrometheusCrWatcher::Jobs> PrometheusCrWatcher::refresh() {
  model::Value rendered;
  std::vector<std::string> problems;
  {
    std::lock_guard lock(mu_);
    if (!dirty_) return std::nullopt;
    dirty_ = false;
    rendered = index_.jobs(problems);
  }
  Jobs out{model::Value::array(), {}};
  std::map<std::string, std::vector<KubernetesSdJob>> wanted;
  for (const auto& job : rendered.as_array()) {
    Config one;
    try {
      read_scrape_job(job, "prometheus_cr: " + job_name(job), one);
    } catch (const ConfigError& e) {
      problems.push_back(e.what());
      continue;
    }
    out.scrape_configs.push(job);
    for (auto& t : one.targets) out.static_targets.push_back(std::move(t));
    if (one.kubernetes_sd.empty()) continue;
    const std::string key = job_name(job) + "\n" + model::to_json(*job.find("kubernetes_sd_configs"));
    wanted[key] = std::move(one.kubernetes_sd);
  }
  update_sd_watchers(std::move(wanted));
  log_problems(std::move(problems));
  return out;
}

void PrometheusCrWatcher::update_sd_watchers(std::map<std::string, std::vector<KubernetesSdJob>> wanted) {
  for (auto it = sd_watchers_.begin(); it != sd_watchers_.end();) {
    if (wanted.count(it->first)) {
      ++it;
      continue;
    }
    it->second->stop();  // no update arrives after this
    for (auto source : it->second->sources()) runner_.remove_source(source);
    it = sd_watchers_.erase(it);
  }
  for (auto& [key, jobs] : wanted) {
    if (sd_watchers_.count(key)) continue;
    auto watcher = std::make_unique<KubernetesWatcher>(transport_, jobs, runner_, log_);
    if (started_) watcher->start();
    sd_watchers_.emplace(key, std::move(watcher));
  }
}

void PrometheusCrWatcher::log_problems(std::vector<std::string> problems) {
  if (problems == last_problems_) return;
  if (log_)
    for (const auto& p : problems) log_("prometheus_cr: left out: " + p);
  last_problems_ = std::move(problems);
}

}  // namespace target_allocator
