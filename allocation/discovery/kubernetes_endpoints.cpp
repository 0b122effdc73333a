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
  if (!ref || string_view_at(*ref, {"kind"}) != "Pod") return nullptr;
  const std::string_view ns = string_view_at(*ref, {"namespace"}), name = string_view_at(*ref, {"name"});
  std::string key;
  key.reserve(ns.size() + 1 + name.size());
  key.append(ns).append(1, '/').append(name);
  const Value* pod = lookup ? lookup(Kind::pod, key) : nullptr;
  if (keys) keys->push_back(std::move(key));
  return pod;
}

void add_service_labels(LabelDraft& group, const std::string& ns, const std::string& name, const ObjectLookup& lookup) {
  const Value* svc = lookup && !name.empty() ? lookup(Kind::service, ns + "/" + name) : nullptr;
  if (!svc) return;
  group.set(RoleNames::get().ns, string_view_at(*svc, {"metadata", "namespace"}));
  add_object_meta(group, *svc, "service");
}

// Pod labels plus the container whose port equals `port`. The endpoints
// role labels the protocol with the endpoint port's (`endpoint_protocol`),
// the endpointslice role with the container port's, as upstream.
void add_pod_target_labels(LabelDraft& t, const Value& pod, const std::string& port,
                           const std::string_view* endpoint_protocol) {
  add_pod_labels(t, pod);
  if (port.empty()) return;
  const RoleNames& n = RoleNames::get();
  for (const auto& c : array_at(pod, {"spec", "containers"})) {
    for (const auto& cport : array_at(c, {"ports"})) {
      if (int_at(cport, {"containerPort"}) != port) continue;
      t.set(n.container_name, string_view_at(c, {"name"}));
      t.set(n.container_image, string_view_at(c, {"image"}));
      t.set(n.container_port_name, string_view_at(cport, {"name"}));
      t.set(n.container_port_number, port);
      t.set(n.container_port_protocol, endpoint_protocol ? *endpoint_protocol : string_view_at(cport, {"protocol"}));
      break;
    }
  }
}

// Targets for the container ports of seen pods that no endpoint port covers.
void add_uncovered_ports(const SeenPods& seen, LabelDraft& t, LabelSets& targets) {
  const RoleNames& n = RoleNames::get();
  for (const auto& [pod, ports] : seen.pods) {
    const std::string ip = model::string_at(*pod, {"status", "podIP"});
    if (ip.empty()) continue;
    for (const auto& c : array_at(*pod, {"spec", "containers"})) {
      for (const auto& cport : array_at(c, {"ports"})) {
        const std::string number = int_at(cport, {"containerPort"});
        if (std::find(ports.begin(), ports.end(), number) != ports.end()) continue;
        t.assign({{n.container_name, string_view_at(c, {"name"})},
                  {n.container_image, string_view_at(c, {"image"})},
                  {n.container_port_name, string_view_at(cport, {"name"})},
                  {n.container_port_number, number},
                  {n.container_port_protocol, string_view_at(cport, {"protocol"})}});
        t.set_host_port(n.address, ip, number);
        add_pod_labels(t, *pod);
        targets.push_back(t.share());
      }
    }
  }
}

// An Endpoints port's fields, read once for all the addresses it applies to.
struct EndpointPort {
  explicit EndpointPort(const Value& port)
      : name(string_view_at(port, {"name"})),
        protocol(string_view_at(port, {"protocol"})),
        number(int_at(port, {"port"})) {}
  std::string_view name, protocol;
  std::string number;
};

void endpoint_target(LabelDraft& t, const Value& addr, const EndpointPort& port, const char* ready) {
  const RoleNames& n = RoleNames::get();
  t.assign({{n.endpoint_port_name, port.name}, {n.endpoint_port_protocol, port.protocol}, {n.endpoint_ready, ready}});
  t.set_host_port(n.address, string_view_at(addr, {"ip"}), port.number);
  if (const Value* ref = addr.find("targetRef"); ref && ref->is_object()) {
    t.set(n.endpoint_target_kind, string_view_at(*ref, {"kind"}));
    t.set(n.endpoint_target_name, string_view_at(*ref, {"name"}));
  }
  if (const Value* node = addr.find("nodeName"); node && node->is_string())
    t.set(n.endpoint_node_name, node->as_string());
  if (auto host = string_view_at(addr, {"hostname"}); !host.empty()) t.set(n.endpoint_hostname, host);
}

std::string_view bool_text(const Value* v) {
  return v->as_bool() ? "true" : "false";
}

