// DiscoveryRunner: static targets plus the latest groups of each source.
#include "discovery_runner.hpp"

#include <iostream>
#include <utility>

namespace target_allocator {

DiscoveryRunner::DiscoveryRunner(const Config& config, std::function<void(const std::string&)> log)
    : static_targets_(config.targets), log_(std::move(log)) {
  if (!log_) log_ = [](const std::string& m) { std::cerr << "target-allocator: " << m << std::endl; };
  for (const auto& sd : config.http_sd) {
    const std::size_t id = add_source(sd.job);
    auto on_error = [this, field = sd.field](const std::string& e) { log_(field + ": " + e); };
    pollers_.push_back(std::make_unique<HttpSdPoller>(
        sd.sd, [this, id](auto groups) { update(id, std::move(groups)); }, on_error));
  }
}

DiscoveryRunner::~DiscoveryRunner() {
  stop();
}

std::size_t DiscoveryRunner::add_source(const std::string& job, Pull pull) {
  std::lock_guard lock(mu_);
  sources_.push_back({allocation::Name::intern(job), {}, std::move(pull)});
  return sources_.size() - 1;
}

void DiscoveryRunner::mark_changed(std::size_t source) {
  {
    std::lock_guard lock(mu_);
    if (sources_.at(source).removed) return;
    sources_.at(source).dirty = true;
    changed_ = targets_changed_ = true;
  }
  cv_.notify_all();
}

void DiscoveryRunner::remove_source(std::size_t source) {
  {
    std::lock_guard lock(mu_);
    auto& s = sources_.at(source);
    s.removed = true;
    s.groups.clear();
    s.pull = nullptr;
    s.dirty = false;
    changed_ = targets_changed_ = true;
  }
  cv_.notify_all();
}

void DiscoveryRunner::set_static_targets(allocation::TargetList targets) {
  {
    std::lock_guard lock(mu_);
    static_targets_ = std::move(targets);
    changed_ = targets_changed_ = true;
  }
  cv_.notify_all();
}

void DiscoveryRunner::set_collectors(std::vector<allocation::Collector> collectors) {
  {
    std::lock_guard lock(mu_);
    collectors_ = std::move(collectors);
    changed_ = true;
  }
  cv_.notify_all();
}

std::optional<std::vector<allocation::Collector>> DiscoveryRunner::take_collectors() {
  std::lock_guard lock(mu_);
  return std::exchange(collectors_, std::nullopt);
}

void DiscoveryRunner::notify() {
  {
    std::lock_guard lock(mu_);
    changed_ = true;
  }
  cv_.notify_all();
}

void DiscoveryRunner::update(std::size_t source, std::vector<allocation::discovery::SourcedGroup> groups) {
  std::vector<allocation::TargetGroup> plain;
  plain.reserve(groups.size());
  for (auto& g : groups) plain.push_back(std::move(g.group));
  {
    std::lock_guard lock(mu_);
    if (sources_.at(source).removed) return;
    sources_.at(source).groups = std::move(plain);
    changed_ = targets_changed_ = true;
  }
  cv_.notify_all();
}

void DiscoveryRunner::start() {
  for (auto& p : pollers_) p->start();
}

void DiscoveryRunner::stop() {
  for (auto& p : pollers_) p->stop();
}

void DiscoveryRunner::request_stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
}

bool DiscoveryRunner::wait_for_change(std::optional<allocation::TimePoint> until) {
  std::unique_lock lock(mu_);
  auto ready = [this] { return changed_ || stop_; };
  if (until)
    cv_.wait_until(lock, *until, ready);
  else
    cv_.wait(lock, ready);
  changed_ = false;
  return !stop_;
}

bool DiscoveryRunner::targets_changed() {
  std::lock_guard lock(mu_);
  return targets_changed_;
}

allocation::TargetList DiscoveryRunner::targets() {
  std::vector<std::pair<std::size_t, Pull>> pulls;
  {
    std::lock_guard lock(mu_);
    targets_changed_ = false;
    for (std::size_t i = 0; i < sources_.size(); ++i)
      if (sources_[i].dirty && sources_[i].pull) {
        sources_[i].dirty = false;
        pulls.emplace_back(i, sources_[i].pull);
      }
  }
  std::vector<std::pair<std::size_t, std::vector<allocation::TargetGroup>>> pulled;
  for (auto& [i, pull] : pulls) pulled.emplace_back(i, pull());
  std::lock_guard lock(mu_);
  allocation::TargetList out = static_targets_;
  for (auto& [i, groups] : pulled)
    if (!sources_[i].removed) sources_[i].groups = std::move(groups);
  for (const auto& s : sources_) allocation::append_targets(s.job, s.groups, out);
  return out;
}

}  // namespace target_allocator
