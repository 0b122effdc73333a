// The endpoints and endpointslice roles: one target per address and port,
// with the Service's labels on the group, the Pod's labels on targets whose
// address refers to a Pod, and one extra target per container port of such
// a Pod that no endpoint port covers.
#include <algorithm>

#include "allocation/discovery/kubernetes_roles.hpp"
#include "allocation/discovery/pod_meta.hpp"

namespace allocation::discovery {

namespace {

using model::Value;

const std::string kP = "__meta_kubernetes_";

// Pods seen through target references, in first-seen order, with the
// endpoint ports that reached them.
struct SeenPods {
  std::vector<std::pair<const Value*, std::vector<std::string>>> pods;

  std::vector<std::string>& ports_of(const Value* pod) {
    for (auto& [p, ports] : pods)
      if (p == pod) return ports;
    return pods.emplace_back(pod, std::vector<std::string>{}).second;
  }
};

// The Pod a target reference names, when it is a Pod the lookup knows.
const Value* resolve_pod(const Value* ref, const ObjectLookup& lookup, std::vector<std::string>* keys) {
  if (!ref || model::string_at(*ref, {"kind"}) != "Pod") return nullptr;
  const std::string key = model::string_at(*ref, {"namespace"}) + "/" + model::string_at(*ref, {"name"});
  if (keys) keys->push_back(key);
  return lookup ? lookup(Kind::pod, key) : nullptr;
}

void add_service_labels(LabelMap& group, const std::string& ns, const std::string& name, const ObjectLookup& lookup) {
  const Value* svc = lookup && !name.empty() ? lookup(Kind::service, ns + "/" + name) : nullptr;
  if (!svc) return;
  group[kP + "namespace"] = model::string_at(*svc, {"metadata", "namespace"});
  add_object_meta(group, *svc, "service");
}

// Pod labels plus the container whose port equals `port`. The endpoints
// role labels the protocol with the endpoint port's (`endpoint_protocol`),
// the endpointslice role with the container port's, as upstream.
void add_pod_target_labels(LabelMap& t, const Value& pod, const std::string& port,
                           const std::string* endpoint_protocol) {
  add_pod_labels(t, pod);
  if (port.empty()) return;
  for (const auto& c : array_at(pod, {"spec", "containers"})) {
    for (const auto& cport : array_at(c, {"ports"})) {
      if (int_at(cport, {"containerPort"}) != port) continue;
      t[kP + "pod_container_name"] = model::string_at(c, {"name"});
      t[kP + "pod_container_image"] = model::string_at(c, {"image"});
      t[kP + "pod_container_port_name"] = model::string_at(cport, {"name"});
      t[kP + "pod_container_port_number"] = port;
      t[kP + "pod_container_port_protocol"] =
          endpoint_protocol ? *endpoint_protocol : model::string_at(cport, {"protocol"});
      break;
    }
  }
}

// Targets for the container ports of seen pods that no endpoint port covers.
void add_uncovered_ports(const SeenPods& seen, std::vector<LabelMap>& targets) {
  for (const auto& [pod, ports] : seen.pods) {
    const std::string ip = model::string_at(*pod, {"status", "podIP"});
    if (ip.empty()) continue;
    for (const auto& c : array_at(*pod, {"spec", "containers"})) {
      for (const auto& cport : array_at(c, {"ports"})) {
        const std::string number = int_at(cport, {"containerPort"});
        if (std::find(ports.begin(), ports.end(), number) != ports.end()) continue;
        LabelMap t{{"__address__", join_host_port(ip, number)},
                   {kP + "pod_container_name", model::string_at(c, {"name"})},
                   {kP + "pod_container_image", model::string_at(c, {"image"})},
                   {kP + "pod_container_port_name", model::string_at(cport, {"name"})},
                   {kP + "pod_container_port_number", number},
                   {kP + "pod_container_port_protocol", model::string_at(cport, {"protocol"})}};
        add_pod_labels(t, *pod);
        targets.push_back(std::move(t));
      }
    }
  }
}

LabelMap endpoint_target(const Value& addr, const Value& port, const char* ready) {
  const std::string number = int_at(port, {"port"});
  LabelMap t{{"__address__", join_host_port(model::string_at(addr, {"ip"}), number)},
             {kP + "endpoint_port_name", model::string_at(port, {"name"})},
             {kP + "endpoint_port_protocol", model::string_at(port, {"protocol"})},
             {kP + "endpoint_ready", ready}};
  if (const Value* ref = addr.find("targetRef"); ref && ref->is_object()) {
    t[kP + "endpoint_address_target_kind"] = model::string_at(*ref, {"kind"});
    t[kP + "endpoint_address_target_name"] = model::string_at(*ref, {"name"});
  }
  if (const Value* node = addr.find("nodeName"); node && node->is_string())
    t[kP + "endpoint_node_name"] = node->as_string();
  if (auto host = model::string_at(addr, {"hostname"}); !host.empty()) t[kP + "endpoint_hostname"] = host;
  return t;
}

std::string bool_text(const Value* v) {
  return v->as_bool() ? "true" : "false";
}

LabelMap slice_target(const std::string& addr, const Value& ep, const Value& port) {
  const Value* number = port.find("port");
  const bool has_port = number && number->is_int();
  LabelMap t{{"__address__", has_port ? join_host_port(addr, std::to_string(number->as_int())) : addr}};
  for (auto [key, label] : {std::pair{"name", "port_name"}, std::pair{"protocol", "port_protocol"},
                            std::pair{"appProtocol", "port_app_protocol"}})
    if (const Value* v = port.find(key); v && v->is_string()) t[kP + "endpointslice_" + label] = v->as_string();
  if (has_port) t[kP + "endpointslice_port"] = std::to_string(number->as_int());
  for (auto cond : {"ready", "serving", "terminating"})
    if (const Value* v = model::find_path(ep, {"conditions", cond}); v && v->is_bool())
      t[kP + "endpointslice_endpoint_conditions_" + cond] = bool_text(v);
  if (const Value* h = ep.find("hostname"); h && h->is_string())
    t[kP + "endpointslice_endpoint_hostname"] = h->as_string();
  if (const Value* ref = ep.find("targetRef"); ref && ref->is_object()) {
    t[kP + "endpointslice_address_target_kind"] = model::string_at(*ref, {"kind"});
    t[kP + "endpointslice_address_target_name"] = model::string_at(*ref, {"name"});
  }
  if (const Value* topo = ep.find("deprecatedTopology"); topo && topo->is_object())
    for (const auto& [k, v] : topo->as_object()) {
      const std::string name = sanitize_label_name(k);
      t[kP + "endpointslice_endpoint_topology_" + name] = v.is_string() ? v.as_string() : "";
      t[kP + "endpointslice_endpoint_topology_present_" + name] = "true";
    }
  return t;
}

}  // namespace

TargetGroup build_endpoints_group(const Value& eps, const ObjectLookup& lookup, std::vector<std::string>* pod_keys) {
  const std::string ns = model::string_at(eps, {"metadata", "namespace"});
  LabelMap group{{kP + "namespace", ns}};
  add_service_labels(group, ns, model::string_at(eps, {"metadata", "name"}), lookup);
  add_object_meta(group, eps, "endpoints");
  std::vector<LabelMap> targets;
  SeenPods seen;
  auto add = [&](const Value& addr, const Value& port, const char* ready) {
    LabelMap t = endpoint_target(addr, port, ready);
    if (const Value* pod = resolve_pod(addr.find("targetRef"), lookup, pod_keys)) {
      const std::string protocol = model::string_at(port, {"protocol"});
      add_pod_target_labels(t, *pod, int_at(port, {"port"}), &protocol);
      seen.ports_of(pod).push_back(int_at(port, {"port"}));
    }
    targets.push_back(std::move(t));
  };
  for (const auto& subset : array_at(eps, {"subsets"}))
    for (const auto& port : array_at(subset, {"ports"})) {
      for (const auto& addr : array_at(subset, {"addresses"})) add(addr, port, "true");
      for (const auto& addr : array_at(subset, {"notReadyAddresses"})) add(addr, port, "false");
    }
  add_uncovered_ports(seen, targets);
  return make_group(group, targets);
}

std::string slice_service_name(const Value& slice) {
  return model::string_at(slice, {"metadata", "labels", "kubernetes.io/service-name"});
}

TargetGroup build_endpointslice_group(const Value& slice, const ObjectLookup& lookup,
                                      std::vector<std::string>* pod_keys) {
  const std::string ns = model::string_at(slice, {"metadata", "namespace"});
  LabelMap group{{kP + "namespace", ns}, {kP + "endpointslice_address_type", model::string_at(slice, {"addressType"})}};
  add_object_meta(group, slice, "endpointslice");
  add_service_labels(group, ns, slice_service_name(slice), lookup);
  std::vector<LabelMap> targets;
  SeenPods seen;
  for (const auto& ep : array_at(slice, {"endpoints"}))
    for (const auto& port : array_at(slice, {"ports"}))
      for (const auto& addr : array_at(ep, {"addresses"})) {
        if (!addr.is_string()) continue;
        LabelMap t = slice_target(addr.as_string(), ep, port);
        if (const Value* pod = resolve_pod(ep.find("targetRef"), lookup, pod_keys)) {
          add_pod_target_labels(t, *pod, int_at(port, {"port"}), nullptr);
          seen.ports_of(pod).push_back(int_at(port, {"port"}));
        }
        targets.push_back(std::move(t));
      }
  add_uncovered_ports(seen, targets);
  return make_group(group, targets);
}

}  // namespace allocation::discovery
