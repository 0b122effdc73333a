#include "demo_integrations.hpp"

#include "model/codec.hpp"
#include "model/http_sd.hpp"
#include "model/labels.hpp"
#include "model/object_fields.hpp"
#include "model/parse.hpp"
#include "model/render.hpp"
#include "model/yaml_emit.hpp"
#include "sd/endpoints.hpp"

namespace cli {

namespace {

using model::Value;

k8s::sim::ResourceType type_of(k8s::sim::Cluster& cluster, const std::string& kind) {
  for (auto& t : cluster.types_snapshot())
    if (t.kind == kind && t.group.empty()) return t;
  throw std::runtime_error("simcluster has no core kind " + kind);
}

// The agent.yml of one config Secret, or null when absent or unreadable.
Value agent_config(k8s::sim::Cluster& cluster, const std::string& ns, const std::string& name) {
  try {
    auto snap = cluster.store().get(type_of(cluster, "Secret"), ns, name);
    std::string data = model::string_at(snap->value, {"data", "agent.yml"});
    std::optional<std::string> bytes = model::base64_decode(data);
    if (!bytes) return {};
    if (auto plain = model::gzip_decompress(*bytes)) bytes = plain;
    return model::parse_documents(*bytes, name).at(0).value;
  } catch (const std::exception&) {
    return {};
  }
}

// Two stand-in nodes for the DaemonSet's config, one pod for the Deployment's.
std::vector<sd::StandinBehaviour> pods_for(k8s::sim::Cluster& cluster, const std::string& ns, const std::string& ga) {
  std::vector<sd::StandinBehaviour> out;
  auto add = [&](const std::string& config_name, const std::string& host) {
    Value config = agent_config(cluster, ns, config_name);
    if (config.is_null()) return;
    sd::StandinBehaviour b;
    b.body = sd::standin_sd_body_for(config, host);
    out.push_back(std::move(b));
  };
  add(ga + "-integrations-ds-config", "node-1");
  add(ga + "-integrations-ds-config", "node-2");
  add(ga + "-integrations-deploy-config", ga + "-integrations-deploy-0");
  return out;
}

}  // namespace

DemoIntegrations start_demo_integrations(k8s::sim::Cluster& cluster) {
  DemoIntegrations out;
  for (const auto& snap : cluster.store().list(type_of(cluster, "Service"), "", {}).items) {
    model::Labels labels = model::object_labels(snap->value);
    auto ga = labels.find(model::kAgentNameLabel);
    auto type = labels.find(model::kTypeLabel);
    if (ga == labels.end() || type == labels.end() || type->second != sd::kIntegrationsType) continue;
    std::string ns = model::meta_string(snap->value, "namespace");
    std::vector<sd::StandinBehaviour> behaviours = pods_for(cluster, ns, ga->second);
    if (behaviours.empty()) continue;
    out.pods.push_back(std::make_unique<sd::StandinPods>(std::move(behaviours)));
    cluster.apply_manifest(sd::standin_endpoints(ns, ga->second, out.pods.back()->addresses()));
    out.agents.push_back(ns + "/" + ga->second);
  }
  return out;
}

}  // namespace cli
