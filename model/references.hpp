// The Secrets and ConfigMaps a resource names (TLS files, credentials,
// remote-write auth, additional scrape configs, integration files), for
// the routing index: a root subscribes to each so their changes reach it.
// Contract: pure; references resolve in the resource's own namespace, as
// rendering does; unnamed references are skipped; the result is sorted and
// has no duplicates.
#pragma once

#include <string>
#include <vector>

#include "model/agent.hpp"
#include "model/monitors.hpp"

namespace model {

struct AssetRef {
  bool secret = true;  // false: a ConfigMap
  std::string name;
  friend auto operator<=>(const AssetRef&, const AssetRef&) = default;
};

std::vector<AssetRef> references(const GrafanaAgent& agent);
std::vector<AssetRef> references(const MetricsInstance& mi);
std::vector<AssetRef> references(const LogsInstance& li);
std::vector<AssetRef> references(const Integration& i);
std::vector<AssetRef> references(const MetricsIntegration& i);
std::vector<AssetRef> references(const ServiceMonitor& sm);
std::vector<AssetRef> references(const PodMonitor& pm);
std::vector<AssetRef> references(const Probe& p);

}  // namespace model
