// Fields a render leaves out, reported as warnings naming the field: the
// ones the Grafana Agent's Prometheus (v2.48, grafana/agent v0.39) lacks,
// and in compat mode the ones the Grafana Agent Operator never renders.
#include "model/scrape/common.hpp"

namespace model::scrape {

bool ignored_in_compat(const JobContext& ctx, AssetRefs& assets, const std::string& path) {
  if (!ctx.compat()) return false;
  assets.warn(path, "not rendered with --upstream-compat (the Grafana Agent Operator leaves it out); ignored");
  return true;
}

void unsupported_by_agent(AssetRefs& assets, const std::string& path, const std::string& why) {
  assets.warn(path, "not supported by the Grafana Agent (" + why + "); ignored");
}

std::optional<TLSConfig> compat_tls(const JobContext& ctx, std::optional<TLSConfig> tls, const std::string& path,
                                    AssetRefs& assets) {
  if (!tls || !ctx.compat()) return tls;
  if (!tls->min_version.empty() && ignored_in_compat(ctx, assets, path + ".minVersion")) tls->min_version.clear();
  if (!tls->max_version.empty() && ignored_in_compat(ctx, assets, path + ".maxVersion")) tls->max_version.clear();
  return tls;
}

void set_monitor_proxy(Value& job, const JobContext& ctx, const std::string& ns, const ProxySettings& p,
                       const std::string& path, AssetRefs& assets) {
  if (!ctx.compat() || !p.has_extended()) {
    set_proxy(job, ns, p, path, assets);
    return;
  }
  job.set_nonempty("proxy_url", p.proxy_url);
  const std::string prefix = path.empty() ? "" : path + ".";
  if (!p.no_proxy.empty()) ignored_in_compat(ctx, assets, prefix + "noProxy");
  if (p.proxy_from_environment == true) ignored_in_compat(ctx, assets, prefix + "proxyFromEnvironment");
  if (!p.proxy_connect_header.empty()) ignored_in_compat(ctx, assets, prefix + "proxyConnectHeader");
}

}  // namespace model::scrape
