// kubernetes_sd_configs: the parsed config (role, namespaces, selectors) and
// the watches it needs (kind, namespaces, server-side selectors), so a
// caller can start one Reflector per watch and feed KubernetesIndex.
// Contract: pure. parse_kubernetes_sd_config throws DiscoveryError whose
// message starts with the offending field ("...kubernetes_sd_configs[0].role:
// ..."), using Prometheus's validation rules (selector roles allowed per
// role, no duplicates). Roles: pod, service, endpoints, endpointslice,
// ingress (node and attach_metadata are not supported yet). Connection keys
// (api_server, kubeconfig_file, HTTP client settings) are accepted and
// ignored: the allocator uses its own cluster connection.
#pragma once

#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "allocation/discovery/selector.hpp"
#include "model/value.hpp"

namespace allocation::discovery {

class DiscoveryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws a DiscoveryError naming the config field at fault.
[[noreturn]] inline void fail_field(const std::string& field, const std::string& problem) {
  throw DiscoveryError(field + ": " + problem);
}

enum class Role { pod, service, endpoints, endpointslice, ingress };
// The object kinds discovery reads; values index KubernetesSdConfig::selectors.
enum class Kind { pod, service, endpoints, endpointslice, ingress };
inline constexpr std::size_t kKinds = 5;

std::string_view role_name(Role r);
std::string_view kind_name(Kind k);  // "Pod", "Service", "Endpoints", "EndpointSlice", "Ingress"
std::optional<Kind> kind_from_name(std::string_view kind);

struct KindSelectors {
  Selector label, field;
};

struct KubernetesSdConfig {
  Role role = Role::pod;
  bool all_namespaces = true;
  std::vector<std::string> namespaces;  // when !all_namespaces (may be empty: nothing)
  std::array<KindSelectors, kKinds> selectors;

  bool watches_namespace(std::string_view ns) const;
  // Namespace and selectors of `kind` accept `object`.
  bool accepts(Kind kind, const model::Value& object) const;
};

// `own_namespace` is the allocator's namespace (for namespaces.own_namespace;
// "" when unknown, which then adds nothing, as upstream outside a cluster).
KubernetesSdConfig parse_kubernetes_sd_config(const model::Value& config, const std::string& field,
                                              std::string_view own_namespace = "");

// One list+watch a config needs.
struct WatchSpec {
  Kind kind;
  std::string ns;  // "" = all namespaces
  std::string label_selector, field_selector;
};

// The kinds a role reads: its own, plus Service and Pod for endpoints and
// endpointslice (their labels are attached to the targets).
std::vector<Kind> kinds_of(Role role);
std::vector<WatchSpec> watch_specs(const KubernetesSdConfig& config);

}  // namespace allocation::discovery
