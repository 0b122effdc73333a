#include "sd/endpoints.hpp"

#include <algorithm>

#include "model/labels.hpp"
#include "model/render.hpp"

namespace sd {

namespace {

// The port to ask: the only one, else the one named like the agent's
// default port; a subset without either is skipped.
std::optional<std::int64_t> pick_port(const model::Value& subset) {
  const model::Value* ports = subset.find("ports");
  if (!ports || !ports->is_array()) return std::nullopt;
  const model::Value* chosen = nullptr;
  for (const model::Value& p : ports->as_array()) {
    const model::Value* name = p.find("name");
    if (ports->as_array().size() == 1 || (name && name->is_string() && name->as_string() == kPortName)) chosen = &p;
  }
  const model::Value* port = chosen ? chosen->find("port") : nullptr;
  if (!port || !port->is_int() || port->as_int() <= 0 || port->as_int() > 65535) return std::nullopt;
  return port->as_int();
}

std::string host_port(const std::string& ip, std::int64_t port) {
  bool v6 = ip.find(':') != std::string::npos;
  return (v6 ? "[" + ip + "]" : ip) + ":" + std::to_string(port);
}

void add_subset(const model::Value& subset, std::vector<std::string>& out) {
  std::optional<std::int64_t> port = pick_port(subset);
  const model::Value* addresses = subset.find("addresses");
  if (!port || !addresses || !addresses->is_array()) return;
  for (const model::Value& a : addresses->as_array()) {
    const model::Value* ip = a.find("ip");
    if (ip && ip->is_string() && !ip->as_string().empty()) out.push_back(host_port(ip->as_string(), *port));
  }
}

}  // namespace

std::optional<EndpointsPods> read_endpoints(const model::Value& endpoints) {
  model::Labels labels = model::object_labels(endpoints);
  auto agent = labels.find(model::kAgentNameLabel);
  auto type = labels.find(model::kTypeLabel);
  std::string ns = model::meta_string(endpoints, "namespace");
  if (agent == labels.end() || agent->second.empty() || ns.empty()) return std::nullopt;
  if (type == labels.end() || type->second != kIntegrationsType) return std::nullopt;
  // Only the Service the operator named for this agent: another object
  // carrying the labels must not replace (or, deleted, clear) its pods.
  if (model::meta_string(endpoints, "name") != agent->second + "-integrations") return std::nullopt;
  EndpointsPods out{{ns, agent->second}, {}};
  if (const model::Value* subsets = endpoints.find("subsets"); subsets && subsets->is_array())
    for (const model::Value& s : subsets->as_array()) add_subset(s, out.addresses);
  std::sort(out.addresses.begin(), out.addresses.end());
  out.addresses.erase(std::unique(out.addresses.begin(), out.addresses.end()), out.addresses.end());
  return out;
}

std::string endpoints_label_selector() {
  return std::string(model::kManagedByLabel) + "=" + model::kManagedByValue + "," + model::kTypeLabel + "=" +
         kIntegrationsType;
}

}  // namespace sd
