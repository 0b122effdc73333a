#include "model/kubelet.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <stdexcept>

#include "model/labels.hpp"
#include "model/names.hpp"
#include "model/render.hpp"

namespace model {

namespace {

constexpr const char* kAppNameLabel = "app.kubernetes.io/name";

struct Port {
  const char* name;
  int port;
};
// Upstream's order.
constexpr Port kPorts[] = {
    {"https-metrics", kKubeletHttpsPort}, {"http-metrics", kKubeletHttpPort}, {"cadvisor", kCadvisorPort}};

// The labels upstream puts on all three kinds (the kubelet ServiceMonitors
// select app.kubernetes.io/name or k8s-app), over the -labels.
Labels kubelet_labels(const KubeletServiceOptions& opts) {
  Labels out = opts.operator_labels;
  out["k8s-app"] = "kubelet";
  out[kAppNameLabel] = "kubelet";
  out[kManagedByLabel] = kManagedByValue;
  return out;
}

Value meta(const KubeletServiceOptions& opts, const std::string& name, const Labels& labels) {
  return Value::obj({{"name", name}, {"namespace", opts.ns}, {"labels", labels_value(labels)}});
}

Value port_list(bool with_protocol) {
  Value out = Value::array();
  for (const Port& p : kPorts) {
    Value v = Value::obj({{"name", p.name}, {"port", p.port}});
    if (with_protocol) v.set("protocol", "TCP");
    out.push(std::move(v));
  }
  return out;
}

Value node_ref(const KubeletAddress& a) {
  Value ref = Value::obj({{"kind", "Node"}, {"name", a.node}});
  if (!a.uid.empty()) ref.set("uid", a.uid);
  return ref;
}

Value make_service(const KubeletServiceOptions& opts) {
  Value spec = Value::obj({{"type", "ClusterIP"}, {"clusterIP", "None"}, {"ports", port_list(false)}});
  return Value::obj({{"apiVersion", "v1"},
                     {"kind", "Service"},
                     {"metadata", meta(opts, opts.name, kubelet_labels(opts))},
                     {"spec", std::move(spec)}});
}

// The API server refuses a subset without addresses: no Nodes, no subset.
Value make_endpoints(const KubeletServiceOptions& opts, const std::vector<KubeletAddress>& addresses) {
  Labels labels = kubelet_labels(opts);
  // We write the slices ourselves: the mirroring controller must not.
  labels["endpointslice.kubernetes.io/skip-mirror"] = "true";
  Value subsets = Value::array();
  if (!addresses.empty()) {
    Value list = Value::array();
    for (const KubeletAddress& a : addresses)
      list.push(Value::obj({{"ip", a.ip}, {"nodeName", a.node}, {"targetRef", node_ref(a)}}));
    subsets.push(Value::obj({{"addresses", std::move(list)}, {"ports", port_list(true)}}));
  }
  return Value::obj({{"apiVersion", "v1"},
                     {"kind", "Endpoints"},
                     {"metadata", meta(opts, opts.name, labels)},
                     {"subsets", std::move(subsets)}});
}

Value slice_endpoint(const KubeletAddress& a) {
  return Value::obj({{"addresses", Value::arr({a.ip})},
                     {"conditions", Value::obj({{"ready", true}})},
                     {"nodeName", a.node},
                     {"targetRef", node_ref(a)}});
}

void add_slices(const KubeletServiceOptions& opts, const std::vector<const KubeletAddress*>& family, bool ipv6,
                std::vector<Value>& out) {
  Labels labels = kubelet_labels(opts);
  labels[kServiceNameLabel] = opts.name;
  labels[kSliceManagedByLabel] = kManagedByValue;
  for (std::size_t start = 0, n = 0; start < family.size(); start += kMaxEndpointsPerSlice, ++n) {
    Value endpoints = Value::array();
    for (std::size_t i = start; i < std::min(family.size(), start + kMaxEndpointsPerSlice); ++i)
      endpoints.push(slice_endpoint(*family[i]));
    std::string name = opts.name + (ipv6 ? "-ipv6-" : "-ipv4-") + std::to_string(n);
    out.push_back(Value::obj({{"apiVersion", "discovery.k8s.io/v1"},
                              {"kind", "EndpointSlice"},
                              {"metadata", meta(opts, name, labels)},
                              {"addressType", ipv6 ? "IPv6" : "IPv4"},
                              {"endpoints", std::move(endpoints)},
                              {"ports", port_list(true)}}));
  }
}

// "" for a usable address; otherwise why not.
std::string ip_problem(const std::string& ip, bool& ipv6) {
  unsigned char buf[16];
  if (inet_pton(AF_INET, ip.c_str(), buf) == 1) {
    ipv6 = false;
    return "";
  }
  if (inet_pton(AF_INET6, ip.c_str(), buf) != 1) return "\"" + ip + "\" is not an IP address";
  static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::equal(mapped, mapped + 12, buf))
    return "\"" + ip + "\" is an IPv4-mapped IPv6 address, which EndpointSlices do not accept";
  ipv6 = true;
  return "";
}

}  // namespace

