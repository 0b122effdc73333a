// The kinds simcluster serves: their group/version/kind, REST name, scope
// and behaviour flags, for the built-ins and for every registered CRD.
// Contract: a TypeRegistry is safe to read and change from many threads;
// lookups return copies, so a CRD deleted concurrently never dangles.
#pragma once

#include <map>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

namespace k8s::sim {

struct ResourceType {
  std::string group;
  std::string version;
  std::string kind;
  std::string plural;
  std::string singular;
  bool namespaced = true;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  bool status_subresource = false;
  bool scale_subresource = false;  // /scale serves autoscaling/v1 Scale
  bool tracks_generation = false;  // metadata.generation bumps on spec changes
  bool custom = false;             // served for a CRD (merge patch only)
  // A review (TokenReview): only POST on the collection, answered from the
  // request and never stored; every other verb is a 405.
  bool create_only = false;
  std::vector<std::string> field_selectors;  // beyond metadata.name/namespace
  std::string schema_ref;                    // OpenAPI component describing the kind

  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
  std::string list_kind() const { return kind + "List"; }
  // The storage key shared by every version: "pods", "deployments.apps".
  std::string storage_key() const { return group.empty() ? plural : plural + "." + group; }
  // Every field path a fieldSelector may use for this type.
  std::vector<std::string> selectable_fields() const;
};

class TypeRegistry {
 public:
  // Starts with the built-in kinds.
  TypeRegistry();

  void add(ResourceType t);
  // Removes every version of group/plural.
  void remove(const std::string& group, const std::string& plural);

  std::optional<ResourceType> find(const std::string& group, const std::string& version,
                                   const std::string& plural) const;
  std::optional<ResourceType> find_kind(const std::string& api_version, const std::string& kind) const;
  // All served types, sorted by group, version and plural.
  std::vector<ResourceType> all() const;
  // Bumped on every add/remove; lets caches of derived documents expire.
  unsigned long generation() const;

 private:
  mutable std::shared_mutex mutex_;
  std::map<std::string, ResourceType> types_;  // "group/version/plural"
  unsigned long generation_ = 0;
};

// The built-in kinds (core, apps, authentication, coordination, discovery,
// networking, rbac, apiextensions).
std::vector<ResourceType> builtin_types();

}  // namespace k8s::sim
