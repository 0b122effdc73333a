// The pod, service and ingress roles.
#include "allocation/discovery/kubernetes_roles.hpp"

#include "allocation/discovery/pod_meta.hpp"
#include "model/text.hpp"

namespace allocation::discovery {

namespace {

using model::Value;

constexpr std::string_view kPrefix = "__meta_kubernetes_";

std::string ready_label(const Value& pod) {
  for (const auto& c : array_at(pod, {"status", "conditions"}))
    if (model::string_at(c, {"type"}) == "Ready") return model::ascii_lower(model::string_at(c, {"status"}));
  return "unknown";
}

const Value* controller_of(const Value& object) {
  for (const auto& ref : array_at(object, {"metadata", "ownerReferences"}))
    if (const Value* c = ref.find("controller"); c && c->is_bool() && c->as_bool()) return &ref;
  return nullptr;
}

std::vector<std::string_view> split_dots(std::string_view s) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    const auto dot = s.find('.', start);
    out.push_back(s.substr(start, dot - start));
    if (dot == std::string_view::npos) return out;
    start = dot + 1;
  }
}

// Ingress TLS host patterns: equal, or a "*" first label matching any one
// label with the rest equal (upstream's matchesHostnamePattern).
bool matches_hostname_pattern(std::string_view pattern, std::string_view host) {
  if (pattern == host) return true;
  const auto p = split_dots(pattern), h = split_dots(host);
  if (p[0] != "*" || p.size() != h.size()) return false;
  for (std::size_t i = 1; i < p.size(); ++i)
    if (p[i] != h[i]) return false;
  return true;
}

RoleNames role_names() {
  const auto k = [](std::string_view suffix) { return Name::intern(std::string(kPrefix) + std::string(suffix)); };
  RoleNames n;
  n.address = Names::get().address, n.ns = k("namespace");
  n.pod_ip = k("pod_ip"), n.pod_ready = k("pod_ready"), n.pod_phase = k("pod_phase");
  n.pod_node_name = k("pod_node_name"), n.pod_host_ip = k("pod_host_ip"), n.pod_uid = k("pod_uid");
  n.pod_controller_kind = k("pod_controller_kind"), n.pod_controller_name = k("pod_controller_name");
  n.container_name = k("pod_container_name"), n.container_id = k("pod_container_id");
  n.container_image = k("pod_container_image"), n.container_init = k("pod_container_init");
  n.container_port_name = k("pod_container_port_name"), n.container_port_number = k("pod_container_port_number");
  n.container_port_protocol = k("pod_container_port_protocol");
  n.service_port_name = k("service_port_name"), n.service_port_number = k("service_port_number");
  n.service_port_protocol = k("service_port_protocol"), n.service_type = k("service_type");
  n.service_external_name = k("service_external_name"), n.service_cluster_ip = k("service_cluster_ip");
  n.service_loadbalancer_ip = k("service_loadbalancer_ip");
  n.ingress_class_name = k("ingress_class_name"), n.ingress_scheme = k("ingress_scheme");
  n.ingress_host = k("ingress_host"), n.ingress_path = k("ingress_path");
  n.endpoint_port_name = k("endpoint_port_name"), n.endpoint_port_protocol = k("endpoint_port_protocol");
  n.endpoint_ready = k("endpoint_ready"), n.endpoint_target_kind = k("endpoint_address_target_kind");
  n.endpoint_target_name = k("endpoint_address_target_name"), n.endpoint_node_name = k("endpoint_node_name");
  n.endpoint_hostname = k("endpoint_hostname");
  n.slice_address_type = k("endpointslice_address_type"), n.slice_port_name = k("endpointslice_port_name");
  n.slice_port_protocol = k("endpointslice_port_protocol");
  n.slice_port_app_protocol = k("endpointslice_port_app_protocol"), n.slice_port = k("endpointslice_port");
  n.slice_ready = k("endpointslice_endpoint_conditions_ready");
  n.slice_serving = k("endpointslice_endpoint_conditions_serving");
  n.slice_terminating = k("endpointslice_endpoint_conditions_terminating");
  n.slice_hostname = k("endpointslice_endpoint_hostname");
  n.slice_target_kind = k("endpointslice_address_target_kind");
  n.slice_target_name = k("endpointslice_address_target_name");
  return n;
}

}  // namespace

const RoleNames& RoleNames::get() {
  static const RoleNames names = role_names();
  return names;
}

void add_pod_labels(LabelDraft& labels, const Value& pod) {
  const RoleNames& n = RoleNames::get();
  labels.set(n.pod_ip, string_view_at(pod, {"status", "podIP"}));
  labels.set(n.pod_ready, ready_label(pod));
  labels.set(n.pod_phase, string_view_at(pod, {"status", "phase"}));
  labels.set(n.pod_node_name, string_view_at(pod, {"spec", "nodeName"}));
  labels.set(n.pod_host_ip, string_view_at(pod, {"status", "hostIP"}));
  labels.set(n.pod_uid, string_view_at(pod, {"metadata", "uid"}));
  add_object_meta(labels, pod, "pod");
  if (const Value* ref = controller_of(pod)) {
    if (auto kind = string_view_at(*ref, {"kind"}); !kind.empty()) labels.set(n.pod_controller_kind, kind);
    if (auto name = string_view_at(*ref, {"name"}); !name.empty()) labels.set(n.pod_controller_name, name);
  }
}

