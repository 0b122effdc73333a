#include "actors/core/subscriptions.hpp"

#include <algorithm>

namespace actors::core {
namespace {

using model::Key;

struct RefCollector {
  Subscriptions& out;
  std::string ns;

  void secret(const std::optional<model::SecretKeySelector>& r) {
    if (r && !r->name.empty()) out.secrets.insert({ns, r->name});
  }
  void config_map(const std::string& name) {
    if (!name.empty()) out.config_maps.insert({ns, name});
  }
  void either(const model::SecretOrConfigMap& r) {
    secret(r.secret);
    if (r.config_map) config_map(r.config_map->name);
  }
  void tls(const std::optional<model::TLSConfig>& t) {
    if (!t) return;
    either(t->ca);
    either(t->cert);
    secret(t->key_secret);
  }
  void basic_auth(const std::optional<model::BasicAuth>& b) {
    if (!b) return;
    secret(b->username);
    secret(b->password);
  }
  void oauth2(const std::optional<model::OAuth2>& o) {
    if (!o) return;
    either(o->client_id);
    secret(o->client_secret);
  }
  void authorization(const std::optional<model::Authorization>& a) {
    if (a) secret(a->credentials);
  }
  void remote_write(const model::RemoteWriteSpec& rw) {
    basic_auth(rw.basic_auth);
    oauth2(rw.oauth2);
    tls(rw.tls_config);
    if (!rw.sigv4) return;
    secret(rw.sigv4->access_key);
    secret(rw.sigv4->secret_key);
  }
  void logs_client(const model::LogsClientSpec& c) {
    basic_auth(c.basic_auth);
    oauth2(c.oauth2);
    tls(c.tls_config);
  }
  void endpoint(const model::Endpoint& e) {
    tls(e.tls_config);
    secret(e.bearer_token_secret);
    authorization(e.authorization);
    basic_auth(e.basic_auth);
    oauth2(e.oauth2);
  }
};

void add_selector(Subscriptions& s, const char* kind, const std::optional<model::LabelSelector>& sel,
                  const std::optional<model::LabelSelector>& ns_sel, const std::string& parent_ns) {
  if (sel) s.selectors.push_back({kind, *sel, ns_sel, parent_ns});
}

void agent_refs(Subscriptions& s, const model::GrafanaAgent& a) {
  RefCollector c{s, a.meta.ns};
  if (a.api_server) {
    c.basic_auth(a.api_server->basic_auth);
    c.tls(a.api_server->tls_config);
    c.authorization(a.api_server->authorization);
  }
  for (const auto& rw : a.metrics.remote_write) c.remote_write(rw);
  for (const auto& cl : a.logs.clients) c.logs_client(cl);
}

void metrics_node(Subscriptions& s, const model::MetricsInstanceNode& node) {
  const model::MetricsInstance& mi = *node.instance;
  const std::string& ns = mi.meta.ns;
  add_selector(s, "ServiceMonitor", mi.service_monitor_selector, mi.service_monitor_namespace_selector, ns);
  add_selector(s, "PodMonitor", mi.pod_monitor_selector, mi.pod_monitor_namespace_selector, ns);
  add_selector(s, "Probe", mi.probe_selector, mi.probe_namespace_selector, ns);
  add_selector(s, "IntegrationMonitor", mi.integration_monitor_selector, mi.integration_monitor_namespace_selector, ns);
  RefCollector c{s, ns};
  for (const auto& rw : mi.remote_write) c.remote_write(rw);
  c.secret(mi.additional_scrape_configs);
  for (const auto* sm : node.service_monitors) {
    RefCollector m{s, sm->meta.ns};
    for (const auto& e : sm->endpoints) m.endpoint(e);
  }
  for (const auto* pm : node.pod_monitors) {
    RefCollector m{s, pm->meta.ns};
    for (const auto& e : pm->endpoints) m.endpoint(e);
  }
  for (const auto* p : node.probes) {
    RefCollector m{s, p->meta.ns};
    m.tls(p->tls_config);
    m.secret(p->bearer_token_secret);
    m.basic_auth(p->basic_auth);
    m.oauth2(p->oauth2);
    m.authorization(p->authorization);
  }
}

}  // namespace

bool SelectorSubscription::selects_namespace(const std::string& ns, const model::Labels& ns_labels) const {
  if (!namespace_selector) return ns == parent_ns;
  return namespace_selector->empty() || namespace_selector->matches(ns_labels);
}

std::string canonical(const model::LabelSelector& sel) {
  std::string out;
  for (const auto& [k, v] : sel.match_labels) out += k + "=" + v + ",";
  std::vector<std::string> exprs;
  for (const auto& r : sel.match_expressions) {
    std::vector<std::string> values = r.values;
    std::sort(values.begin(), values.end());
    std::string e = r.key + " " + r.op + " (";
    for (const auto& v : values) e += v + ",";
    exprs.push_back(e + ")");
  }
  std::sort(exprs.begin(), exprs.end());
  for (const auto& e : exprs) out += ";" + e;
  return out;
}

std::string SelectorSubscription::canonical() const {
  std::string ns = namespace_selector ? "{" + actors::core::canonical(*namespace_selector) + "}" : "nil";
  return kind + "|" + actors::core::canonical(selector) + "|" + ns + "|" + parent_ns;
}

bool Subscriptions::same_as(const Subscriptions& o) const {
  if (selectors.size() != o.selectors.size() || secrets != o.secrets || config_maps != o.config_maps) return false;
  for (std::size_t i = 0; i < selectors.size(); ++i)
    if (selectors[i].canonical() != o.selectors[i].canonical()) return false;
  return true;
}

void normalize(Subscriptions& s) {
  auto less = [](const SelectorSubscription& a, const SelectorSubscription& b) {
    return a.canonical() < b.canonical();
  };
  auto same = [](const SelectorSubscription& a, const SelectorSubscription& b) {
    return a.canonical() == b.canonical();
  };
  std::sort(s.selectors.begin(), s.selectors.end(), less);
  s.selectors.erase(std::unique(s.selectors.begin(), s.selectors.end(), same), s.selectors.end());
}

Subscriptions subscriptions_for(const model::Hierarchy& h) {
  Subscriptions s;
  if (!h.agent) return s;
  const model::GrafanaAgent& a = *h.agent;
  add_selector(s, "MetricsInstance", a.metrics.instance_selector, a.metrics.instance_namespace_selector, a.meta.ns);
  add_selector(s, "LogsInstance", a.logs.instance_selector, a.logs.instance_namespace_selector, a.meta.ns);
  add_selector(s, "Integration", a.integrations_selector, a.integrations_namespace_selector, a.meta.ns);
  add_selector(s, "MetricsIntegration", a.metrics_integrations_selector, a.metrics_integrations_namespace_selector,
               a.meta.ns);
  agent_refs(s, a);
  for (const auto& node : h.metrics) metrics_node(s, node);
  for (const auto& node : h.logs) {
    const model::LogsInstance& li = *node.instance;
    add_selector(s, "PodLogs", li.pod_logs_selector, li.pod_logs_namespace_selector, li.meta.ns);
    RefCollector c{s, li.meta.ns};
    for (const auto& cl : li.clients) c.logs_client(cl);
    c.secret(li.additional_scrape_configs);
  }
  for (const auto* i : h.integrations) {
    RefCollector c{s, i->meta.ns};
    for (const auto& r : i->secrets) c.secret(r);
    for (const auto& r : i->config_maps) c.config_map(r.name);
  }
  for (const auto* i : h.metrics_integrations) {
    RefCollector c{s, i->meta.ns};
    for (const auto& r : i->secrets) c.secret(r);
    for (const auto& r : i->config_maps) c.config_map(r.name);
  }
  normalize(s);
  return s;
}

}  // namespace actors::core
