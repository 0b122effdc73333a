// Scrape classes applied to monitor jobs, as prometheus-operator's
// promcfg.go merges them: TLS files fill what the monitor leaves unset,
// authorization applies to monitors without one, relabelings and metric
// relabelings come before the monitor's own, attachMetadata and the
// fallback scrape protocol apply when the monitor sets none.
#include "model/scrape/common.hpp"

namespace model::scrape {
namespace {

bool tls_is_zero(const TLSConfig& t) {
  return t.ca.empty() && t.cert.empty() && !t.key_secret && t.server_name.empty() && !t.insecure_skip_verify &&
         t.ca_file.empty() && t.cert_file.empty() && t.key_file.empty();
}

}  // namespace

const ScrapeClass* monitor_scrape_class(const JobContext& ctx, const std::string& name, const std::string& path,
                                        AssetRefs& assets) {
  if (!ctx.prom_operator) {
    if (!name.empty())
      unsupported_by_agent(assets, path, "a GrafanaAgent has no scrape classes; the monitor renders without one");
    return nullptr;
  }
  const ScrapeClasses& classes = ctx.prom_operator->scrape_classes;
  if (name.empty()) return classes.default_class();
  if (const ScrapeClass* c = classes.find(name)) return c;
  assets.error(path, "scrape class \"" + name + "\" is not defined");
  return nullptr;
}

std::optional<TLSConfig> class_tls(const std::optional<TLSConfig>& own, const ScrapeClass* c, bool zero_is_unset) {
  const bool unset = !own || (zero_is_unset && tls_is_zero(*own));
  if (!c || !c->tls_config) return own;
  if (unset) return c->tls_config;
  TLSConfig out = *own;
  const TLSConfig& ct = *c->tls_config;
  if (out.ca_file.empty() && out.ca.empty()) out.ca_file = ct.ca_file;
  if (out.cert_file.empty() && out.cert.empty()) out.cert_file = ct.cert_file;
  if (out.key_file.empty() && !out.key_secret) out.key_file = ct.key_file;
  return out;
}

std::optional<Authorization> class_authorization(const std::optional<Authorization>& own, const ScrapeClass* c,
                                                 std::initializer_list<std::pair<const char*, bool>> others,
                                                 const std::string& path, AssetRefs& assets) {
  if (!c || !c->authorization) return own;
  const bool unset = !own || (own->type.empty() && !own->credentials);
  if (!unset) {
    // A monitor's authorization is the "safe" form: it has no file of its own.
    Authorization out = *own;
    out.credentials_file = out.credentials ? "" : c->authorization->credentials_file;
    return out;
  }
  for (const auto& [field, set] : others)
    if (set)
      assets.error(path + "." + field, std::string("cannot be combined with the authorization of scrape class \"") +
                                           c->name + "\" (Prometheus allows one authentication method per job)");
  return c->authorization;
}

Value authorization_block(const std::string& ns, const Authorization& a, const std::string& path, AssetRefs& assets) {
  Value out = inline_authorization(ns, a, path, assets);
  out.set_nonempty("credentials_file", a.credentials_file);
  return out;
}

bool class_attach_node(std::optional<bool> own, const ScrapeClass* c) {
  if (own) return *own;
  return c && c->attach_metadata_node.value_or(false);
}

void append_class_relabelings(Value& rules, const ScrapeClass* c, bool compat) {
  if (!c) return;
  for (const auto& r : c->relabelings) rules.push(relabel_rule(r, compat));
}

void set_fallback_protocol(Value& job, const JobContext& ctx, const std::string& own, const ScrapeClass* c) {
  if (!ctx.prom_operator) return;  // the agent's Prometheus predates the field (see set_spec_settings)
  job.set_nonempty("fallback_scrape_protocol", own.empty() && c ? c->fallback_scrape_protocol : own);
}

}  // namespace model::scrape