void slice_target(LabelDraft& t, const std::string& addr, const Value& ep, const Value& port) {
  const RoleNames& n = RoleNames::get();
  const Value* number = port.find("port");
  const bool has_port = number && number->is_int();
  t.assign({});
  if (has_port)
    t.set_host_port(n.address, addr, std::to_string(number->as_int()));
  else
    t.set(n.address, addr);
  for (auto [key, label] : {std::pair{"name", n.slice_port_name}, std::pair{"protocol", n.slice_port_protocol},
                            std::pair{"appProtocol", n.slice_port_app_protocol}})
    if (const Value* v = port.find(key); v && v->is_string()) t.set(label, v->as_string());
  if (has_port) t.set(n.slice_port, std::to_string(number->as_int()));
  for (auto [cond, label] : {std::pair{"ready", n.slice_ready}, std::pair{"serving", n.slice_serving},
                             std::pair{"terminating", n.slice_terminating}})
    if (const Value* v = model::find_path(ep, {"conditions", cond}); v && v->is_bool()) t.set(label, bool_text(v));
  if (const Value* h = ep.find("hostname"); h && h->is_string()) t.set(n.slice_hostname, h->as_string());
  if (const Value* ref = ep.find("targetRef"); ref && ref->is_object()) {
    t.set(n.slice_target_kind, string_view_at(*ref, {"kind"}));
    t.set(n.slice_target_name, string_view_at(*ref, {"name"}));
  }
  if (const Value* topo = ep.find("deprecatedTopology"); topo && topo->is_object())
    for (const auto& [k, v] : topo->as_object()) {
      const std::string name = sanitize_label_name(k.view());
      const std::string topology = "__meta_kubernetes_endpointslice_endpoint_topology_";
      t.set(Name::intern(topology + name), v.is_string() ? std::string_view(v.as_string()) : std::string_view());
      t.set(Name::intern(topology + "present_" + name), "true");
    }
}

}  // namespace

TargetGroup build_endpoints_group(const Value& eps, const ObjectLookup& lookup, std::vector<std::string>* pod_keys) {
  const std::string ns = model::string_at(eps, {"metadata", "namespace"});
  LabelDraft group{{RoleNames::get().ns, ns}};
  add_service_labels(group, ns, model::string_at(eps, {"metadata", "name"}), lookup);
  add_object_meta(group, eps, "endpoints");
  LabelSets targets;
  LabelDraft t;
  SeenPods seen;
  auto add = [&](const Value& addr, const EndpointPort& port, const char* ready) {
    endpoint_target(t, addr, port, ready);
    if (const Value* pod = resolve_pod(addr.find("targetRef"), lookup, pod_keys)) {
      add_pod_target_labels(t, *pod, port.number, &port.protocol);
      seen.ports_of(pod).push_back(port.number);
    }
    targets.push_back(t.share());
  };
  for (const auto& subset : array_at(eps, {"subsets"}))
    for (const auto& port_value : array_at(subset, {"ports"})) {
      const EndpointPort port(port_value);
      for (const auto& addr : array_at(subset, {"addresses"})) add(addr, port, "true");
      for (const auto& addr : array_at(subset, {"notReadyAddresses"})) add(addr, port, "false");
    }
  add_uncovered_ports(seen, t, targets);
  return make_group(group, std::move(targets));
}

std::string slice_service_name(const Value& slice) {
  return model::string_at(slice, {"metadata", "labels", "kubernetes.io/service-name"});
}

TargetGroup build_endpointslice_group(const Value& slice, const ObjectLookup& lookup,
                                      std::vector<std::string>* pod_keys) {
  const std::string ns = model::string_at(slice, {"metadata", "namespace"});
  const RoleNames& n = RoleNames::get();
  LabelDraft group{{n.ns, ns}, {n.slice_address_type, string_view_at(slice, {"addressType"})}};
  add_object_meta(group, slice, "endpointslice");
  add_service_labels(group, ns, slice_service_name(slice), lookup);
  LabelSets targets;
  LabelDraft t;
  SeenPods seen;
  for (const auto& ep : array_at(slice, {"endpoints"}))
    for (const auto& port : array_at(slice, {"ports"}))
      for (const auto& addr : array_at(ep, {"addresses"})) {
        if (!addr.is_string()) continue;
        slice_target(t, addr.as_string(), ep, port);
        if (const Value* pod = resolve_pod(ep.find("targetRef"), lookup, pod_keys)) {
          add_pod_target_labels(t, *pod, int_at(port, {"port"}), nullptr);
          seen.ports_of(pod).push_back(int_at(port, {"port"}));
        }
        targets.push_back(t.share());
      }
  add_uncovered_ports(seen, t, targets);
  return make_group(group, std::move(targets));
}

}  // namespace allocation::discovery