Key parse_kubelet_service(std::string_view text) {
  std::size_t slash = text.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == text.size() ||
      text.find('/', slash + 1) != std::string_view::npos)
    throw std::invalid_argument("-kubelet-service: want NAMESPACE/NAME, got \"" + std::string(text) + "\"");
  std::string ns(text.substr(0, slash)), name(text.substr(slash + 1));
  if (std::string p = dns_label_problem(ns); !p.empty())
    throw std::invalid_argument("-kubelet-service: namespace \"" + ns + "\": " + p);
  std::string p = dns_label_problem(name);
  // A Service name is a DNS-1035 label: it also starts with a letter.
  if (p.empty() && !(name.front() >= 'a' && name.front() <= 'z')) p = "a Service name must start with a letter";
  if (!p.empty()) throw std::invalid_argument("-kubelet-service: Service name \"" + name + "\": " + p);
  return {ns, name};
}

std::optional<KubeletAddress> kubelet_address(const Value& node, Problem& problem) {
  problem = Problem{"Node", "", meta_string(node, "name"), "status.addresses", ""};
  const Value* list = find_path(node, {"status", "addresses"});
  std::optional<std::size_t> internal, external;
  if (list && list->is_array())
    for (std::size_t i = 0; i < list->size(); ++i) {
      std::string type = string_at(list->as_array()[i], {"type"});
      if (type == "InternalIP" && !internal) internal = i;
      if (type == "ExternalIP" && !external) external = i;
    }
  std::optional<std::size_t> at = internal ? internal : external;
  if (!at) {
    problem.message = "no InternalIP or ExternalIP address; the Node is left out of the kubelet Service";
    return std::nullopt;
  }
  KubeletAddress a{string_at(list->as_array()[*at], {"address"}), problem.name, meta_string(node, "uid")};
  if (std::string why = ip_problem(a.ip, a.ipv6); !why.empty()) {
    problem.path += "[" + std::to_string(*at) + "].address";
    problem.message = why + "; the Node is left out of the kubelet Service";
    return std::nullopt;
  }
  return a;
}

std::vector<Value> KubeletObjects::all() const {
  std::vector<Value> out{service, endpoints};
  out.insert(out.end(), endpoint_slices.begin(), endpoint_slices.end());
  return out;
}

KubeletObjects render_kubelet_objects(const KubeletServiceOptions& opts, const std::vector<Value>& nodes) {
  KubeletObjects out;
  for (const Value& node : nodes) {
    if (!opts.nodes.matches(find_path(node, {"metadata", "labels"}))) continue;
    Problem problem;
    if (auto a = kubelet_address(node, problem))
      out.addresses.push_back(std::move(*a));
    else
      out.problems.push_back(std::move(problem));
  }
  std::sort(out.addresses.begin(), out.addresses.end(), [](const KubeletAddress& a, const KubeletAddress& b) {
    return std::tie(a.ip, a.node) < std::tie(b.ip, b.node);
  });
  std::sort(out.problems.begin(), out.problems.end());
  out.service = make_service(opts);
  out.endpoints = make_endpoints(opts, out.addresses);
  std::vector<const KubeletAddress*> v4, v6;
  for (const KubeletAddress& a : out.addresses) (a.ipv6 ? v6 : v4).push_back(&a);
  add_slices(opts, v4, false, out.endpoint_slices);
  add_slices(opts, v6, true, out.endpoint_slices);
  return out;
}

bool is_kubelet_object(const KubeletServiceOptions& opts, std::string_view kind, const Value& obj) {
  if (meta_string(obj, "namespace") != opts.ns) return false;
  if (kind == "Service" || kind == "Endpoints") return meta_string(obj, "name") == opts.name;
  if (kind != "EndpointSlice") return false;
  return string_at(obj, {"metadata", "labels", kServiceNameLabel}) == opts.name &&
         string_at(obj, {"metadata", "labels", kManagedByLabel}) == kManagedByValue;
}

std::string kubelet_objects_selector() {
  return std::string(kManagedByLabel) + "=" + kManagedByValue + "," + kAppNameLabel + "=kubelet";
}

Value trim_node(const Value& node) {
  Value md = Value::object();
  for (const char* field : {"name", "uid", "resourceVersion", "labels"})
    if (const Value* v = find_path(node, {"metadata", field})) md.set(field, *v);
  Value out = Value::obj({{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", std::move(md)}});
  if (const Value* addresses = find_path(node, {"status", "addresses"}))
    out.set("status", Value::obj({{"addresses", *addresses}}));
  return out;
}

}  // namespace model
