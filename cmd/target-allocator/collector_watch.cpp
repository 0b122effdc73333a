// CollectorWatcher: Pod events into the collector set.
#include "collector_watch.hpp"

namespace target_allocator {

namespace {

allocation::discovery::Change change_of(k8s::WatchType t) {
  using allocation::discovery::Change;
  if (t == k8s::WatchType::added) return Change::added;
  return t == k8s::WatchType::modified ? Change::modified : Change::deleted;
}

}  // namespace

CollectorWatcher::CollectorWatcher(std::shared_ptr<k8s::Transport> transport, const std::string& ns,
                                   const model::LabelSelector& selector, DiscoveryRunner& runner,
                                   const allocation::Clock& clock, std::function<void(const std::string&)> log)
    : client_(std::make_unique<k8s::Client>(std::move(transport))), set_(selector) {
  k8s::ReflectorOptions options;
  options.ns = ns;
  options.label_selector = allocation::discovery::selector_text(selector);
  auto sink = [this, &runner, &clock](k8s::ObjectEvent e) {
    std::lock_guard lock(mu_);
    if (set_.apply(change_of(e.type), *e.object, clock.now())) runner.set_collectors(set_.collectors());
  };
  auto on_error = [log = std::move(log), ns](const k8s::Result& r) {
    if (log) log("collector_selector: watching pods in " + ns + ": " + r.error);
  };
  reflector_ = std::make_unique<k8s::Reflector>(*client_, *k8s::resource_for_kind("Pod"), options, std::move(sink),
                                                nullptr, std::move(on_error));
}

CollectorWatcher::~CollectorWatcher() {
  stop();
}

void CollectorWatcher::start() {
  reflector_->start();
}

void CollectorWatcher::stop() {
  reflector_->stop();
}

}  // namespace target_allocator
