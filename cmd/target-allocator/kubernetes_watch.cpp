// KubernetesWatcher: Reflector events into per-config KubernetesIndex.
#include "kubernetes_watch.hpp"

namespace target_allocator {

namespace {

using allocation::discovery::Change;

Change change_of(k8s::WatchType t) {
  switch (t) {
    case k8s::WatchType::added:
      return Change::added;
    case k8s::WatchType::modified:
      return Change::modified;
    case k8s::WatchType::deleted:
      break;
  }
  return Change::deleted;
}

}  // namespace

KubernetesWatcher::KubernetesWatcher(std::shared_ptr<k8s::Transport> transport,
                                     const std::vector<KubernetesSdJob>& jobs, DiscoveryRunner& runner,
                                     std::function<void(const std::string&)> log)
    : transport_(std::move(transport)),
      client_(std::make_unique<k8s::Client>(transport_)),
      runner_(runner),
      log_(std::move(log)) {
  for (const auto& sd : jobs) {
    auto& job = *jobs_.emplace_back(std::make_unique<Job>(sd.field, sd.sd));
    job.source = runner_.add_source(sd.job, [&job] {
      std::lock_guard lock(job.mu);
      std::vector<allocation::TargetGroup> groups;
      for (auto& g : job.index.groups()) groups.push_back(std::move(g.group));
      return groups;
    });
    for (const auto& spec : allocation::discovery::watch_specs(sd.sd)) {
      const k8s::Resource* resource = k8s::resource_for_kind(allocation::discovery::kind_name(spec.kind));
      if (!resource) continue;  // every discovery kind is known to the client; kept defensive
      k8s::ReflectorOptions options;
      options.ns = spec.ns;
      options.label_selector = spec.label_selector;
      options.field_selector = spec.field_selector;
      auto sink = [this, &job, kind = spec.kind](k8s::ObjectEvent e) {
        std::lock_guard lock(job.mu);
        if (!job.index.apply(kind, change_of(e.type), e.object).empty()) runner_.mark_changed(job.source);
      };
      auto on_error = [this, &job, plural = resource->plural](const k8s::Result& r) {
        if (log_) log_(job.field + ": watching " + plural + ": " + r.error);
      };
      reflectors_.push_back(
          std::make_unique<k8s::Reflector>(*client_, *resource, options, std::move(sink), nullptr, on_error));
    }
  }
}

KubernetesWatcher::~KubernetesWatcher() {
  stop();
}

void KubernetesWatcher::start() {
  for (auto& r : reflectors_) r->start();
}

void KubernetesWatcher::stop() {
  for (auto& r : reflectors_) r->stop();
}

std::vector<std::size_t> KubernetesWatcher::sources() const {
  std::vector<std::size_t> out;
  for (const auto& job : jobs_) out.push_back(job->source);
  return out;
}

}  // namespace target_allocator
