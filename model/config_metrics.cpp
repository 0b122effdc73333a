// TEMP(helper-metrics): replaced by the full metrics renderer.
#include "model/config.hpp"
namespace model {
Value render_server_block(const GrafanaAgent& agent) {
  Value v = Value::object();
  v.set_nonempty("log_level", agent.log_level);
  v.set_nonempty("log_format", agent.log_format);
  return v;
}
Value render_metrics_block(const Hierarchy&, const RenderOptions&, AssetRefs&, std::vector<Problem>&, ConfigFlavor) {
  return Value::obj({{"wal_directory", "/var/lib/grafana-agent/data"}});
}
Value render_metrics_config(const Hierarchy& h, const RenderOptions& o, AssetRefs& a, std::vector<Problem>& p) {
  return Value::obj({{"server", render_server_block(*h.agent)}, {"metrics", render_metrics_block(h, o, a, p, ConfigFlavor::full)}});
}
}
