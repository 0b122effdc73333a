// Shared helpers for the actors/core tests: events from YAML manifests, a
// tracked "cluster" to render reference outputs from, and a small scenario.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "actors/core/event.hpp"
#include "actors/core/pipeline.hpp"
#include "actors/core/root_state.hpp"
#include "model/parse.hpp"
#include "model/render.hpp"

namespace actors_test {

// The roots most tests reconcile.
inline const actors::core::RootKey kAlpha{"mon", "alpha"}, kBeta{"mon", "beta"};

using actors::core::Event;
using actors::core::EventType;

inline constexpr std::int64_t kT0 = 1714564800000;  // 2024-05-01T12:00:00.000Z

inline std::vector<model::Value> docs(const std::string& yaml) {
  std::vector<model::Value> out;
  for (auto& d : model::parse_documents(yaml, "fixture")) out.push_back(std::move(d.value));
  return out;
}

inline model::Value doc(const std::string& yaml) {
  return docs(yaml).at(0);
}

// Numbers events and keeps the current cluster contents, so tests can
// compare the controller's outputs with a render over everything.
class Cluster {
 public:
  // Gives objects a uid and a resourceVersion (the seq), as an API server
  // would, so caches keyed by them are exercised.
  bool stamp_versions = false;
  // Follow each Secret/ConfigMap deletion with its grace expiry event.
  bool expire_deletions = true;

  const Event& add(const model::Value& given, EventType t = EventType::added) {
    ++seq_;
    model::Value obj = given;
    if (stamp_versions) {
      model::Value* md = obj.find("metadata");
      std::string kind = obj.find("kind") ? obj.find("kind")->as_string() : "";
      std::string ns = md && md->find("namespace") ? md->find("namespace")->as_string() : "";
      std::string name = md && md->find("name") ? md->find("name")->as_string() : "";
      if (md && !md->find("uid")) md->set("uid", "uid-" + kind + "-" + ns + "-" + name);
      if (md) md->set("resourceVersion", std::to_string(seq_));
    }
    Event e = actors::core::make_event(seq_, kT0 + static_cast<std::int64_t>(seq_) * 10, t, obj);
    auto id = std::make_pair(e.kind, actors::core::object_key(obj));
    if (t == EventType::deleted)
      objects_.erase(id);
    else
      objects_[id] = obj;
    events_.push_back(std::move(e));
    // As the selectors do with a zero grace period: the deletion of a
    // Secret or ConfigMap is followed by its grace expiry.
    if (t == EventType::deleted && expire_deletions &&
        (events_.back().kind == "Secret" || events_.back().kind == "ConfigMap")) {
      ++seq_;
      events_.push_back(actors::core::make_event(seq_, kT0 + static_cast<std::int64_t>(seq_) * 10, t,
                                                 actors::core::grace_expiry(obj)));
    }
    return events_.back();
  }
  void apply_yaml(const std::string& yaml, EventType t = EventType::added) {
    for (const auto& d : docs(yaml)) add(d, t);
  }
  const std::vector<Event>& events() const { return events_; }
  std::uint64_t seq() const { return seq_; }

  // What render_agent gives for every GrafanaAgent over the whole cluster.
  std::vector<model::Value> reference(const model::RenderOptions& opts = {}) const {
    model::Inventory inv;
    for (const auto& [id, obj] : objects_) inv.add(obj);
    std::vector<model::Value> out;
    for (const auto& [key, entry] : inv.agents) {
      auto r = model::render_agent(inv, entry.obj, opts);
      out.insert(out.end(), r.objects.begin(), r.objects.end());
    }
    return out;
  }

 private:
  std::uint64_t seq_ = 0;
  std::vector<Event> events_;
  std::map<std::pair<std::string, model::Key>, model::Value> objects_;
};

// Two GrafanaAgents sharing one ServiceMonitor (web-a); alpha selects
// monitors only in namespaces labelled monitored=yes, beta everywhere.
inline const char* kScenario = R"(
apiVersion: v1
kind: Namespace
metadata: {name: app1, labels: {monitored: "yes"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: app2, labels: {monitored: "no"}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: alpha, namespace: mon, uid: uid-alpha}
spec:
  metrics: {shards: 3, instanceSelector: {matchLabels: {agent: alpha}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: beta, namespace: mon, uid: uid-beta}
spec:
  metrics: {instanceSelector: {matchLabels: {agent: beta}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: alpha-mi, namespace: mon, labels: {agent: alpha}}
spec:
  remoteWrite: [{url: "https://mimir.example/api/v1/push"}]
  serviceMonitorSelector: {matchLabels: {team: web}}
  serviceMonitorNamespaceSelector: {matchLabels: {monitored: "yes"}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: beta-mi, namespace: mon, labels: {agent: beta}}
spec:
  serviceMonitorSelector: {matchLabels: {team: web}}
  serviceMonitorNamespaceSelector: {}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web-a, namespace: app1, labels: {team: web}}
spec:
  selector: {matchLabels: {app: web-a}}
  endpoints: [{port: http, bearerTokenSecret: {name: token, key: t}}]
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web-b, namespace: app2, labels: {team: web}}
spec:
  selector: {matchLabels: {app: web-b}}
  endpoints: [{port: http}]
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: db, namespace: app1, labels: {team: db}}
spec:
  selector: {matchLabels: {app: db}}
  endpoints: [{port: sql}]
---
apiVersion: v1
kind: Secret
metadata: {name: token, namespace: app1}
stringData: {t: s3cret}
)";

inline std::string yaml_of(const std::vector<model::Value>& objects) {
  return model::to_yaml_stream(objects);
}

// A replay pipeline fed all of kScenario and settled.
inline actors::core::Pipeline settled_scenario() {
  Cluster c;
  c.apply_yaml(kScenario);
  actors::core::Pipeline p;
  for (const auto& e : c.events()) p.feed(e);
  p.settle();
  return p;
}

}  // namespace actors_test
