// The object builders behind generate_objects(); the layout is described
// in generate.hpp.
#include <cstdio>
#include <random>

#include "k8s/sim/generate.hpp"
#include "model/codec.hpp"

namespace k8s::sim {

using model::Value;

namespace {

constexpr std::size_t kAppsPerNamespace = 10;
const char* kMonitoringNs = "monitoring";

std::string numbered(const char* prefix, std::size_t i, int width = 0) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*zu", width, i);
  return std::string(prefix) + buf;
}

// Builds objects in order; randomness only from the raw engine output,
// which the standard fixes for mt19937_64 (distributions are not portable).
class Builder {
 public:
  explicit Builder(const GenerateSpec& s) : s_(s), rng_(s.seed) {}

  std::vector<Value> build() {
    namespaces();
    monitoring();
    for (std::size_t k = 0; k < s_.secrets; ++k) secret(k);
    for (std::size_t j = 0; j < s_.service_monitors; ++j) service_monitor(j);
    for (std::size_t j = 0; j < s_.pod_monitors; ++j) pod_monitor(j);
    for (std::size_t j = 0; j < s_.probes; ++j) probe(j);
    for (std::size_t p = 0; p < s_.pods; ++p) pod(p);
    return std::move(out_);
  }

 private:
  std::size_t pick(std::size_t n) { return static_cast<std::size_t>(rng_() % n); }
  std::string ns_name(std::size_t i) const { return numbered("ns-", i, 4); }
  std::string instance_of_ns(std::size_t i) const {
    return s_.metrics_instances ? numbered("mi-", i % s_.metrics_instances) : "none";
  }
  std::string hex(std::size_t bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < bytes * 2; ++i) out += digits[rng_() & 15];
    return out;
  }

  static Value meta(const std::string& name, const std::string& ns, Value labels) {
    Value m = Value::obj({{"name", name}});
    if (!ns.empty()) m.set("namespace", ns);
    m.set_nonempty("labels", std::move(labels));
    return m;
  }
  void emit(const char* api_version, const char* kind, Value metadata, const char* body_key = nullptr,
            Value body = {}) {
    Value o = Value::obj({{"apiVersion", api_version}, {"kind", kind}, {"metadata", std::move(metadata)}});
    if (body_key) o.set(body_key, std::move(body));
    out_.push_back(std::move(o));
  }

  void namespaces() {
    for (std::size_t i = 0; i < s_.namespaces; ++i) {
      Value labels = Value::obj({{"monitoring", "enabled"}});
      if (s_.metrics_instances) labels.set("team", numbered("team-", i % s_.metrics_instances));
      emit("v1", "Namespace", meta(ns_name(i), "", std::move(labels)));
    }
    emit("v1", "Namespace", meta(kMonitoringNs, "", Value::object()));
  }

  void monitoring() {
    for (std::size_t a = 0; a < s_.agents; ++a) {
      std::string name = numbered("agent-", a);
      emit("v1", "ServiceAccount", meta(name, kMonitoringNs, Value::object()));
      Value metrics = Value::obj({{"instanceSelector", Value::obj({{"matchLabels", Value::obj({{"agent", name}})}})},
                                  {"externalLabels", Value::obj({{"cluster", "synthetic"}, {"agent", name}})},
                                  {"scrapeInterval", "30s"}});
      Value spec = Value::obj({{"serviceAccountName", name}, {"logLevel", "info"}, {"metrics", std::move(metrics)}});
      emit("monitoring.grafana.com/v1alpha1", "GrafanaAgent",
           meta(name, kMonitoringNs, Value::obj({{"app", "grafana-agent"}})), "spec", std::move(spec));
    }
    for (std::size_t m = 0; m < s_.metrics_instances; ++m) instance(m);
  }

  static Value secret_key(const std::string& secret, const char* key) {
    return Value::obj({{"name", secret}, {"key", key}});
  }
  static Value basic_auth(const std::string& secret) {
    return Value::obj({{"username", secret_key(secret, "username")}, {"password", secret_key(secret, "password")}});
  }
  static Value match_labels(const char* key, const std::string& value) {
    return Value::obj({{"matchLabels", Value::obj({{key, value}})}});
  }

  void instance(std::size_t m) {
    std::string name = numbered("mi-", m), secret = numbered("rw-", m);
    emit("v1", "Secret", meta(secret, kMonitoringNs, Value::object()), "stringData",
         Value::obj({{"username", numbered("tenant-", m)}, {"password", hex(16)}}));
    Value ns_selector = m % 10 == 9 ? Value::object() : match_labels("team", numbered("team-", m));
    Value remote = Value::obj({{"url", "https://remote-write-" + std::to_string(m % 4) + ".example.com/api/prom/push"},
                               {"basicAuth", basic_auth(secret)}});
    Value spec = Value::obj({{"remoteWrite", Value::arr({std::move(remote)})},
                             {"serviceMonitorSelector", match_labels("instance", name)},
                             {"serviceMonitorNamespaceSelector", ns_selector},
                             {"podMonitorSelector", match_labels("instance", name)},
                             {"podMonitorNamespaceSelector", ns_selector},
                             {"probeSelector", match_labels("instance", name)},
                             {"probeNamespaceSelector", ns_selector}});
    emit("monitoring.grafana.com/v1alpha1", "MetricsInstance",
         meta(name, kMonitoringNs, Value::obj({{"agent", numbered("agent-", m % s_.agents)}})), "spec",
         std::move(spec));
  }

