// ClusterSources: the cluster watches of the target allocator.
#include "cluster_sources.hpp"

#include "k8s/client/curl_transport.hpp"

namespace target_allocator {

ClusterSources::ClusterSources(const k8s::ClusterConfig& cluster, const Config& config, bool prometheus_cr,
                               const std::string& collector_namespace, DiscoveryRunner& runner,
                               const allocation::Clock& clock, std::function<void(const std::string&)> log) {
  auto transport = k8s::make_curl_transport(cluster, {.user_agent = "agent-operator-target-allocator"});
  if (!config.kubernetes_sd.empty())
    sd_ = std::make_unique<KubernetesWatcher>(transport, config.kubernetes_sd, runner, log);
  if (config.collector_selector)
    collectors_ = std::make_unique<CollectorWatcher>(transport, collector_namespace, *config.collector_selector, runner,
                                                     clock, log);
  if (prometheus_cr) {
    auto cr = config.prometheus_cr;
    cr.enabled = true;
    cr_ = std::make_unique<PrometheusCrWatcher>(transport, std::move(cr), runner, log);
  }
}

ClusterSources::~ClusterSources() {
  stop();
}

void ClusterSources::start() {
  if (sd_) sd_->start();
  if (collectors_) collectors_->start();
  if (cr_) cr_->start();
}

void ClusterSources::stop() {
  if (cr_) cr_->stop();
  if (collectors_) collectors_->stop();
  if (sd_) sd_->stop();
}

std::optional<PrometheusCrWatcher::Jobs> ClusterSources::refresh_cr() {
  return cr_ ? cr_->refresh() : std::nullopt;
}

}  // namespace target_allocator
