// TEMP(helper-logs): replaced by the full logs renderer.
#include "model/config.hpp"
namespace model {
Value render_logs_block(const Hierarchy&, const RenderOptions&, AssetRefs&, std::vector<Problem>&, ConfigFlavor) {
  return Value::obj({{"positions_directory", "/var/lib/grafana-agent/data"}});
}
Value render_logs_config(const Hierarchy& h, const RenderOptions& o, AssetRefs& a, std::vector<Problem>& p) {
  return Value::obj({{"server", render_server_block(*h.agent)}, {"logs", render_logs_block(h, o, a, p, ConfigFlavor::full)}});
}
Value render_integrations_config(const Hierarchy&, bool, const RenderOptions&, AssetRefs&, std::vector<Problem>&) {
  return Value::object();
}
}
