#include "model/config.hpp"
#include "model/job_cache.hpp"

namespace model {
namespace {

template <class T>
void release(Members<T>& table, const char* kind, const JobCache& cache, const ObjectMeta& agent) {
  const int flavor = static_cast<int>(ConfigFlavor::full);  // monitors render in the full flavor only
  for (auto& [key, m] : table) {
    if (!m.decoded || !m.tree) continue;
    std::string k = JobCache::key(kind, key.first, key.second, m.uid(), m.resource_version, agent, flavor);
    if (!k.empty() && cache.contains(k)) m.decoded.reset();
  }
}

}  // namespace

void release_cached_members(Inventory& inv, const JobCache& cache, const GrafanaAgent& agent,
                            const RenderOptions& opts) {
  if (!inv.lazy() || uses_operator_sd(agent, opts)) return;
  release(inv.service_monitors, "ServiceMonitor", cache, agent.meta);
  release(inv.pod_monitors, "PodMonitor", cache, agent.meta);
  release(inv.probes, "Probe", cache, agent.meta);
}

}  // namespace model
