// agent.yml of the integrations DaemonSet (allNodes) or Deployment: the
// metrics and logs instances without their monitors and PodLogs (so
// integrations can send their own telemetry), and one `<name>_configs` list
// per integration name with each Integration's config verbatim.
#include "model/config.hpp"

namespace model {
namespace {

Value integrations_block(const Hierarchy& h, bool all_nodes) {
  // Integrations opt in to autoscrape individually.
  Value block = Value::obj({{"metrics", Value::obj({{"autoscrape", Value::obj({{"enable", false}})}})}});
  for (const Integration* i : h.integrations) {
    if (i->all_nodes != all_nodes) continue;
    std::string key = i->name + "_configs";
    Value* list = block.find(key);
    if (!list) list = &block.set(key, Value::array());
    list->push(i->config.is_null() ? Value::object() : i->config);
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
  out.set("integrations", integrations_block(h, all_nodes));
  return out;
}

}  // namespace model
