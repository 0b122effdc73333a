#include "model/references.hpp"

#include <algorithm>

namespace model {
namespace {

// Collects into one sorted, duplicate-free list. The optional-like
// parameters are templates because endpoints box their settings
// (model::Boxed), and converting a box to std::optional would copy it.
struct Collector {
  std::vector<AssetRef> out;

  void secret(const std::optional<SecretKeySelector>& r) {
    if (r && !r->name.empty()) out.push_back({true, r->name});
  }
  void config_map(const std::string& name) {
    if (!name.empty()) out.push_back({false, name});
  }
  void either(const SecretOrConfigMap& r) {
    secret(r.secret);
    if (r.config_map) config_map(r.config_map->name);
  }
  template <class Tls>
  void tls(const Tls& t) {
    if (!t) return;
    either(t->ca);
    either(t->cert);
    secret(t->key_secret);
  }
  void proxy(const ProxySettings& p) {
    for (const auto& [header, refs] : p.proxy_connect_header)
      for (const auto& r : refs) secret(r);
  }
  template <class Basic>
  void basic_auth(const Basic& b) {
    if (!b) return;
    secret(b->username);
    secret(b->password);
  }
  template <class OAuth>
  void oauth2(const OAuth& o) {
    if (!o) return;
    either(o->client_id);
    secret(o->client_secret);
    tls(o->tls_config);
    proxy(o->proxy);
  }
  template <class Authz>
  void authorization(const Authz& a) {
    if (a) secret(a->credentials);
  }
  void remote_write(const RemoteWriteSpec& rw) {
    basic_auth(rw.basic_auth);
    oauth2(rw.oauth2);
    tls(rw.tls_config);
    if (!rw.sigv4) return;
    secret(rw.sigv4->access_key);
    secret(rw.sigv4->secret_key);
  }
  void logs_client(const LogsClientSpec& c) {
    basic_auth(c.basic_auth);
    oauth2(c.oauth2);
    tls(c.tls_config);
  }
  void endpoint(const Endpoint& e) {
    tls(e.tls_config);
    secret(e.bearer_token_secret);
    authorization(e.authorization);
    basic_auth(e.basic_auth);
    oauth2(e.oauth2);
    proxy(e.proxy);
  }
  template <class I>
  void integration(const I& i) {
    for (const auto& r : i.secrets) secret(r);
    for (const auto& r : i.config_maps) config_map(r.name);
  }

  std::vector<AssetRef> done() {
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    out.shrink_to_fit();
    return std::move(out);
  }
};

}  // namespace

std::vector<AssetRef> references(const GrafanaAgent& agent) {
  Collector c;
  if (agent.api_server) {
    c.basic_auth(agent.api_server->basic_auth);
    c.tls(agent.api_server->tls_config);
    c.authorization(agent.api_server->authorization);
  }
  for (const auto& rw : agent.metrics.remote_write) c.remote_write(rw);
  for (const auto& cl : agent.logs.clients) c.logs_client(cl);
  return c.done();
}

std::vector<AssetRef> references(const MetricsInstance& mi) {
  Collector c;
  for (const auto& rw : mi.remote_write) c.remote_write(rw);
  c.secret(mi.additional_scrape_configs);
  return c.done();
}

std::vector<AssetRef> references(const LogsInstance& li) {
  Collector c;
  for (const auto& cl : li.clients) c.logs_client(cl);
  c.secret(li.additional_scrape_configs);
  return c.done();
}

std::vector<AssetRef> references(const Integration& i) {
  Collector c;
  c.integration(i);
  return c.done();
}

std::vector<AssetRef> references(const MetricsIntegration& i) {
  Collector c;
  c.integration(i);
  return c.done();
}

std::vector<AssetRef> references(const ServiceMonitor& sm) {
  Collector c;
  for (const auto& e : sm.endpoints) c.endpoint(e);
  return c.done();
}

std::vector<AssetRef> references(const PodMonitor& pm) {
  Collector c;
  for (const auto& e : pm.endpoints) c.endpoint(e);
  return c.done();
}

std::vector<AssetRef> references(const Probe& p) {
  Collector c;
  c.tls(p.tls_config);
  c.secret(p.bearer_token_secret);
  c.basic_auth(p.basic_auth);
  c.oauth2(p.oauth2);
  c.authorization(p.authorization);
  c.proxy(p.prober_proxy);
  return c.done();
}

}  // namespace model
