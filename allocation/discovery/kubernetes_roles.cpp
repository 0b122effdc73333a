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

}  // namespace

void add_pod_labels(LabelMap& labels, const Value& pod) {
  const std::string p(kPrefix);
  labels[p + "pod_ip"] = model::string_at(pod, {"status", "podIP"});
  labels[p + "pod_ready"] = ready_label(pod);
  labels[p + "pod_phase"] = model::string_at(pod, {"status", "phase"});
  labels[p + "pod_node_name"] = model::string_at(pod, {"spec", "nodeName"});
  labels[p + "pod_host_ip"] = model::string_at(pod, {"status", "hostIP"});
  labels[p + "pod_uid"] = model::string_at(pod, {"metadata", "uid"});
  add_object_meta(labels, pod, "pod");
  if (const Value* ref = controller_of(pod)) {
    if (auto kind = model::string_at(*ref, {"kind"}); !kind.empty()) labels[p + "pod_controller_kind"] = kind;
    if (auto name = model::string_at(*ref, {"name"}); !name.empty()) labels[p + "pod_controller_name"] = name;
  }
}

std::string container_id(const Value& pod, const std::string& name, bool init) {
  for (const auto& s : array_at(pod, {"status", init ? "initContainerStatuses" : "containerStatuses"}))
    if (model::string_at(s, {"name"}) == name) return model::string_at(s, {"containerID"});
  return "";
}

TargetGroup make_group(const LabelMap& group, const std::vector<LabelMap>& targets) {
  TargetGroup out;
  if (!group.empty()) out.labels = to_label_set(group);
  for (const auto& t : targets) out.targets.push_back(to_label_set(t));
  return out;
}

std::string group_source(Role role, const Value& object) {
  return std::string(role_name(role)) + "/" + model::namespaced_name(object);
}

TargetGroup build_pod_group(const Value& pod) {
  const std::string ip = model::string_at(pod, {"status", "podIP"});
  if (ip.empty()) return {};  // starting or evicted: an empty group, as upstream
  const std::string p(kPrefix);
  LabelMap group;
  add_pod_labels(group, pod);
  group[p + "namespace"] = model::string_at(pod, {"metadata", "namespace"});
  std::vector<LabelMap> targets;
  for (bool init : {false, true}) {
    for (const auto& c : array_at(pod, {"spec", init ? "initContainers" : "containers"})) {
      const std::string name = model::string_at(c, {"name"});
      LabelMap base{{"__address__", ip},
                    {p + "pod_container_name", name},
                    {p + "pod_container_id", container_id(pod, name, init)},
                    {p + "pod_container_image", model::string_at(c, {"image"})},
                    {p + "pod_container_init", init ? "true" : "false"}};
      const auto& ports = array_at(c, {"ports"});
      if (ports.empty()) targets.push_back(base);
      for (const auto& port : ports) {
        LabelMap t = base;
        const std::string number = int_at(port, {"containerPort"});
        t["__address__"] = join_host_port(ip, number);
        t[p + "pod_container_port_number"] = number;
        t[p + "pod_container_port_name"] = model::string_at(port, {"name"});
        t[p + "pod_container_port_protocol"] = model::string_at(port, {"protocol"});
        targets.push_back(std::move(t));
      }
    }
  }
  return make_group(group, targets);
}

TargetGroup build_service_group(const Value& svc) {
  const std::string p(kPrefix);
  LabelMap group{{p + "namespace", model::string_at(svc, {"metadata", "namespace"})}};
  add_object_meta(group, svc, "service");
  const std::string host =
      model::string_at(svc, {"metadata", "name"}) + "." + model::string_at(svc, {"metadata", "namespace"}) + ".svc";
  const std::string type = model::string_at(svc, {"spec", "type"});
  std::vector<LabelMap> targets;
  for (const auto& port : array_at(svc, {"spec", "ports"})) {
    const std::string number = int_at(port, {"port"});
    LabelMap t{{"__address__", join_host_port(host, number)},
               {p + "service_port_name", model::string_at(port, {"name"})},
               {p + "service_port_number", number},
               {p + "service_port_protocol", model::string_at(port, {"protocol"})},
               {p + "service_type", type}};
    if (type == "ExternalName")
      t[p + "service_external_name"] = model::string_at(svc, {"spec", "externalName"});
    else
      t[p + "service_cluster_ip"] = model::string_at(svc, {"spec", "clusterIP"});
    if (type == "LoadBalancer") t[p + "service_loadbalancer_ip"] = model::string_at(svc, {"spec", "loadBalancerIP"});
    targets.push_back(std::move(t));
  }
  return make_group(group, targets);
}

TargetGroup build_ingress_group(const Value& ing) {
  const std::string p(kPrefix);
  LabelMap group{{p + "namespace", model::string_at(ing, {"metadata", "namespace"})}};
  if (const Value* cls = model::find_path(ing, {"spec", "ingressClassName"}); cls && cls->is_string())
    group[p + "ingress_class_name"] = cls->as_string();
  add_object_meta(group, ing, "ingress");
  std::vector<std::string> tls_hosts;
  for (const auto& tls : array_at(ing, {"spec", "tls"}))
    for (const auto& h : array_at(tls, {"hosts"}))
      if (h.is_string()) tls_hosts.push_back(h.as_string());
  std::vector<LabelMap> targets;
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
    for (const auto& path : paths)
      targets.push_back({{"__address__", host},
                         {p + "ingress_scheme", scheme},
                         {p + "ingress_host", host},
                         {p + "ingress_path", path}});
  }
  return make_group(group, targets);
}

}  // namespace allocation::discovery
