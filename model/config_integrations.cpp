// agent.yml of the integrations DaemonSet (daemonset integrations) or
// Deployment (the others): the metrics and logs instances without their
// monitors and PodLogs (so integrations can send their own telemetry), and
// one `<name>_configs` list per integration name holding each
// integration's block (integration_config_block), Integrations and
// MetricsIntegrations alike. The pods run with integrations-next
// (pod_template.cpp), whose global autoscrape is off here.
#include "model/config.hpp"
#include "model/integrations.hpp"

namespace model {
namespace {

Value integrations_block(const Hierarchy& h, bool all_nodes, const RenderOptions& opts) {
  // Integrations opt in to autoscrape individually.
  Value block = Value::obj({{"metrics", Value::obj({{"autoscrape", Value::obj({{"enable", false}})}})}});
  for (const IntegrationView& v : integration_views(h.integrations, h.metrics_integrations)) {
    if (v.daemonset() != all_nodes) continue;
    std::string key = *v.name + "_configs";
    Value* list = block.find(key);
    if (!list) list = &block.set(key, Value::array());
    list->push(integration_config_block(v, opts));
  }
  return block;
}

}  // namespace

Value render_integrations_config(const Hierarchy& h, bool all_nodes, const RenderOptions& opts, AssetRefs& assets,
                                 std::vector<Problem>& problems) {
  Value out = Value::object();
  out.set("server", render_server_block(*h.agent));
  out.set("metrics", render_metrics_block(h, opts, assets, problems, ConfigFlavor::integrations));
  out.set("logs", render_logs_block(h, opts, assets, problems, ConfigFlavor::integrations));
  out.set("integrations", integrations_block(h, all_nodes, opts));
  return out;
}

}  // namespace model
