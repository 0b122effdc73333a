// Incremental kubernetes_sd: holds the objects one kubernetes_sd_config
// sees and the target groups they produce, and applies watch events one at
// a time (the shape of a k8s::Reflector's ObjectEvent: kind, change, the
// object as a shared model::Value, which is kept without copying).
// Contract: pure and single-threaded. An event rebuilds only the groups that
// read the object: its own group for the role's kind; for endpoints and
// endpointslice also the groups whose Service it is or whose addresses
// refer to it (a Pod). Objects outside the config's namespaces or not
// matching its selectors count as absent (a modification that stops
// matching removes them). apply() returns the sources of the groups it
// rebuilt or removed. groups() lists the current groups with targets, in
// source order; the result equals discover_kubernetes() over the objects
// applied so far, whatever their order.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "allocation/discovery/kubernetes_config.hpp"
#include "allocation/discovery/kubernetes_roles.hpp"
#include "allocation/discovery/reader_table.hpp"
#include "model/change.hpp"

namespace allocation::discovery {

using model::Change;  // the watch event types, shared with k8s::Reflector

using ObjectPtr = std::shared_ptr<const model::Value>;

class KubernetesIndex {
 public:
  explicit KubernetesIndex(KubernetesSdConfig config);

  const KubernetesSdConfig& config() const { return config_; }
  // Kinds this index reads (others are ignored by apply).
  const std::vector<Kind>& kinds() const { return kinds_; }
  std::vector<std::string> apply(Kind kind, Change change, const ObjectPtr& object);
  // nullptr when the source has no group.
  const TargetGroup* group(const std::string& source) const;
  std::vector<SourcedGroup> groups() const;
  // The objects of `kind` held in namespace `ns` ("" = every namespace),
  // in key order: what a watch of that kind and namespace has delivered,
  // to seed another index that starts sharing the watch.
  std::vector<ObjectPtr> objects(Kind kind, const std::string& ns) const;
  // How many groups were built so far (for tests of incrementality).
  std::uint64_t builds() const { return builds_; }

 private:
  const model::Value* find(Kind kind, const std::string& key) const;
  void rebuild(const std::string& key, std::vector<std::string>& changed);
  // Keyed by a hash of the pod or service key (a cluster has a key per
  // pod, and nothing walks them in order): two keys with one hash only
  // cost a rebuild that changes nothing. A reader is the address of its
  // key in reads_, whose nodes stay put until the reader is forgotten.
  struct Reads {
    std::vector<std::uint64_t> pods;  // sorted, unique
    std::uint64_t service = 0;
  };
  void forget_dependencies(const std::string& key);
  void record_dependencies(const std::string& key, const std::vector<std::string>& pods, const std::string& service);

  KubernetesSdConfig config_;
  Kind primary_;
  std::vector<Kind> kinds_;
  std::array<std::map<std::string, ObjectPtr>, kKinds> objects_;
  std::map<std::string, TargetGroup> groups_;  // by source
  // Primary object key -> what its group read, and the reverse maps used
  // to find the groups to rebuild.
  std::map<std::string, Reads> reads_;
  ReaderTable pod_readers_, service_readers_;
  std::uint64_t builds_ = 0;
};

using KindObject = std::pair<Kind, ObjectPtr>;

// The target groups of `objects` under `config` (the pure, non-incremental
// form of KubernetesIndex).
std::vector<SourcedGroup> discover_kubernetes(const KubernetesSdConfig& config, std::span<const KindObject> objects);

}  // namespace allocation::discovery
