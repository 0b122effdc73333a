#include "soak_script.hpp"

#include <stdexcept>

#include "k8s/client/resources.hpp"
#include "model/codec.hpp"
#include "model/yaml_emit.hpp"
#include "soak_cluster.hpp"

namespace soak {

using model::Value;

namespace {

constexpr int kAgents = 2, kInstances = 3, kNamespaces = 4, kMonitors = 12, kCreds = 8;

std::string n(const char* prefix, int i) {
  return prefix + std::to_string(i);
}

std::string key(const std::string& kind, const std::string& ns, const std::string& name) {
  return kind + " " + ns + "/" + name;
}

Value match(const char* label, const std::string& value) {
  return Value::obj({{"matchLabels", Value::obj({{label, value}})}});
}

}  // namespace

EditScript::EditScript(std::uint64_t seed) : rng_(seed) {}

std::vector<std::string> EditScript::namespaces() const {
  std::vector<std::string> out{"soak-ops"};
  for (int i = 0; i < kNamespaces; ++i) out.push_back(n("soak-", i));
  return out;
}

Value EditScript::content(const std::string& kind, const std::string& ns, int i) {
  auto labels = [](Value l) { return Value::obj({{"labels", std::move(l)}}); };
  if (kind == "Namespace")
    return Value::obj({{"metadata", labels(Value::obj({{"monitoring", pick(3) ? "enabled" : "disabled"},
                                                       {"team", n("t", pick(2))}}))}});
  if (kind == "Secret") {
    Value data = ns == "soak-ops" ? Value::obj({{"username", model::base64_encode(n("user-", pick(1000)))},
                                                {"password", model::base64_encode(n("pw-", pick(100000)))}})
                                  : Value::obj({{"token", model::base64_encode(n("token-", pick(100000)))}});
    return Value::obj({{"metadata", labels(Value::obj({{"soak", "yes"}}))}, {"data", std::move(data)}});
  }
  static const char* intervals[] = {"15s", "30s", "60s"};
  if (kind == "GrafanaAgent") {
    Value metrics = Value::obj({{"shards", 1 + pick(2)},
                                {"replicas", 1},
                                {"scrapeInterval", intervals[pick(3)]},
                                {"externalLabels", Value::obj({{"generation", n("g", pick(1000))}})},
                                {"instanceSelector", match("agent", n("ga-", i))}});
    return Value::obj(
        {{"metadata", labels(Value::obj({{"soak", "yes"}}))}, {"spec", Value::obj({{"metrics", std::move(metrics)}})}});
  }
  if (kind == "MetricsInstance") {
    std::string secret = n("rw-", i);
    Value auth = Value::obj({{"username", Value::obj({{"name", secret}, {"key", "username"}})},
                             {"password", Value::obj({{"name", secret}, {"key", "password"}})}});
    Value rw = Value::obj({{"url", "https://" + n("rw-", pick(100)) + ".example.com/push"}, {"basicAuth", auth}});
    return Value::obj({{"metadata", labels(Value::obj({{"agent", n("ga-", pick(kAgents))}}))},
                       {"spec", Value::obj({{"remoteWrite", Value::arr({std::move(rw)})},
                                            {"serviceMonitorNamespaceSelector", match("monitoring", "enabled")},
                                            {"serviceMonitorSelector", match("instance", n("mi-", i))},
                                            {"podMonitorNamespaceSelector", match("team", n("t", pick(2)))},
                                            {"podMonitorSelector", match("instance", n("mi-", i))}})}});
  }
  Value endpoint = Value::obj({{"port", pick(2) ? "web" : "metrics"}, {"interval", intervals[pick(3)]}});
  Value spec = Value::obj({{"selector", match("app", n("app-", pick(5)))}});
  if (kind == "ServiceMonitor") {
    int creds = (i % kNamespaces) + kNamespaces * pick(kCreds / kNamespaces);  // one of its namespace's
    endpoint.set("bearerTokenSecret", Value::obj({{"name", n("creds-", creds)}, {"key", "token"}}));
    spec.set("endpoints", Value::arr({std::move(endpoint)}));
  } else {
    spec.set("podMetricsEndpoints", Value::arr({std::move(endpoint)}));
  }
  return Value::obj(
      {{"metadata", labels(Value::obj({{"instance", n("mi-", pick(kInstances))}}))}, {"spec", std::move(spec)}});
}

Edit EditScript::create_or_patch(const std::string& kind, const std::string& ns, const std::string& name,
                                 Value content) {
  const k8s::Resource& r = *k8s::resource_for_kind(kind);
  std::string id = key(kind, ns, name);
  Edit e{"PATCH", kind, ns, name, k8s::resource_path(r, ns, name), ""};
  if (!objects_.count(id)) {
    e.method = "POST";
    e.path = k8s::resource_path(r, ns);
    Value obj = content;
    obj.set("apiVersion", r.api_version());
    obj.set("kind", kind);
    obj.find("metadata")->set("name", name);
    if (r.namespaced) obj.find("metadata")->set("namespace", ns);
    e.body = model::to_json(obj);
  } else {
    e.body = model::to_json(content);
  }
  objects_[id] = std::move(content);
  touched_[id] = Ref{kind, ns, name};
  ++edits_;
  return e;
}

Edit EditScript::remove(const std::string& kind, const std::string& ns, const std::string& name) {
  objects_.erase(key(kind, ns, name));
  ++edits_;
  return Edit{"DELETE", kind, ns, name, k8s::resource_path(*k8s::resource_for_kind(kind), ns, name), ""};
}

std::vector<Edit> EditScript::setup() {
  std::vector<Edit> out;
  out.push_back(create_or_patch("Namespace", "", "soak-ops", Value::obj({{"metadata", Value::object()}})));
  for (int i = 0; i < kNamespaces; ++i)
    out.push_back(create_or_patch("Namespace", "", n("soak-", i), content("Namespace", "", i)));
  for (int i = 0; i < kInstances; ++i) {
    out.push_back(create_or_patch("Secret", "soak-ops", n("rw-", i), content("Secret", "soak-ops", i)));
    out.push_back(create_or_patch("MetricsInstance", "soak-ops", n("mi-", i), content("MetricsInstance", "", i)));
  }
  for (int i = 0; i < kAgents; ++i)
    out.push_back(create_or_patch("GrafanaAgent", "soak-ops", n("ga-", i), content("GrafanaAgent", "", i)));
  return out;
}

Edit EditScript::next() {
  int r = pick(100);
  if (r >= 88) {
    int i = pick(kNamespaces);
    return create_or_patch("Namespace", "", n("soak-", i), content("Namespace", "", i));
  }
  std::string kind, ns, name;
  int i = 0;
  if (r < 6) {
    kind = "GrafanaAgent", i = pick(kAgents), ns = "soak-ops", name = n("ga-", i);
  } else if (r < 16) {
    kind = "MetricsInstance", i = pick(kInstances), ns = "soak-ops", name = n("mi-", i);
  } else if (r < 42) {
    kind = "ServiceMonitor", i = pick(kMonitors), ns = n("soak-", i % kNamespaces), name = n("sm-", i);
  } else if (r < 62) {
    kind = "PodMonitor", i = pick(kMonitors), ns = n("soak-", i % kNamespaces), name = n("pm-", i);
  } else if (r < 72) {
    kind = "Secret", i = pick(kInstances), ns = "soak-ops", name = n("rw-", i);
  } else {
    kind = "Secret", i = pick(kCreds), ns = n("soak-", i % kNamespaces), name = n("creds-", i);
  }
  if (objects_.count(key(kind, ns, name)) && pick(5) == 0) return remove(kind, ns, name);
  return create_or_patch(kind, ns, name, content(kind, ns, i));
}

namespace {

// The path of the first member of `want` that `have` lacks or holds with
// another value ("" when none; objects compare recursively, since the
// server adds defaults and metadata of its own).
std::string first_difference(const Value& have, const Value& want, const std::string& path) {
  if (!want.is_object()) return model::to_json(have) == model::to_json(want) ? "" : path;
  if (!have.is_object()) return path;
  for (const auto& [k, v] : want.as_object()) {
    const Value* h = have.find(k);
    if (!h) return path + "." + k;
    if (std::string p = first_difference(*h, v, path + "." + k); !p.empty()) return p;
  }
  return "";
}

}  // namespace

std::string differs(const Value& obj, const Value& want) {
  std::string path = first_difference(obj, want, "");
  if (path.empty()) return "";
  const Value* have = &obj;
  for (std::size_t at = 1; have && at < path.size();) {
    std::size_t next = path.find('.', at);
    have = have->find(path.substr(at, next - at));
    at = next == std::string::npos ? path.size() : next + 1;
  }
  return path + " is " + (have ? model::to_json(*have) : std::string("absent")) + ", the script last set it otherwise";
}

void apply(SimProcess& sim, const Edit& e) {
  HttpAnswer a =
      sim.call(e.method, e.path, e.body, e.method == "PATCH" ? "application/merge-patch+json" : "application/json");
  if (a.status < 200 || a.status >= 300)
    throw std::runtime_error(e.describe() + ": HTTP " + std::to_string(a.status) + " " + a.body);
}

}  // namespace soak