  void secret(std::size_t k) {
    Value data = Value::obj({{"username", model::base64_encode(numbered("user-", k))},
                             {"password", model::base64_encode(hex(12))},
                             {"token", model::base64_encode(hex(24))}});
    emit("v1", "Secret", meta(numbered("creds-", k), ns_name(k % s_.namespaces), Value::object()), "data",
         std::move(data));
  }

  // An endpoint's auth: a Secret of its own namespace, when there is one.
  void add_auth(Value& endpoint, std::size_t i, std::size_t q) {
    std::size_t n = s_.namespaces;
    std::size_t here = s_.secrets / n + (i < s_.secrets % n ? 1 : 0);
    if (here == 0 || q % 3 == 2) return;
    std::string secret = numbered("creds-", i + n * (q % here));
    if (q % 3 == 0)
      endpoint.set("basicAuth", basic_auth(secret));
    else
      endpoint.set("bearerTokenSecret", secret_key(secret, "token"));
  }

  Value endpoint(const char* port_key, std::size_t i, std::size_t q) {
    static const char* intervals[] = {"15s", "30s", "60s"};
    Value e = Value::obj({{port_key, "metrics"}, {"interval", intervals[pick(3)]}, {"path", "/metrics"}});
    if (pick(4) == 0) e.set("scheme", "https");
    add_auth(e, i, q);
    return e;
  }

  Value monitor_labels(std::size_t i, std::size_t q) const {
    return Value::obj({{"instance", instance_of_ns(i)}, {"app", numbered("app-", q % kAppsPerNamespace)}});
  }

  void service_monitor(std::size_t j) {
    std::size_t i = j % s_.namespaces, q = j / s_.namespaces;
    Value spec = Value::obj({{"selector", match_labels("app", numbered("app-", q % kAppsPerNamespace))},
                             {"endpoints", Value::arr({endpoint("port", i, q)})}});
    emit("monitoring.coreos.com/v1", "ServiceMonitor", meta(numbered("sm-", j), ns_name(i), monitor_labels(i, q)),
         "spec", std::move(spec));
  }

  void pod_monitor(std::size_t j) {
    std::size_t i = j % s_.namespaces, q = j / s_.namespaces;
    Value spec = Value::obj({{"selector", match_labels("app", numbered("app-", q % kAppsPerNamespace))},
                             {"podMetricsEndpoints", Value::arr({endpoint("port", i, q)})}});
    emit("monitoring.coreos.com/v1", "PodMonitor", meta(numbered("pm-", j), ns_name(i), monitor_labels(i, q)), "spec",
         std::move(spec));
  }

  void probe(std::size_t j) {
    std::size_t i = j % s_.namespaces, q = j / s_.namespaces;
    Value targets = Value::obj(
        {{"staticConfig", Value::obj({{"static", Value::arr({"https://site-" + std::to_string(j) + ".example.com"})},
                                      {"labels", Value::obj({{"probe", numbered("pr-", j)}})}})}});
    Value spec = Value::obj({{"module", "http_2xx"},
                             {"interval", "60s"},
                             {"prober", Value::obj({{"url", "blackbox-exporter.monitoring.svc:9115"}})},
                             {"targets", std::move(targets)}});
    emit("monitoring.coreos.com/v1", "Probe", meta(numbered("pr-", j), ns_name(i), monitor_labels(i, q)), "spec",
         std::move(spec));
  }

  void pod(std::size_t p) {
    std::size_t i = p % s_.namespaces, r = p / s_.namespaces;
    std::string app = numbered("app-", r % kAppsPerNamespace);
    Value port = Value::obj({{"name", "metrics"}, {"containerPort", 8080}});
    Value container = Value::obj(
        {{"name", "app"}, {"image", "registry.example.com/" + app + ":1.0"}, {"ports", Value::arr({std::move(port)})}});
    Value spec =
        Value::obj({{"containers", Value::arr({std::move(container)})}, {"nodeName", numbered("node-", pick(50))}});
    emit("v1", "Pod", meta(numbered("pod-", p), ns_name(i), Value::obj({{"app", app}})), "spec", std::move(spec));
  }

  const GenerateSpec& s_;
  std::mt19937_64 rng_;
  std::vector<Value> out_;
};

}  // namespace

std::vector<Value> generate_objects(const GenerateSpec& spec) {
  return Builder(spec).build();
}

}  // namespace k8s::sim