std::string container_id(const Value& pod, const std::string& name, bool init) {
  for (const auto& s : array_at(pod, {"status", init ? "initContainerStatuses" : "containerStatuses"}))
    if (model::string_at(s, {"name"}) == name) return model::string_at(s, {"containerID"});
  return "";
}

TargetGroup make_group(LabelDraft& group, LabelSets targets) {
  TargetGroup out;
  if (!group.empty()) out.labels = group.share();
  out.targets = std::move(targets);
  return out;
}

std::string group_source(Role role, const Value& object) {
  return std::string(role_name(role)) + "/" + model::namespaced_name(object);
}

TargetGroup build_pod_group(const Value& pod) {
  const std::string ip = model::string_at(pod, {"status", "podIP"});
  if (ip.empty()) return {};  // starting or evicted: an empty group, as upstream
  const RoleNames& n = RoleNames::get();
  LabelDraft group;
  add_pod_labels(group, pod);
  group.set(n.ns, string_view_at(pod, {"metadata", "namespace"}));
  LabelSets targets;
  LabelDraft base, t;
  for (bool init : {false, true}) {
    for (const auto& c : array_at(pod, {"spec", init ? "initContainers" : "containers"})) {
      const std::string name = model::string_at(c, {"name"});
      base.assign({{n.address, ip},
                   {n.container_name, name},
                   {n.container_id, container_id(pod, name, init)},
                   {n.container_image, string_view_at(c, {"image"})},
                   {n.container_init, init ? "true" : "false"}});
      const auto& ports = array_at(c, {"ports"});
      if (ports.empty()) targets.push_back(base.share());
      for (const auto& port : ports) {
        t = base;
        const std::string number = int_at(port, {"containerPort"});
        t.set_host_port(n.address, ip, number);
        t.set(n.container_port_number, number);
        t.set(n.container_port_name, string_view_at(port, {"name"}));
        t.set(n.container_port_protocol, string_view_at(port, {"protocol"}));
        targets.push_back(t.share());
      }
    }
  }
  return make_group(group, std::move(targets));
}

TargetGroup build_service_group(const Value& svc) {
  const RoleNames& n = RoleNames::get();
  LabelDraft group{{n.ns, string_view_at(svc, {"metadata", "namespace"})}};
  add_object_meta(group, svc, "service");
  const std::string host =
      model::string_at(svc, {"metadata", "name"}) + "." + model::string_at(svc, {"metadata", "namespace"}) + ".svc";
  const std::string_view type = string_view_at(svc, {"spec", "type"});
  LabelSets targets;
  LabelDraft t;
  for (const auto& port : array_at(svc, {"spec", "ports"})) {
    const std::string number = int_at(port, {"port"});
    t.assign({{n.service_port_name, string_view_at(port, {"name"})},
              {n.service_port_number, number},
              {n.service_port_protocol, string_view_at(port, {"protocol"})},
              {n.service_type, type}});
    t.set_host_port(n.address, host, number);
    if (type == "ExternalName")
      t.set(n.service_external_name, string_view_at(svc, {"spec", "externalName"}));
    else
      t.set(n.service_cluster_ip, string_view_at(svc, {"spec", "clusterIP"}));
    if (type == "LoadBalancer") t.set(n.service_loadbalancer_ip, string_view_at(svc, {"spec", "loadBalancerIP"}));
    targets.push_back(t.share());
  }
  return make_group(group, std::move(targets));
}

TargetGroup build_ingress_group(const Value& ing) {
  const RoleNames& n = RoleNames::get();
  LabelDraft group{{n.ns, string_view_at(ing, {"metadata", "namespace"})}};
  if (const Value* cls = model::find_path(ing, {"spec", "ingressClassName"}); cls && cls->is_string())
    group.set(n.ingress_class_name, cls->as_string());
  add_object_meta(group, ing, "ingress");
  std::vector<std::string> tls_hosts;
  for (const auto& tls : array_at(ing, {"spec", "tls"}))
    for (const auto& h : array_at(tls, {"hosts"}))
      if (h.is_string()) tls_hosts.push_back(h.as_string());
  LabelSets targets;
  LabelDraft t;
  for (const auto& rule : array_at(ing, {"spec", "rules"})) {
    const std::string host = model::string_at(rule, {"host"});
    std::string scheme = "http";
    for (const auto& pattern : tls_hosts)
      if (matches_hostname_pattern(pattern, host)) {
        scheme = "https";
        break;
      }
    std::vector<std::string> paths;
    if (model::find_path(rule, {"http"}) == nullptr || model::find_path(rule, {"http"})->is_null())
      paths.push_back("/");
    for (const auto& path : array_at(rule, {"http", "paths"})) {
      const std::string text = model::string_at(path, {"path"});
      paths.push_back(text.empty() ? "/" : text);
    }
    for (const auto& path : paths) {
      t.assign({{n.address, host}, {n.ingress_scheme, scheme}, {n.ingress_host, host}, {n.ingress_path, path}});
      targets.push_back(t.share());
    }
  }
  return make_group(group, std::move(targets));
}

}  // namespace allocation::discovery
