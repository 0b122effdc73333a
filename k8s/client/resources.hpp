// Where each kind the operator touches lives in the API, and how its URL
// paths are built. Contract: resource_for_kind() knows the kinds of core/v1,
// apps/v1, coordination.k8s.io/v1, discovery.k8s.io/v1, events.k8s.io/v1,
// rbac.authorization.k8s.io/v1, networking.k8s.io/v1, policy/v1,
// monitoring.grafana.com/v1alpha1, monitoring.coreos.com/v1 and v1alpha1
// (ScrapeConfig), and apiextensions.k8s.io/v1 CRDs; it returns nullptr for
// any other kind.
// Kinds are bare names ("Secret"), except events.k8s.io/v1 Event, which is
// "events.k8s.io/Event" because "Event" is the core/v1 kind.
#pragma once

#include <string>
#include <string_view>

namespace k8s {

struct Resource {
  std::string group;    // "" for the core group
  std::string version;  // "v1"
  std::string plural;   // "secrets"
  std::string kind;     // "Secret"
  bool namespaced = true;
  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
};

const Resource* resource_for_kind(std::string_view kind);

// "/api/v1/namespaces/NS/secrets/NAME/status"; `ns` empty = all namespaces
// (or a cluster-scoped kind), `name` and `subresource` optional.
std::string resource_path(const Resource& r, std::string_view ns, std::string_view name = {},
                          std::string_view subresource = {});

}  // namespace k8s
