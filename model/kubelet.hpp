// The kubelet Service (-kubelet-service=NS/NAME), as a pure function of the
// cluster's Nodes: a headless Service with the kubelet's ports, its
// Endpoints and its discovery.k8s.io/v1 EndpointSlices, one address per
// Node (its first InternalIP, else its first ExternalIP) with a targetRef to
// the Node. This is what upstream's kubelet/cAdvisor ServiceMonitors select.
// Contract: pure and deterministic: addresses are sorted (address, then
// Node name), slices are named <name>-ipv4-<n> / <name>-ipv6-<n> in that
// order with at most kMaxEndpointsPerSlice endpoints each, so equal Nodes
// give byte-identical objects whatever order they were seen in. A Node
// without a usable address is left out with a Problem naming it and the
// field; the other Nodes are unaffected. Nodes outside the selector are
// ignored. Objects carry no config-hash (the writer adds it).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "model/inventory.hpp"
#include "model/object_fields.hpp"
#include "model/selector_text.hpp"
#include "model/value.hpp"

namespace model {

// Upstream's port names and numbers (prometheus-operator and the Grafana
// Agent Operator agree).
inline constexpr int kKubeletHttpsPort = 10250;  // https-metrics
inline constexpr int kKubeletHttpPort = 10255;   // http-metrics
inline constexpr int kCadvisorPort = 4194;       // cadvisor
inline constexpr std::size_t kMaxEndpointsPerSlice = 512;
inline constexpr const char* kServiceNameLabel = "kubernetes.io/service-name";
inline constexpr const char* kSliceManagedByLabel = "endpointslice.kubernetes.io/managed-by";

struct KubeletServiceOptions {
  std::string ns, name;
  Labels operator_labels;              // the -labels flag; ours win on conflicts
  selector_text::LabelSelector nodes;  // --kubelet-selector; empty = every Node
};

// A -kubelet-service value, "NAMESPACE/NAME": a namespace and a Service
// name (DNS-1035 label). Throws std::invalid_argument naming the flag and
// what is wrong.
Key parse_kubelet_service(std::string_view text);

struct KubeletAddress {
  std::string ip, node, uid;
  bool ipv6 = false;
};

// The Node's address as the kubelet Service lists it: the first InternalIP,
// else the first ExternalIP. nullopt with `problem` set when it has neither
// or the chosen one is not an IP address.
std::optional<KubeletAddress> kubelet_address(const Value& node, Problem& problem);

struct KubeletObjects {
  Value service, endpoints;
  std::vector<Value> endpoint_slices;  // ipv4 slices, then ipv6
  std::vector<KubeletAddress> addresses;
  std::vector<Problem> problems;  // one per skipped Node, sorted by name
  // Every object this renders, in write order: the Service, the Endpoints,
  // the slices.
  std::vector<Value> all() const;
};

KubeletObjects render_kubelet_objects(const KubeletServiceOptions& opts, const std::vector<Value>& nodes);

// Whether `obj` (of `kind`) is one of the objects render_kubelet_objects
// writes or may have written under these options: the Service and the
// Endpoints by namespace and name, an EndpointSlice by namespace, the
// service-name label and our managed-by label (a slice others made for the
// same Service is not ours to change).
bool is_kubelet_object(const KubeletServiceOptions& opts, std::string_view kind, const Value& obj);

// The label selector that finds every object of ours (Service, Endpoints,
// EndpointSlices) in opts.ns.
std::string kubelet_objects_selector();

// A Node reduced to what kubelet_address() and the selector read
// (metadata name, uid, resourceVersion, labels; status.addresses): what the
// controller journals, instead of whole Nodes with their images and
// conditions.
Value trim_node(const Value& node);

}  // namespace model
